import { describe, expect, it } from 'vitest';
import { compileSinkQuery } from './sink-query.js';

const fields = ['user_id', 'name', 'age'];
const place = { option: 'query' };

describe('compileSinkQuery', () => {
  it('maps :field parameters by name, in the query order, a name used twice taken twice', () => {
    expect(compileSinkQuery('insert into t(a, n, u, u2) values(:age, :name, :user_id, :user_id)', fields, 'postgresql', place)).toEqual({
      sql: 'insert into t(a, n, u, u2) values($1, $2, $3, $4)',
      fields: [2, 1, 0, 0],
    });
    expect(compileSinkQuery('insert into t values(:age, :name)', fields, 'mysql', place)).toEqual({
      sql: 'insert into t values(?, ?)',
      fields: [2, 1],
    });
  });

  it('leaves quoted text, comments, casts and dollar quoting alone', () => {
    const q = `insert into t values(:age::int, ':name?', "x:y", \`b:c\`, $q$ :age ? $q$, 'it''s :name') -- :age ?\n/* :name */`;
    const got = compileSinkQuery(q, fields, 'postgresql', place);
    expect(got.fields).toEqual([2]);
    expect(got.sql).toBe(q.replace(':age::int', '$1::int'));
  });

  it('numbers positional ? in field order and types parameters by castOf', () => {
    expect(compileSinkQuery('insert into t values(?, ?)', fields, 'postgresql', place, (f) => (f === 0 ? 'bigint' : undefined))).toEqual({
      sql: 'insert into t values($1::bigint, $2)',
      fields: [0, 1],
    });
  });

  it('refuses unknown names, mixed styles and more ? than fields', () => {
    expect(() => compileSinkQuery('insert into t values(:nmae)', fields, 'mysql', place)).toThrow(
      "option 'query': query names the parameter :nmae, but the input table has no field 'nmae' (fields: user_id, name, age)",
    );
    expect(() => compileSinkQuery('insert into t values(:age, ?)', fields, 'mysql', place)).toThrow('query mixes ? and :name parameters');
    expect(() => compileSinkQuery('insert into t values(?, ?, ?, ?)', fields, 'mysql', place)).toThrow(
      'query has 4 ? parameters, but the input rows have 3 fields',
    );
  });
});
