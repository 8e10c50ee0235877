import { describe, expect, it } from 'vitest';
import type { JobMaster } from './job-master.js';
import { OTHER_TABLES, TableSeries } from './table-series.js';

const counts = (n: number) => ({ sourceReceivedCount: n, sinkWriteCount: n, sourceReceivedBytes: 10 * n, sinkWriteBytes: 10 * n });

describe('TableSeries', () => {
  it('the first N tables of a job keep series of their own; later ones are summed into _other, and stay there', () => {
    const series = new TableSeries(2);
    const job = {} as JobMaster;
    expect(series.series(job, new Map([['a', counts(1)]]))).toEqual({ series: [['a', counts(1)]], folded: 0 });
    const tables = new Map([
      ['c', counts(5)],
      ['a', counts(2)],
      ['b', counts(3)],
      ['d', counts(4)],
    ]);
    // 'c' came second, so it keeps a series; 'b' and 'd' are folded.
    expect(series.series(job, tables)).toEqual({
      series: [
        ['c', counts(5)],
        ['a', counts(2)],
        [OTHER_TABLES, counts(7)],
      ],
      folded: 2,
    });
    // Another job has its own N.
    expect(series.series({} as JobMaster, new Map([['d', counts(1)]])).series).toEqual([['d', counts(1)]]);
  });
});
