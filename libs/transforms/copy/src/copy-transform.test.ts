import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { copyTransformFactory } from './index.js';

const rowType = Types.row([{ name: 'c_int', type: Types.INT }]);
const table: CatalogTable = newCatalogTable(
  { table: 'fake' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'name', type: Types.STRING, nullable: true, comment: 'n' },
    { name: 'c_row', type: Types.row([{ name: 'c_row', type: rowType }]), nullable: true },
    { name: 'blob', type: Types.BYTES, nullable: true },
    { name: 'tags', type: Types.map(Types.STRING, Types.array(Types.INT)), nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] } },
);
const row = (fields: unknown[], kind: Row['kind'] = RowKind.INSERT): Row => ({ kind, tableId: table.tableId, fields });
const create = (options: Record<string, unknown>, tables: readonly CatalogTable[] = [table]) =>
  copyTransformFactory.create(transformTestContext(copyTransformFactory.spec, options, tables));

describe('Copy', () => {
  it('appends the copies in fields order with the source column metadata, keeping the key', () => {
    const t = create({ fields: { name1: 'name', id1: 'id' } });
    const [out] = t.outputTables();
    expect(out.columns.map((c) => c.name)).toEqual(['id', 'name', 'c_row', 'blob', 'tags', 'name1', 'id1']);
    expect(out.columns[5]).toEqual({ ...table.columns[1], name: 'name1' });
    expect(out.columns[6]).toEqual({ ...table.columns[0], name: 'id1' });
    expect(out.primaryKey).toEqual({ name: 'pk', columns: ['id'] });
    expect(t.transform([row([1, null, null, null, null], RowKind.DELETE)])).toEqual([
      row([1, null, null, null, null, null, 1], RowKind.DELETE),
    ]);
  });

  it('supports the older src_field / dest_field', () => {
    const t = create({ src_field: 'name', dest_field: 'name1' });
    expect(t.outputTables()[0].columns.at(-1)?.name).toBe('name1');
    expect(t.transform([row([1, 'Joy', null, null, null])])[0].fields.at(-1)).toBe('Joy');
  });

  it('deep-copies bytes, nested rows, arrays and maps', () => {
    const t = create({ fields: { r: 'c_row', b: 'blob', m: 'tags' } });
    const nested = [[5]];
    const blob = new Uint8Array([1, 2]);
    const tags = new Map([['a', [1, 2]]]);
    const [out] = t.transform([row([1, 'x', nested, blob, tags])]);
    expect(out.fields.slice(5)).toEqual([nested, blob, tags]);
    expect(out.fields[5]).not.toBe(nested);
    expect((out.fields[5] as unknown[][])[0]).not.toBe(nested[0]);
    expect(out.fields[6]).not.toBe(blob);
    expect(out.fields[7]).not.toBe(tags);
    expect((out.fields[7] as Map<string, number[]>).get('a')).not.toBe(tags.get('a'));
    // the original row keeps its own objects
    expect(out.fields[2]).toBe(nested);
  });

  it('replaces an existing column in place when the new field has its name', () => {
    const t = create({ fields: { name: 'id' } });
    const [out] = t.outputTables();
    expect(out.columns.map((c) => `${c.name}:${c.type.kind}`)).toEqual(['id:int', 'name:int', 'c_row:row', 'blob:bytes', 'tags:map']);
    expect(out.columns[1].nullable).toBe(false);
    expect(t.transform([row([7, 'gone', null, null, null])])[0].fields).toEqual([7, 7, null, null, null]);
  });

  it('chains: Copy -> Copy as in the conformance case', () => {
    const first = create({ src_field: 'name', dest_field: 'name1' });
    const second = create({ fields: { id_1: 'id', name2: 'name', name3: 'name', c_row_1: 'c_row' } }, first.outputTables());
    const [out] = second.outputTables();
    expect(out.columns.map((c) => c.name)).toEqual(['id', 'name', 'c_row', 'blob', 'tags', 'name1', 'id_1', 'name2', 'name3', 'c_row_1']);
    expect(out.columns.find((c) => c.name === 'c_row_1')?.type).toEqual(table.columns[2].type);
    const rows = second.transform(first.transform([row([3, 'Ann', [[1]], null, null])]));
    expect(rows[0].fields).toEqual([3, 'Ann', [[1]], null, null, 'Ann', 3, 'Ann', 'Ann', [[1]]]);
  });

  it('refuses unknown sources and bad option combinations, naming the option', () => {
    expect(() => create({ fields: { x: 'nope' } })).toThrow(ConfigError);
    expect(() => create({ fields: { x: 'nope' } })).toThrow(/'nope' in option 'fields' is not a column of table 'fake'/);
    expect(() => create({ src_field: 'nope', dest_field: 'x' })).toThrow(/'nope' in option 'src_field'/);
    expect(() => create({ src_field: 'name' })).toThrow(/'dest_field' is missing/);
    expect(() => create({ fields: { a: 'id' }, src_field: 'name', dest_field: 'b' })).toThrow(/not both/);
    expect(() => create({})).toThrow(/needs option 'fields'/);
  });
});
