import type { CatalogTable, DataType } from '@tideway/api';
import {
  compileJsonLineWriter,
  compileJsonValueWriter,
  compileTextLineWriter,
  isoTemporalText,
  javaDoubleText,
  javaFloatText,
} from '@tideway/connector-file-common/formats';

/** A whole row as one Redis value: SeaTunnel's json or text serialization of the row. */
export function compileRowWriter(table: CatalogTable, format: string, fieldDelimiter: string): (fields: readonly unknown[]) => string {
  if (format === 'json') return compileJsonLineWriter(table.columns);
  return compileTextLineWriter(
    table.columns.map((c) => c.type),
    { fieldDelimiter, dateFormat: 'yyyy-MM-dd', dateTimeFormat: 'yyyy-MM-dd HH:mm:ss', timeFormat: 'HH:mm:ss' },
  );
}

/**
 * One field's value as text (a key, a value_field, a hash field): what Java's toString gives for
 * scalars (1.0 for a double, ISO dates and times), JSON for arrays, maps and rows, UTF-8 for
 * bytes; null is the empty string.
 */
export function compileFieldText(type: DataType): (v: unknown) => string {
  const text = (): ((v: unknown) => string) => {
    switch (type.kind) {
      case 'float':
        return (v) => javaFloatText(v as number);
      case 'double':
        return (v) => javaDoubleText(v as number);
      case 'date':
      case 'time':
      case 'timestamp':
      case 'timestamp_tz':
        return (v) => isoTemporalText(v as string);
      case 'bytes':
        return (v) => Buffer.from(v as Uint8Array).toString('utf8');
      case 'array':
      case 'map':
      case 'row':
        return compileJsonValueWriter(type);
      default:
        return (v) => String(v);
    }
  };
  const f = text();
  return (v) => (v === null || v === undefined ? '' : f(v));
}

/**
 * compileFieldText for a value that is not null, as a piece of an argument: integers within
 * ±2^53 as numbers (written in decimal without making a string), everything else as its text.
 */
export function compileFieldPiece(type: DataType): (v: unknown) => string | number {
  switch (type.kind) {
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      return (v) => {
        if (typeof v === 'number') return Number.isSafeInteger(v) ? v : String(v);
        if (typeof v === 'bigint') {
          // Exact below 2^53; from there on Number() rounds, and isSafeInteger says so.
          const n = Number(v);
          return Number.isSafeInteger(n) ? n : v.toString();
        }
        return String(v);
      };
    case 'string':
      return (v) => (typeof v === 'string' ? v : String(v));
    default: {
      const text = compileFieldText(type);
      return (v) => text(v);
    }
  }
}
