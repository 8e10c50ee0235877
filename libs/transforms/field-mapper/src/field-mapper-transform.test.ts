import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { fieldMapperTransformFactory } from './index.js';

const table: CatalogTable = newCatalogTable(
  { database: 'db', table: 'person' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'name', type: Types.STRING, nullable: true, defaultValue: 'x', comment: 'the name' },
    { name: 'age', type: Types.INT, nullable: true },
    { name: 'card', type: Types.array(Types.STRING), nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] }, options: { connector: 'fake' }, comment: 'people' },
);
const row = (fields: unknown[], kind: Row['kind'] = RowKind.INSERT): Row => ({ kind, tableId: table.tableId, fields });
const create = (options: Record<string, unknown>, tables: CatalogTable[] = [table]) =>
  fieldMapperTransformFactory.create(transformTestContext(fieldMapperTransformFactory.spec, options, tables));

describe('FieldMapper', () => {
  it('outputs the mapped fields in mapping order, renamed, dropping the rest', () => {
    const t = create({ field_mapper: { id: 'id', card: 'card', name: 'new_name' } });
    const [out] = t.outputTables();
    expect(out.columns).toEqual([table.columns[0], table.columns[3], { ...table.columns[1], name: 'new_name' }]);
    expect(out.tableId).toBe(table.tableId);
    expect(out.options).toEqual({ connector: 'fake' });
    expect(out.comment).toBe('people');
    const card = ['a', null];
    expect(t.transform([row([1, 'Joy', 20, card], RowKind.UPDATE_AFTER), row([2, null, null, null])])).toEqual([
      row([1, card, 'Joy'], RowKind.UPDATE_AFTER),
      row([2, null, null]),
    ]);
  });

  it('keeps the primary key under its new column name, drops it when its column is dropped', () => {
    expect(create({ field_mapper: { id: 'pid', age: 'age_as' } }).outputTables()[0].primaryKey).toEqual({ name: 'pk', columns: ['pid'] });
    expect(create({ field_mapper: { age: 'age_as' } }).outputTables()[0].primaryKey).toBeUndefined();
  });

  it('covers the conformance mapping (id, age_as, int1_as, name) with types intact', () => {
    const wide = newCatalogTable({ table: 'fake' }, [
      { name: 'id', type: Types.INT, nullable: true },
      { name: 'name', type: Types.STRING, nullable: true },
      { name: 'age', type: Types.INT, nullable: true },
      { name: 'string1', type: Types.STRING, nullable: true },
      { name: 'int1', type: Types.INT, nullable: true },
      { name: 'c_bigint', type: Types.BIGINT, nullable: true },
      { name: 'c_row', type: Types.row([{ name: 'c_int', type: Types.INT }]), nullable: true },
    ]);
    const t = create({ field_mapper: { id: 'id', age: 'age_as', int1: 'int1_as', name: 'name', c_row: 'c_row' } }, [wide]);
    expect(t.outputTables()[0].columns.map((c) => `${c.name}:${c.type.kind}`)).toEqual([
      'id:int',
      'age_as:int',
      'int1_as:int',
      'name:string',
      'c_row:row',
    ]);
    const out = t.transform([{ kind: RowKind.INSERT, tableId: 'fake', fields: [1, 'n', 2, 's', 3, 4n, [5]] }]);
    expect(out[0].fields).toEqual([1, 2, 3, 'n', [5]]);
  });

  it('refuses unknown input fields, duplicate outputs and a missing or empty mapping', () => {
    expect(() => create({ field_mapper: { idd: 'id', nope: 'x' } })).toThrow(ConfigError);
    expect(() => create({ field_mapper: { idd: 'id', nope: 'x' } })).toThrow(/'idd', 'nope'.*'field_mapper'.*db\.person/);
    expect(() => create({ field_mapper: { id: 'x', name: 'x' } })).toThrow(/'x' appears twice/);
    expect(() => create({})).toThrow(/needs option 'field_mapper'/);
    expect(() => create({ field_mapper: {} })).toThrow(/at least one field/);
  });
});
