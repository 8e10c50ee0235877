import { newCatalogTable } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { describe, expect, it } from 'vitest';
import { sql, table } from './sql-fixture.test-util.js';

describe('Sql transform: errors at submission name the position', () => {
  const t = table({ id: 'int', name: 'string' });
  it.each([
    ['select nope from fake', /unknown column 'nope'.*line 1, column 8/],
    ['select id from other', /unknown table 'other'.*column 16/],
    ['select frob(id) from fake', /unknown function FROB.*column 8/],
    ['select id + name from fake', /cannot apply \+ to int and string/],
    ["select id from fake where id = 'x'", /cannot compare int with string/],
    ['select cast(id as widget) from fake', /unknown CAST type WIDGET/],
    ['select id from fake group by id', /GROUP is not supported/],
    ['select id,\n  upper(id, 2) from fake', /UPPER takes 1 argument.*line 2, column 3/],
    ['select id, id from fake', /'id' appears twice/],
    ["select 'abc from fake", /unterminated string literal/],
  ])('%s', (q, re) => {
    let err: unknown;
    try {
      sql(q, t);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TidewayError);
    expect((err as TidewayError).code).toBe(ErrorCode.SQL);
    expect((err as Error).message).toMatch(re);
    expect((err as Error).message).toMatch(/plugin test, option 'query'/);
  });
});

describe('Sql transform: output table', () => {
  it('infers names, types and nullability, keeps the primary key when its columns pass through', () => {
    const t = table({ id: 'bigint', name: 'string', c_row: 'row<a int>' }, { primaryKey: { name: 'pk', columns: ['id'] } });
    t.columns[0].nullable = false;
    const out = sql('select id, upper(name), c_row.a, 1 + 1 from fake', t).outputTables()[0];
    expect(out.tableId).toBe(t.tableId);
    expect(out.columns.map((c) => [c.name, c.type.kind, c.nullable])).toEqual([
      ['id', 'bigint', false],
      ['upper(name)', 'string', true],
      ['a', 'int', true],
      ['1 + 1', 'int', true],
    ]);
    expect(out.primaryKey).toEqual({ name: 'pk', columns: ['id'] });
    expect(sql('select id + 1 as id, name from fake', t).outputTables()[0].primaryKey).toBeUndefined();
    expect(sql('select name from fake', t).outputTables()[0].primaryKey).toBeUndefined();
  });

  it('keeps row kinds and table ids, drops rows the WHERE rejects', () => {
    const t = table({ id: 'int' });
    const out = sql('select id * 10 as x from fake where id > 1', t).transform([
      { kind: '+I', tableId: t.tableId, fields: [1] },
      { kind: '-D', tableId: t.tableId, fields: [2] },
      { kind: '+U', tableId: t.tableId, fields: [null] },
    ]);
    expect(out).toEqual([{ kind: '-D', tableId: t.tableId, fields: [20] }]);
  });

  it('accesses array elements (zero-based) and map keys by index', () => {
    const t = table({ arr: 'array<int>', m: 'map<string, int>' });
    const tr = sql("select arr[1] as a, arr[5] as out_of_range, m['k'] as k from fake", t);
    expect(tr.transform([{ kind: '+I', tableId: t.tableId, fields: [[10, 20], new Map([['k', 3]])] }])[0].fields).toEqual([20, null, 3]);
  });
});

describe('Sql transform: several input tables', () => {
  it('compiles the query against each table and routes rows by table id', () => {
    const a = newCatalogTable({ database: 'db', table: 'a' }, [
      { name: 'id', type: { kind: 'int' }, nullable: true },
      { name: 'name', type: { kind: 'string' }, nullable: true },
    ]);
    const b = newCatalogTable({ database: 'db', table: 'b' }, [
      { name: 'name', type: { kind: 'string' }, nullable: true },
      { name: 'id', type: { kind: 'bigint' }, nullable: true },
    ]);
    const tr = sql('select id, upper(name) as up from fake where id > 1', a, b);
    expect(tr.outputTables().map((o) => [o.tableId, o.columns.map((c) => c.type.kind)])).toEqual([
      ['db.a', ['int', 'string']],
      ['db.b', ['bigint', 'string']],
    ]);
    const out = tr.transform([
      { kind: '+I', tableId: 'db.a', fields: [2, 'x'] },
      { kind: '+I', tableId: 'db.b', fields: ['y', 5n] },
      { kind: '+I', tableId: 'db.b', fields: ['z', 1n] },
    ]);
    expect(out).toEqual([
      { kind: '+I', tableId: 'db.a', fields: [2, 'X'] },
      { kind: '+I', tableId: 'db.b', fields: [5n, 'Y'] },
    ]);
  });
});
