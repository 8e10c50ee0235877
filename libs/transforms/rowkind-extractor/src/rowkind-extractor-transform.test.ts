import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { rowKindExtractorTransformFactory } from './index.js';

const table: CatalogTable = newCatalogTable(
  { table: 'fake' },
  [
    { name: 'pk_id', type: Types.BIGINT, nullable: false },
    { name: 'name', type: Types.STRING, nullable: true },
    { name: 'score', type: Types.INT, nullable: true },
  ],
  { primaryKey: { name: 'pk_id', columns: ['pk_id'] } },
);
const kinds = [RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE];
const rows: Row[] = kinds.map((kind, i) => ({ kind, tableId: 'fake', fields: [BigInt(i), i === 1 ? null : 'A', 100] }));
const create = (options: Record<string, unknown>) =>
  rowKindExtractorTransformFactory.create(transformTestContext(rowKindExtractorTransformFactory.spec, options, [table]));

describe('RowKindExtractor', () => {
  it('adds row_kind with SHORT kinds by default and emits INSERTs', () => {
    const t = create({});
    const [out] = t.outputTables();
    expect(out.columns.at(-1)).toEqual({
      name: 'row_kind',
      type: Types.STRING,
      nullable: false,
      defaultValue: '+I',
      comment: 'Output column of RowKind',
    });
    expect(out.primaryKey).toEqual(table.primaryKey);
    const result = t.transform(rows);
    expect(result.map((r) => r.kind)).toEqual(['+I', '+I', '+I', '+I']);
    expect(result.map((r) => r.fields.at(-1))).toEqual(['+I', '-U', '+U', '-D']);
    expect(result[1].fields).toEqual([1n, null, 100, '-U']);
    expect(rows[3].kind).toBe('-D');
  });

  it('writes FULL names into custom_field_name (conformance case: 10 rows, custom_name never null)', () => {
    const t = create({ custom_field_name: 'custom_name', transform_type: 'FULL' });
    expect(t.outputTables()[0].columns.map((c) => c.name)).toEqual(['pk_id', 'name', 'score', 'custom_name']);
    expect(t.transform(rows).map((r) => r.fields[3])).toEqual(['INSERT', 'UPDATE_BEFORE', 'UPDATE_AFTER', 'DELETE']);
  });

  it('refuses a field name that exists and an unknown transform_type', () => {
    expect(() => create({ custom_field_name: 'name' })).toThrow(ConfigError);
    expect(() => create({ custom_field_name: 'name' })).toThrow(/'name' \(option 'custom_field_name'\) already exists in table 'fake'/);
    expect(() => create({ transform_type: 'LONG' })).toThrow(/SHORT or FULL/);
  });
});
