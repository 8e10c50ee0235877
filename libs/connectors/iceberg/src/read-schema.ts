import { type DataType, formatType } from '@tideway/api';
import { timestampMicros } from '@tideway/connector-file-common';
import type { SchemaTree } from 'hyparquet';
import { dataTypeOf, type IcebergField, type IcebergType } from './schema.js';
import { type Internal, internalOf } from './values.js';

/**
 * How the Iceberg source reads columns: the engine type of each Iceberg type, the conversions a
 * `schema` option may ask for, and the compiled conversion of a Parquet file's value (read as the
 * file's own type) into the table's current type, nested fields matched by field id: renamed
 * columns read, columns a file lacks read as null, int/float/decimal columns widened since the
 * file was written read widened.
 *
 * | Iceberg           | Tideway                        |
 * |-------------------|--------------------------------|
 * | boolean           | boolean                        |
 * | int, long         | int, bigint                    |
 * | float, double     | float, double                  |
 * | decimal(p,s)      | decimal(p,s)                   |
 * | date, time        | date, time                     |
 * | timestamp         | timestamp                      |
 * | timestamptz       | timestamp_tz (UTC, +00:00)     |
 * | string, uuid      | string                         |
 * | binary, fixed[n]  | bytes                          |
 * | list, map, struct | array, map, row                |
 */

/** The engine type of an Iceberg type (the table's schema.ts mapping). */
export const engineTypeOf = dataTypeOf;

/**
 * Whether a column of Iceberg type `from` may be read as `to` (the `schema` option): its own
 * engine type, or a widening (int to bigint, float to double, a decimal of more precision and the
 * same scale), a timestamptz as its UTC timestamp, any primitive as its text.
 */
export function readableAs(from: IcebergType, to: DataType, where: string): boolean {
  const own = engineTypeOf(from, where);
  if (formatType(own) === formatType(to)) return true;
  if (typeof from !== 'string') return false;
  if (to.kind === 'string') return true;
  if (own.kind === 'int' && to.kind === 'bigint') return true;
  if (own.kind === 'float' && to.kind === 'double') return true;
  if (own.kind === 'timestamp_tz' && to.kind === 'timestamp') return true;
  if (own.kind === 'decimal' && to.kind === 'decimal') return to.scale === own.scale && to.precision >= own.precision;
  return false;
}

const nil = (v: unknown): boolean => v === null || v === undefined;

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** A uuid's text of its 16 bytes. */
const uuidText = (v: unknown): string =>
  typeof v === 'string' ? v : hex(v as Uint8Array).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/** The converter of a top-level value already in the engine type of `from` into `to` (readableAs). */
export function castTo(from: IcebergType, to: DataType, where: string): (v: unknown) => unknown {
  const own = engineTypeOf(from, where);
  if (formatType(own) === formatType(to)) return (v) => v;
  if (own.kind === 'int' && to.kind === 'bigint') return (v) => (nil(v) ? null : BigInt(v as number));
  if (own.kind === 'timestamp_tz' && to.kind === 'timestamp') return (v) => (nil(v) ? null : (v as string).replace(/\+00:00$/, ''));
  if (to.kind === 'string') {
    return (v) => {
      if (nil(v)) return null;
      if (v instanceof Uint8Array) return hex(v);
      return String(v);
    };
  }
  return (v) => (nil(v) ? null : v); // float to double, decimal widening: the same JS value
}

/** A file's node of a field: its schema tree node (children by position). */
type FileNode = SchemaTree;

/** The element node of a file's list node (3-level lists; a 2-level list's repeated leaf). */
function listElement(node: FileNode): FileNode | undefined {
  const rep = node.children[0];
  if (!rep) return undefined;
  return rep.children.length === 1 ? rep.children[0] : rep;
}

/**
 * The converter of a value the Parquet reader gave for a file's node (read as the file's own
 * type: nested rows positional in the file's order) into the engine value of Iceberg type `t`.
 */
export function compileFileValue(t: IcebergType, node: FileNode, where: string): (v: unknown) => unknown {
  if (typeof t !== 'string') {
    switch (t.type) {
      case 'list': {
        const el = listElement(node);
        const conv = el ? compileFileValue(t.element, el, where) : (x: unknown) => x;
        return (v) => (nil(v) ? null : (v as unknown[]).map(conv));
      }
      case 'map': {
        const kv = node.children[0];
        const key = compileFileValue(t.key, kv.children[0], where);
        const value = compileFileValue(t.value, kv.children[1], where);
        return (v) => (nil(v) ? null : new Map([...(v as Map<unknown, unknown>)].map(([k, x]) => [key(k), value(x)])));
      }
      case 'struct': {
        const at = t.fields.map((f) => {
          const i = node.children.findIndex((c) => c.element.field_id === f.id);
          return { i, conv: i < 0 ? () => null : compileFileValue(f.type, node.children[i], where) };
        });
        return (v) => (nil(v) ? null : at.map(({ i, conv }) => (i < 0 ? null : conv((v as unknown[])[i]))));
      }
    }
  }
  if (t === 'long') return (v) => (nil(v) ? null : BigInt(v as number | bigint));
  if (t === 'double' || t === 'float') return (v) => (nil(v) ? null : Number(v));
  if (t === 'timestamptz') return (v) => (nil(v) ? null : `${v as string}+00:00`);
  if (t === 'uuid') return (v) => (nil(v) ? null : uuidText(v));
  if (t === 'binary' || t.startsWith('fixed'))
    return (v) => (nil(v) ? null : typeof v === 'string' ? Buffer.from(v) : Buffer.from(v as Uint8Array));
  return (v) => (v === undefined ? null : v);
}

/** The Iceberg internal value of an engine value of Iceberg primitive type `t` (filters and bounds). */
export function internalOfEngine(t: string, v: unknown): Internal | null {
  if (t === 'timestamptz') return v === null || v === undefined ? null : timestampMicros((v as string).replace(/(Z|[+-]\d{2}:\d{2})$/, ''));
  return internalOf(t, v);
}

/** The file's top-level node of each field, by field id (undefined: the file predates the column). */
export function fileNodesOf(root: FileNode, fields: readonly IcebergField[]): (FileNode | undefined)[] {
  return fields.map((f) => root.children.find((c) => c.element.field_id === f.id));
}
