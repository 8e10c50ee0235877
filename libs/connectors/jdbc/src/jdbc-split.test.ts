import { describe, expect, it } from 'vitest';
import type { JdbcConnection } from './jdbc-connection.js';
import { splitStatement, type JdbcSplit } from './jdbc-split.js';

const mysqlLike = {
  dialect: 'mysql',
  quote: (n: string) => `\`${n}\``,
  literal: (s: string) => `'${s.replace(/'/g, "''")}'`,
} as unknown as JdbcConnection;

const split = (over: Partial<JdbcSplit>): JdbcSplit => ({ splitId: 't#0', tableId: 't', query: 'select * from t', rowsRead: 0, ...over });

describe('splitStatement', () => {
  it('writes numeric bounds as literals, exact past 2^53 (MySQL compares string parameters as DOUBLE)', () => {
    const sql = splitStatement(
      mysqlLike,
      split({
        range: {
          column: 'c_bigint_30',
          lower: '2844674407371055000',
          upper: '2844674407371055099',
          upperInclusive: true,
          includeNull: false,
        },
      }),
    );
    expect(sql).toBe(
      'SELECT * FROM (select * from t) tw_split WHERE `c_bigint_30` >= 2844674407371055000 AND `c_bigint_30` <= 2844674407371055099',
    );
  });

  it('quotes a resume key of text as a string literal, and writes a numeric one as a number', () => {
    const text = splitStatement(mysqlLike, split({ orderKey: 'name', orderKeyIndex: 0, lastKey: "O'Brien" }));
    expect(text).toContain("`name` > 'O''Brien'");
    const digits = splitStatement(mysqlLike, split({ orderKey: 'name', orderKeyIndex: 0, lastKey: '100' }));
    expect(digits).toContain("`name` > '100'");
    const big = splitStatement(mysqlLike, split({ orderKey: 'id', orderKeyIndex: 0, lastKey: 9007199254740993n }));
    expect(big).toContain('`id` > 9007199254740993 ORDER BY `id`');
  });
});
