import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { filterTransformFactory } from './index.js';

const table: CatalogTable = newCatalogTable(
  { database: 'db', table: 'person' },
  [
    { name: 'id', type: Types.BIGINT, nullable: false },
    { name: 'name', type: Types.STRING, nullable: true, comment: 'full name' },
    { name: 'age', type: Types.INT, nullable: true },
    { name: 'card', type: Types.decimal(10, 2), nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] }, constraintKeys: [{ name: 'uk_name', type: 'UNIQUE_KEY', columns: ['name'] }] },
);
const row = (fields: unknown[], kind: Row['kind'] = RowKind.INSERT): Row => ({ kind, tableId: table.tableId, fields });
const create = (options: Record<string, unknown>, tables: CatalogTable[] = [table]) =>
  filterTransformFactory.create(transformTestContext(filterTransformFactory.spec, options, tables));

describe('Filter', () => {
  it('keeps include_fields in the listed order, with their column metadata', () => {
    const t = create({ include_fields: ['name', 'id'] });
    const [out] = t.outputTables();
    expect(out.columns).toEqual([table.columns[1], table.columns[0]]);
    expect(out.primaryKey).toEqual({ name: 'pk', columns: ['id'] });
    expect(out.constraintKeys).toEqual([{ name: 'uk_name', type: 'UNIQUE_KEY', columns: ['name'] }]);
    expect(t.transform([row([1n, 'Joy', 20, '1.50'], RowKind.DELETE), row([2n, null, null, null])])).toEqual([
      row(['Joy', 1n], RowKind.DELETE),
      row([null, 2n]),
    ]);
  });

  it('accepts the older option name `fields`', () => {
    const t = create({ fields: ['age', 'name'] });
    expect(t.outputTables()[0].columns.map((c) => c.name)).toEqual(['age', 'name']);
    expect(t.transform([row([1n, 'a', 3, null])])[0].fields).toEqual([3, 'a']);
  });

  it('removes exclude_fields and drops keys whose columns are gone', () => {
    const t = create({ exclude_fields: ['id', 'age'] });
    const [out] = t.outputTables();
    expect(out.columns.map((c) => c.name)).toEqual(['name', 'card']);
    expect(out.primaryKey).toBeUndefined();
    expect(out.constraintKeys).toHaveLength(1);
    expect(t.transform([row([1n, 'a', 3, '9.99'])])[0].fields).toEqual(['a', '9.99']);
  });

  it('does not modify the input row', () => {
    const input = row([1n, 'a', 3, null]);
    create({ include_fields: ['age'] }).transform([input]);
    expect(input.fields).toEqual([1n, 'a', 3, null]);
  });

  it('refuses unknown fields, naming them, the option and the table', () => {
    expect(() => create({ include_fields: ['name', 'nope', 'gone'] })).toThrow(ConfigError);
    expect(() => create({ include_fields: ['name', 'nope', 'gone'] })).toThrow(/'nope', 'gone'.*'include_fields'.*db\.person/);
    expect(() => create({ exclude_fields: ['nope'] })).toThrow(/'nope'.*'exclude_fields'/);
  });

  it('needs exactly one of include_fields and exclude_fields', () => {
    expect(() => create({})).toThrow(/exactly one of 'include_fields' and 'exclude_fields'/);
    expect(() => create({ include_fields: ['id'], exclude_fields: ['age'] })).toThrow(/exactly one/);
    expect(() => create({ include_fields: [] })).toThrow(/at least one field/);
    expect(() => create({ include_fields: ['id', 'id'] })).toThrow(/listed twice/);
  });

  it('filters each table of a multi-table stream by its own rule', () => {
    const other = newCatalogTable({ database: 'db', table: 'other' }, [
      { name: 'k', type: Types.INT, nullable: false },
      { name: 'v', type: Types.STRING, nullable: true },
    ]);
    const third = newCatalogTable({ database: 'x', table: 'third' }, [{ name: 'z', type: Types.STRING, nullable: true }]);
    const t = create(
      { table_match_regex: 'db\\.p.*', include_fields: ['name'], table_transform: [{ table_path: 'db.other', exclude_fields: ['v'] }] },
      [table, other, third],
    );
    expect(t.outputTables().map((o) => o.columns.map((c) => c.name))).toEqual([['name'], ['k'], ['z']]);
    const rows: Row[] = [
      row([1n, 'a', 1, null]),
      { kind: RowKind.INSERT, tableId: 'db.other', fields: [7, 'v'] },
      { kind: RowKind.INSERT, tableId: 'x.third', fields: ['z'] },
    ];
    expect(t.transform(rows).map((r) => r.fields)).toEqual([['a'], [7], ['z']]);
  });
});
