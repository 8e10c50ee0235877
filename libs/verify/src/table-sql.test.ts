import { describe, expect, it } from 'vitest';
import type { JdbcConnection } from '@tideway/connector-jdbc';
import type { ColumnInfo } from './column-info.js';
import { SideSql, slicesOf } from './table-sql.js';

const conn = (dialect: 'mysql' | 'postgresql') =>
  ({
    dialect,
    tableSql: () => (dialect === 'mysql' ? '`t`' : '"t"'),
    quote: (n: string) => (dialect === 'mysql' ? `\`${n}\`` : `"${n}"`),
  }) as unknown as JdbcConnection;
const cols: ColumnInfo[] = [
  { name: 'id', cls: 'integer', fraction: 0, label: 'bigint', shape: 'integer' },
  { name: 's', cls: 'text', fraction: 0, label: 'varchar(9)', shape: 'text', utf8Column: true },
];
const side = (dialect: 'mysql' | 'postgresql') =>
  new SideSql(
    { conn: conn(dialect), ref: { table: 't' }, facts: { dialect, truncates: false }, columns: cols },
    [{ kind: 'number' }, { kind: 'text' }],
    [0],
    false,
    true,
  );

describe('range checksum slices', () => {
  it('cuts the ranges into slices of about equal size, never more than there are ranges', () => {
    expect(slicesOf(10, 3)).toEqual([
      { from: 0, to: 3 },
      { from: 3, to: 6 },
      { from: 6, to: 10 },
    ]);
    expect(slicesOf(2, 5)).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
    ]);
    expect(slicesOf(0, 2)).toEqual([{ from: 0, to: 0 }]);
  });

  it('bounds inner slices by key; the first has no lower bound and the last no upper one', () => {
    const b = { kind: 'range' as const, lo: -5n, width: 10n, n: 4 };
    const my = side('mysql');
    expect(my.checksumSql(b, { from: 0, to: 2 })).toMatch(/WHERE `id` < 15 GROUP BY b ORDER BY NULL$/);
    expect(my.checksumSql(b, { from: 2, to: 4 })).toMatch(/WHERE `id` >= 15 GROUP BY b ORDER BY NULL$/);
    expect(my.checksumSql(b, { from: 1, to: 3 })).toContain('WHERE `id` >= 5 AND `id` < 25 GROUP BY b');
    expect(my.checksumSql(b)).not.toContain('WHERE');
    expect(side('postgresql').checksumSql(b, { from: 1, to: 2 })).toContain('WHERE "id" >= 5 AND "id" < 15) tw_ranges GROUP BY b');
  });

  it("hashes MySQL's columns as CONCAT converts them, UTF-8 text lengths in bytes", () => {
    const sql = side('mysql').checksumSql({ kind: 'hash', n: 3 });
    expect(sql).toContain('ELSE `id` END)');
    expect(sql).toContain("CONCAT(LENGTH(`s`), ':', `s`)");
    expect(side('postgresql').checksumSql({ kind: 'hash', n: 3 })).toContain(`octet_length("s")::text || ':' || "s"::text`);
  });
});
