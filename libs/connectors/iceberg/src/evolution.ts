import { describeColumnChange, type SchemaChangeEvent } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { currentSchema, defaultSpec, type TableMetadata } from './metadata.js';
import { type IcebergField, type IcebergSchema, type IcebergType, icebergSchemaOf, typeText } from './schema.js';

/** `t` with every field id (fields, list elements, map keys and values) moved up by `by`. */
function shiftIds(t: IcebergType, by: number): IcebergType {
  if (typeof t === 'string') return t;
  if (t.type === 'list') return { ...t, 'element-id': t['element-id'] + by, element: shiftIds(t.element, by) };
  if (t.type === 'map') {
    return { ...t, 'key-id': t['key-id'] + by, key: shiftIds(t.key, by), 'value-id': t['value-id'] + by, value: shiftIds(t.value, by) };
  }
  return { ...t, fields: t.fields.map((f) => ({ ...f, id: f.id + by, type: shiftIds(f.type, by) })) };
}

/** The highest field id inside a type (the field's own id excluded). */
function maxId(t: IcebergType): number {
  if (typeof t === 'string') return 0;
  if (t.type === 'list') return Math.max(t['element-id'], maxId(t.element));
  if (t.type === 'map') return Math.max(t['key-id'], t['value-id'], maxId(t.key), maxId(t.value));
  return Math.max(0, ...t.fields.map((f) => Math.max(f.id, maxId(f.type))));
}

/** Iceberg's allowed type promotions: int to long, float to double, a decimal's precision widened (same scale). */
function promotable(from: string, to: string): boolean {
  if (from === 'int' && to === 'long') return true;
  if (from === 'float' && to === 'double') return true;
  const a = /^decimal\((\d+), (\d+)\)$/.exec(from);
  const b = /^decimal\((\d+), (\d+)\)$/.exec(to);
  return !!a && !!b && a[2] === b[2] && Number(b[1]) >= Number(a[1]);
}

/**
 * The next metadata of a table whose source changed as `event` says: a new schema (a new schema
 * id) in which added columns get new field ids (optional fields, after the column they follow),
 * dropped columns go, renamed columns keep their ids, and modified columns are promoted (int to
 * long, float to double, a wider decimal) or made optional; identifier fields are kept. Applying
 * an event the table has already taken changes nothing (undefined): each change is skipped when
 * the table is already past it, so a replay after a restore and the writers of one job that all
 * see the change commit it once. A change Iceberg cannot take (dropping an identifier or
 * partition column, narrowing a type) fails with one sentence naming the table and the change.
 */
export function evolvedMetadata(
  m: TableMetadata,
  event: SchemaChangeEvent,
  caseSensitive: boolean,
  where: string,
): TableMetadata | undefined {
  const schema = currentSchema(m);
  const norm = (s: string): string => (caseSensitive ? s : s.toLowerCase());
  const identifier = new Set(schema['identifier-field-ids'] ?? []);
  const partitionSources = new Set(defaultSpec(m).fields.map((f) => f['source-id']));
  let fields: IcebergField[] = [...schema.fields];
  let lastId = m['last-column-id'];
  let changed = false;
  const find = (name: string): number => fields.findIndex((f) => norm(f.name) === norm(name));
  const refuse = (change: string, why: string): never => {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where}: the source's ${change} cannot be applied to the Iceberg table: ${why}.`);
  };
  /** The Iceberg type of a job column, with field ids from 1. */
  const typeOfColumn = (c: Parameters<typeof icebergSchemaOf>[0][number]): IcebergType => icebergSchemaOf([c], [], where).fields[0].type;
  for (const change of event.changes) {
    const what = describeColumnChange(change);
    switch (change.kind) {
      case 'add': {
        const type = typeOfColumn(change.column);
        const at = find(change.column.name);
        if (at >= 0) {
          if (typeText(fields[at].type) !== typeText(type))
            refuse(what, `the table has a column ${fields[at].name} of type ${typeText(fields[at].type)} already`);
          continue; // added before (a replay)
        }
        // icebergSchemaOf numbered the column 1 and what is inside it from 2
        const field: IcebergField = { id: lastId + 1, name: change.column.name, required: false, type: shiftIds(type, lastId) };
        lastId = Math.max(field.id, maxId(field.type));
        const after = change.first ? -1 : change.after !== undefined ? find(change.after) : fields.length - 1;
        fields.splice(after + 1, 0, field);
        changed = true;
        break;
      }
      case 'drop': {
        const at = find(change.name);
        if (at < 0) continue; // dropped before
        if (identifier.has(fields[at].id)) refuse(what, `${fields[at].name} is an identifier (primary-key) field`);
        if (partitionSources.has(fields[at].id)) refuse(what, `the table is partitioned by ${fields[at].name}`);
        fields = fields.filter((_, i) => i !== at);
        changed = true;
        break;
      }
      case 'rename': {
        const at = find(change.from);
        if (at < 0) {
          if (find(change.to) >= 0) continue; // renamed before
          refuse(what, `the table has no column ${change.from}`);
        }
        if (find(change.to) >= 0 && norm(change.to) !== norm(change.from)) refuse(what, `the table has a column ${change.to} already`);
        fields[at] = { ...fields[at], name: change.to };
        changed = true;
        break;
      }
      case 'modify': {
        const at = find(change.name);
        if (at < 0) refuse(what, `the table has no column ${change.name}`);
        const f = fields[at];
        const from = typeText(f.type);
        const to = typeText(typeOfColumn(change.column));
        let next = f;
        if (from !== to) {
          if (typeof f.type !== 'string' || !promotable(from, to)) {
            refuse(
              what,
              `Iceberg changes a column's type only from int to long, float to double or to a wider decimal, not from ${from} to ${to}`,
            );
          }
          next = { ...next, type: to };
        }
        if (f.required && change.column.nullable && !identifier.has(f.id)) next = { ...next, required: false };
        if (next !== f) {
          fields[at] = next;
          changed = true;
        }
        break;
      }
    }
  }
  if (!changed) return undefined;
  const schemaId = Math.max(...m.schemas.map((s) => s['schema-id'])) + 1;
  const next: IcebergSchema = {
    type: 'struct',
    'schema-id': schemaId,
    ...(schema['identifier-field-ids']?.length ? { 'identifier-field-ids': schema['identifier-field-ids'] } : {}),
    fields,
  };
  return {
    ...m,
    schemas: [...m.schemas, next],
    'current-schema-id': schemaId,
    'last-column-id': Math.max(m['last-column-id'], lastId),
    'last-updated-ms': Math.max(Date.now(), m['last-updated-ms']),
  };
}
