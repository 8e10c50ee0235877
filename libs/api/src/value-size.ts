import type { DataType } from './types.js';

/**
 * Approximate size of a row's fields when its table's schema is not known here: 8 bytes per
 * number, length for strings and bytes, recursion for containers.
 */
export function rowBytes(fields: readonly unknown[]): number {
  let n = 0;
  for (let i = 0; i < fields.length; i++) n += valueBytes(fields[i]);
  return n;
}

/** Approximate size of one value (see rowBytes). */
export function valueBytes(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return v.length;
    case 'number':
      return 8;
    case 'bigint':
      return 8;
    case 'boolean':
      return 1;
    case 'object':
      if (v === null) return 0;
      if (v instanceof Uint8Array) return v.byteLength;
      if (Array.isArray(v)) return rowBytes(v);
      if (v instanceof Map) {
        let n = 0;
        for (const [k, x] of v) n += valueBytes(k) + valueBytes(x);
        return n;
      }
      return 0;
    default:
      return 0;
  }
}

/**
 * Bytes of one value as SeaTunnel's SeaTunnelRow#getBytesSize counts them by its declared type:
 * 1 for boolean/tinyint, 2 smallint, 4 int/float, 8 bigint/double, 36 decimal, 24 date, 12 time,
 * 48 timestamp, the length of strings and bytes, the sum over arrays, maps and rows; 0 for null.
 * A fixed-size type gives its size for any non-null value (`typedValueBytes(t, 0)`).
 */
export function typedValueBytes(type: DataType, v: unknown): number {
  if (v === null || v === undefined) return 0;
  switch (type.kind) {
    case 'string':
      return typeof v === 'string' ? v.length : 0;
    case 'boolean':
    case 'tinyint':
      return 1;
    case 'smallint':
      return 2;
    case 'int':
    case 'float':
      return 4;
    case 'bigint':
    case 'double':
      return 8;
    case 'decimal':
      return 36;
    case 'null':
      return 0;
    case 'bytes':
      return v instanceof Uint8Array ? v.byteLength : 0;
    case 'date':
      return 24;
    case 'time':
      return 12;
    case 'timestamp':
    case 'timestamp_tz':
      return 48;
    case 'array': {
      if (!Array.isArray(v)) return 0;
      let n = 0;
      for (const x of v) n += typedValueBytes(type.element, x);
      return n;
    }
    case 'map': {
      if (!(v instanceof Map)) return 0;
      let n = 0;
      for (const [k, x] of v) n += typedValueBytes(type.key, k) + typedValueBytes(type.value, x);
      return n;
    }
    case 'row': {
      if (!Array.isArray(v)) return 0;
      let n = 0;
      for (let i = 0; i < type.fields.length && i < v.length; i++) n += typedValueBytes(type.fields[i].type, v[i]);
      return n;
    }
  }
}
