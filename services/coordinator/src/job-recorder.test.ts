import { describe, expect, it } from 'vitest';
import { countersForTakeOver } from './job-recorder.js';

const row = (table: string, read: number, written: number) => ({
  table,
  sourceReceivedCount: read,
  sinkWriteCount: written,
  sourceReceivedBytes: read * 10,
  sinkWriteBytes: written * 10,
});
const pointer = (counters?: ReturnType<typeof row>[]) => ({
  pipelineId: 1,
  checkpointId: 7,
  key: 'k',
  timestamp: 1,
  kind: 'CHECKPOINT',
  counters,
});

describe('countersForTakeOver', () => {
  it('goes on from the checkpoint pointer when the job state was written before that checkpoint', () => {
    // The leader recorded 3000 rows, then a checkpoint completed at 3500 and it died before
    // writing its state again: the pipeline restores from the checkpoint and must not count fewer.
    expect(countersForTakeOver([row('t', 3000, 2900)], pointer([row('t', 3500, 3400)]))).toEqual([row('t', 3500, 3400)]);
  });

  it('keeps the job state when it is newer than the checkpoint, table by table', () => {
    const out = countersForTakeOver([row('a', 900, 900), row('b', 10, 5)], pointer([row('a', 800, 800), row('b', 20, 5), row('c', 1, 1)]));
    expect(out).toEqual([row('a', 900, 900), row('b', 20, 5), row('c', 1, 1)]);
  });

  it('reads pointers written before counters were kept in them as carrying none', () => {
    expect(countersForTakeOver([row('t', 5, 5)], pointer())).toEqual([row('t', 5, 5)]);
    expect(countersForTakeOver([row('t', 5, 5)], undefined)).toEqual([row('t', 5, 5)]);
  });
});
