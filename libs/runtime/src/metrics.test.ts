import { describe, expect, it } from 'vitest';
import { Types, type CatalogTable, type Row } from '@tideway/api';
import { TaskGroupCounters, rowBytesOf } from './metrics.js';

const table = (tableId: string, types: CatalogTable['columns'][number]['type'][]): CatalogTable => ({
  tableId,
  path: { database: 'd', table: tableId },
  columns: types.map((type, i) => ({ name: `c${i}`, type, nullable: true })),
});
const row = (tableId: string, fields: unknown[]): Row => ({ kind: '+I', tableId, fields });

describe('row bytes as SeaTunnel counts them', () => {
  it('counts by declared type', () => {
    expect(rowBytesOf([Types.INT, Types.STRING, Types.BIGINT], [1, 'abcde', 2n])).toBe(4 + 5 + 8);
    expect(rowBytesOf([Types.BOOLEAN, Types.SMALLINT, Types.FLOAT, Types.DOUBLE], [true, 1, 1.5, 2.5])).toBe(1 + 2 + 4 + 8);
    expect(rowBytesOf([Types.decimal(10, 2), Types.DATE, Types.TIME, Types.TIMESTAMP], ['1.00', 'x', 'y', 'z'])).toBe(36 + 24 + 12 + 48);
    expect(rowBytesOf([Types.array(Types.INT), Types.map(Types.STRING, Types.SMALLINT)], [[1, 2, 3], new Map([['ab', 1]])])).toBe(
      12 + 2 + 2,
    );
    expect(rowBytesOf([Types.INT, Types.STRING], [null, undefined])).toBe(0);
  });

  it('source and sink rows use their own schemas; unknown tables fall back to an estimate', () => {
    const c = new TaskGroupCounters();
    c.registerSourceTables([table('t', [Types.INT, Types.STRING])]);
    c.registerSinkTables([table('t', [Types.STRING])]);
    c.countSource([row('t', [1, 'abc']), row('t', [2, 'de'])]);
    c.countSink([row('t', ['abcd'])]);
    c.countSource([row('other', [1])]);
    const m = Object.fromEntries(c.snapshot().tables.map((t) => [t.table, t]));
    expect(m.t).toMatchObject({ sourceReceivedCount: 2, sourceReceivedBytes: 4 + 3 + 4 + 2, sinkWriteCount: 1, sinkWriteBytes: 4 });
    expect(m.other).toMatchObject({ sourceReceivedCount: 1, sourceReceivedBytes: 8 });
  });
});
