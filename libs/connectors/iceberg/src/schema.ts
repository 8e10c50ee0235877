import { type Column, type DataType, formatType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';

/**
 * Iceberg schemas (the table spec's JSON form) of Tideway columns, with the field ids Iceberg
 * readers map columns by, and the Parquet field ids of the data files' schema elements.
 *
 * | Tideway               | Iceberg        |
 * |-----------------------|----------------|
 * | boolean               | boolean        |
 * | tinyint, smallint, int| int            |
 * | bigint                | long           |
 * | float, double         | float, double  |
 * | decimal(p,s)          | decimal(p,s)   |
 * | string                | string         |
 * | bytes                 | binary         |
 * | date, time, timestamp | date, time, timestamp (micros, no zone) |
 * | array, map, row       | list, map, struct |
 *
 * timestamp_tz is refused: Tideway's Parquet writer has no zoned timestamp.
 */

export type IcebergType = string | IcebergList | IcebergMap | IcebergStruct;

export interface IcebergField {
  readonly id: number;
  readonly name: string;
  readonly required: boolean;
  readonly type: IcebergType;
  readonly doc?: string;
}

export interface IcebergStruct {
  readonly type: 'struct';
  readonly fields: readonly IcebergField[];
}

export interface IcebergList {
  readonly type: 'list';
  readonly 'element-id': number;
  readonly element: IcebergType;
  readonly 'element-required': boolean;
}

export interface IcebergMap {
  readonly type: 'map';
  readonly 'key-id': number;
  readonly key: IcebergType;
  readonly 'value-id': number;
  readonly value: IcebergType;
  readonly 'value-required': boolean;
}

export interface IcebergSchema extends IcebergStruct {
  readonly 'schema-id': number;
  readonly 'identifier-field-ids'?: readonly number[];
}

/** Field ids handed out in order, from `last` + 1. */
class Ids {
  constructor(public last: number) {}
  next(): number {
    return ++this.last;
  }
}

function typeOf(t: DataType, ids: Ids, where: string): IcebergType {
  switch (t.kind) {
    case 'boolean':
      return 'boolean';
    case 'tinyint':
    case 'smallint':
    case 'int':
      return 'int';
    case 'bigint':
      return 'long';
    case 'float':
      return 'float';
    case 'double':
      return 'double';
    case 'decimal':
      return `decimal(${t.precision}, ${t.scale})`;
    case 'string':
      return 'string';
    case 'bytes':
      return 'binary';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'timestamp':
      return 'timestamp';
    case 'array': {
      const id = ids.next();
      return { type: 'list', 'element-id': id, element: typeOf(t.element, ids, where), 'element-required': false };
    }
    case 'map': {
      const keyId = ids.next();
      const valueId = ids.next();
      return {
        type: 'map',
        'key-id': keyId,
        key: typeOf(t.key, ids, where),
        'value-id': valueId,
        value: typeOf(t.value, ids, where),
        'value-required': false,
      };
    }
    case 'row':
      return structOf(
        t.fields.map((f) => ({ name: f.name, type: f.type })),
        ids,
        where,
        new Set(),
      );
    default:
      throw new ConfigError(
        ErrorCode.UNSUPPORTED_TYPE,
        `${where}: a ${formatType(t)} column cannot be written to an Iceberg table by Tideway (its Parquet writer has no zoned timestamp).`,
      );
  }
}

function structOf(
  columns: readonly { name: string; type: DataType }[],
  ids: Ids,
  where: string,
  required: ReadonlySet<string>,
): IcebergStruct {
  // ids of a struct's own fields first, then those inside them (Iceberg's own assignment order)
  const own = columns.map(() => ids.next());
  return {
    type: 'struct',
    fields: columns.map((c, i) => ({
      id: own[i],
      name: c.name,
      required: required.has(c.name),
      type: typeOf(c.type, ids, `${where} column ${c.name}`),
    })),
  };
}

/**
 * The Iceberg schema of a new table of `columns`; `identifier` names the primary-key columns
 * (required fields, the schema's identifier-field-ids).
 */
export function icebergSchemaOf(columns: readonly Column[], identifier: readonly string[], where: string, schemaId = 0): IcebergSchema {
  const ids = new Ids(0);
  const struct = structOf(columns, ids, where, new Set(identifier));
  const byName = new Map(struct.fields.map((f) => [f.name, f.id]));
  const identifierIds = identifier.map((name) => byName.get(name)!);
  return {
    type: 'struct',
    'schema-id': schemaId,
    ...(identifierIds.length ? { 'identifier-field-ids': identifierIds } : {}),
    fields: struct.fields,
  };
}

/** The largest field id of a schema. */
export function lastColumnId(t: IcebergType): number {
  if (typeof t === 'string') return 0;
  switch (t.type) {
    case 'list':
      return Math.max(t['element-id'], lastColumnId(t.element));
    case 'map':
      return Math.max(t['key-id'], t['value-id'], lastColumnId(t.key), lastColumnId(t.value));
    case 'struct':
      return Math.max(0, ...t.fields.map((f) => Math.max(f.id, lastColumnId(f.type))));
  }
}

/**
 * The field id of each element of the Parquet schema Tideway writes for these fields
 * (parquetSchemaOf's order: the root, then each column depth first; a list's and a map's
 * repeated middle group have none).
 */
export function parquetFieldIds(fields: readonly IcebergField[]): (number | undefined)[] {
  const out: (number | undefined)[] = [undefined];
  const walk = (id: number, t: IcebergType): void => {
    out.push(id);
    if (typeof t === 'string') return;
    if (t.type === 'list') {
      out.push(undefined);
      walk(t['element-id'], t.element);
    } else if (t.type === 'map') {
      out.push(undefined);
      walk(t['key-id'], t.key);
      walk(t['value-id'], t.value);
    } else for (const f of t.fields) walk(f.id, f.type);
  };
  for (const f of fields) walk(f.id, f.type);
  return out;
}

/** The Tideway type an Iceberg type is read as (tinyint and smallint come back as int; uuid as string, fixed[n] as bytes, timestamptz as timestamp_tz in UTC). */
export function dataTypeOf(t: IcebergType, where: string): DataType {
  if (typeof t !== 'string') {
    switch (t.type) {
      case 'list':
        return { kind: 'array', element: dataTypeOf(t.element, where) };
      case 'map':
        return { kind: 'map', key: dataTypeOf(t.key, where), value: dataTypeOf(t.value, where) };
      case 'struct':
        return { kind: 'row', fields: t.fields.map((f) => ({ name: f.name, type: dataTypeOf(f.type, where) })) };
    }
  }
  const decimal = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  if (decimal) return { kind: 'decimal', precision: Number(decimal[1]), scale: Number(decimal[2]) };
  if (/^fixed\[\d+\]$/.test(t)) return { kind: 'bytes' };
  const simple: Record<string, DataType['kind']> = {
    boolean: 'boolean',
    int: 'int',
    long: 'bigint',
    float: 'float',
    double: 'double',
    string: 'string',
    uuid: 'string',
    binary: 'bytes',
    date: 'date',
    time: 'time',
    timestamp: 'timestamp',
    timestamptz: 'timestamp_tz',
  };
  const kind = simple[t];
  if (!kind) throw new ConfigError(ErrorCode.UNSUPPORTED_TYPE, `${where}: Iceberg type ${t} is not read or written by Tideway.`);
  return { kind } as DataType;
}

/** The Iceberg type of `t` without its field ids, to compare a table's column with a job's. */
export function typeText(t: IcebergType): string {
  if (typeof t === 'string') return t;
  switch (t.type) {
    case 'list':
      return `list<${typeText(t.element)}>`;
    case 'map':
      return `map<${typeText(t.key)}, ${typeText(t.value)}>`;
    case 'struct':
      return `struct<${t.fields.map((f) => `${f.name}: ${typeText(f.type)}`).join(', ')}>`;
  }
}
