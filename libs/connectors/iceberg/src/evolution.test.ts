import type { CatalogTable, Column, ColumnChange, SchemaChangeEvent } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { evolvedMetadata } from './evolution.js';
import { currentSchema, newTableMetadata, type TableMetadata } from './metadata.js';
import { icebergSchemaOf, lastColumnId } from './schema.js';

const columns: Column[] = [
  { name: 'id', type: { kind: 'int' }, nullable: false },
  { name: 'region', type: { kind: 'string' }, nullable: false },
  { name: 'qty', type: { kind: 'int' }, nullable: true },
  { name: 'note', type: { kind: 'string' }, nullable: true },
];
const schema = icebergSchemaOf(columns, ['id', 'region'], 't');
const base = newTableMetadata(
  '/wh/t',
  schema,
  lastColumnId(schema),
  { 'spec-id': 0, fields: [{ 'source-id': 2, 'field-id': 1000, name: 'region', transform: 'identity' }] },
  {},
);
const table: CatalogTable = { tableId: 'db.t', columns } as CatalogTable;
const event = (...changes: ColumnChange[]): SchemaChangeEvent => ({ type: 'schema-change', tableId: 'db.t', changes, table });
const fields = (m: TableMetadata) =>
  currentSchema(m).fields.map(
    (f) => `${f.id} ${f.name} ${typeof f.type === 'string' ? f.type : f.type.type}${f.required ? ' required' : ''}`,
  );

describe('the schema of a table after a source change', () => {
  it('adds, drops, renames and widens columns as a new schema; added fields get new ids, others keep theirs', () => {
    const next = evolvedMetadata(
      base,
      event(
        { kind: 'add', column: { name: 'tags', type: { kind: 'array', element: { kind: 'string' } }, nullable: false }, after: 'qty' },
        { kind: 'drop', name: 'note' },
        { kind: 'rename', from: 'qty', to: 'amount' },
        { kind: 'modify', name: 'amount', column: { name: 'amount', type: { kind: 'bigint' }, nullable: true } },
      ),
      false,
      'Iceberg table db.t',
    )!;
    expect(fields(next)).toEqual(['1 id int required', '2 region string required', '3 amount long', '5 tags list']);
    const tags = currentSchema(next).fields[3].type;
    expect(tags).toMatchObject({ type: 'list', 'element-id': 6, element: 'string' });
    expect(next['last-column-id']).toBe(6);
    expect(next['current-schema-id']).toBe(1);
    expect(next.schemas).toHaveLength(2);
    expect(currentSchema(next)['identifier-field-ids']).toEqual([1, 2]);
    // a replay of the same change (a restore, another writer) commits nothing
    expect(
      evolvedMetadata(
        next,
        event(
          { kind: 'add', column: { name: 'tags', type: { kind: 'array', element: { kind: 'string' } }, nullable: true } },
          { kind: 'drop', name: 'note' },
          { kind: 'rename', from: 'qty', to: 'amount' },
          { kind: 'modify', name: 'amount', column: { name: 'amount', type: { kind: 'bigint' }, nullable: true } },
        ),
        false,
        'w',
      ),
    ).toBeUndefined();
  });

  it('refuses what Iceberg cannot take, naming the table and the change', () => {
    expect(() => evolvedMetadata(base, event({ kind: 'drop', name: 'id' }), false, 'Iceberg table db.t')).toThrow(
      /Iceberg table db\.t: the source's DROP COLUMN id cannot be applied to the Iceberg table: id is an identifier/,
    );
    expect(() =>
      evolvedMetadata(
        base,
        event({ kind: 'modify', name: 'note', column: { name: 'note', type: { kind: 'int' }, nullable: true } }),
        false,
        'w',
      ),
    ).toThrow(/only from int to long, float to double or to a wider decimal, not from string to int/);
    // smallint is an Iceberg int: no change at all
    expect(
      evolvedMetadata(
        base,
        event({ kind: 'modify', name: 'qty', column: { name: 'qty', type: { kind: 'smallint' }, nullable: true } }),
        false,
        'w',
      ),
    ).toBeUndefined();
  });
});
