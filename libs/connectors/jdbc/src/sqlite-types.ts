import { Types, type DataType } from '@tideway/api';
import {
  bufferEncoder,
  encoderOf,
  isoTimestamp,
  jsonText,
  spacedTimestamp,
  timestampTzToUtc,
  type ValueDecoder,
  type ValueEncoder,
} from './value-codec.js';

/**
 * SQLite's type mapping. SQLite stores INTEGER, REAL, TEXT or BLOB per value; a column's
 * declared type only gives it an affinity (https://www.sqlite.org/datatype3.html). The mapping
 * reads the declared type as SeaTunnel's SQLite dialect does (TINYINT, SMALLINT, INT, BIGINT,
 * REAL, DECIMAL(p,s), DATE, DATETIME, BLOB, ...), falls back to the affinity rules for other
 * names, and decodes whatever storage class a value has into the column's SeaTunnel type.
 */

/** How a result column of a declared SQLite type is read. */
export interface SqliteColumnReading {
  readonly type: DataType;
  readonly decode: ValueDecoder;
}

/** A SQLite integer (bigint: statements read integers as bigint) or any other stored value as a JS number. */
const asNumber: ValueDecoder = (v) => (typeof v === 'number' ? v : Number(v));
const asBigint: ValueDecoder = (v) => (typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))));
const asBoolean: ValueDecoder = (v) => (typeof v === 'string' ? v === '1' || v.toLowerCase() === 'true' : Number(v) !== 0);
const asText: ValueDecoder = (v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
const asBytes: ValueDecoder = (v) => (Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8'));

/** A decimal from its stored form: text as is; a REAL with the column's scale; an integer exactly. */
function decimalDecoder(scale: number): ValueDecoder {
  return (v) => {
    if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) >= 1e21 ? BigInt(v).toString() : v.toFixed(Math.min(scale, 100));
    return asText(v);
  };
}

/** SeaTunnel's DATETIME/TIMESTAMP text, 'YYYY-MM-DDTHH:MM:SS[.f]', from SQLite's 'YYYY-MM-DD HH:MM:SS[.f]'. */
const asTimestamp: ValueDecoder = (v) => isoTimestamp(asText(v));

const DECIMAL_ARGS = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/;

/**
 * The SeaTunnel type of a column declared `declared` (null for an expression: then the type of
 * its first value, `sample`, decides: integer BIGINT, real DOUBLE, blob BYTES, else STRING).
 */
export function sqliteColumnReading(declared: string | null, sample?: unknown): SqliteColumnReading {
  if (declared === null || declared.trim() === '') {
    if (typeof sample === 'bigint') return { type: Types.BIGINT, decode: asBigint };
    if (typeof sample === 'number') return { type: Types.DOUBLE, decode: asNumber };
    if (Buffer.isBuffer(sample)) return { type: Types.BYTES, decode: asBytes };
    return { type: Types.STRING, decode: asText };
  }
  const t = declared.trim().toUpperCase();
  const base = t.replace(/\s*\(.*$/, '').replace(/\s+/g, ' ');
  switch (base) {
    case 'BOOLEAN':
    case 'BOOL':
    case 'BIT':
      return { type: Types.BOOLEAN, decode: asBoolean };
    case 'TINYINT':
      return { type: Types.TINYINT, decode: asNumber };
    case 'SMALLINT':
    case 'INT2':
      return { type: Types.SMALLINT, decode: asNumber };
    case 'MEDIUMINT':
    case 'INT':
    case 'INT4':
      return { type: Types.INT, decode: asNumber };
    case 'INTEGER':
    case 'BIGINT':
    case 'INT8':
    case 'UNSIGNED BIG INT':
      // SQLite's INTEGER holds 64 bits (a rowid alias is one).
      return { type: Types.BIGINT, decode: asBigint };
    case 'FLOAT':
      return { type: Types.FLOAT, decode: asNumber };
    case 'REAL':
    case 'DOUBLE':
    case 'DOUBLE PRECISION':
      return { type: Types.DOUBLE, decode: asNumber };
    case 'DECIMAL':
    case 'NUMERIC':
    case 'DECIMAL_TEXT': {
      const m = DECIMAL_ARGS.exec(t);
      const precision = m ? Math.min(Number(m[1]), 38) : 38;
      const scale = m ? Math.min(Number(m[2] ?? 0), precision) : 18;
      return { type: Types.decimal(Math.max(precision, 1), scale), decode: decimalDecoder(scale) };
    }
    case 'DATE':
      return { type: Types.DATE, decode: asText };
    case 'TIME':
      return { type: Types.TIME, decode: asText };
    case 'DATETIME':
    case 'TIMESTAMP':
      return { type: Types.TIMESTAMP, decode: asTimestamp };
    case 'BLOB':
    case 'BINARY':
    case 'VARBINARY':
      return { type: Types.BYTES, decode: asBytes };
    default:
      break;
  }
  // SQLite's affinity rules, in its order (section 3.1 of datatype3.html).
  if (t.includes('INT')) return { type: Types.BIGINT, decode: asBigint };
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT') || t.includes('JSON')) return { type: Types.STRING, decode: asText };
  if (t.includes('BLOB')) return { type: Types.BYTES, decode: asBytes };
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return { type: Types.DOUBLE, decode: asNumber };
  return { type: Types.decimal(38, 18), decode: decimalDecoder(18) };
}

/**
 * The declared type the sink creates for a SeaTunnel type. Decimals are declared
 * DECIMAL_TEXT(p,s): TEXT affinity keeps every digit (a DECIMAL column's NUMERIC affinity would
 * turn text into a REAL of 15 significant digits), and the name still gives precision and
 * scale back on reading. Dates and times are ISO-8601 text, as SQLite's date functions read
 * them; timestamp_tz is stored as UTC wall-clock time (SQLite has no zone).
 */
export function sqliteColumnType(t: DataType): string {
  switch (t.kind) {
    case 'string':
    case 'null':
      return 'TEXT';
    case 'boolean':
      return 'BOOLEAN';
    case 'tinyint':
      return 'TINYINT';
    case 'smallint':
      return 'SMALLINT';
    case 'int':
      return 'INT';
    case 'bigint':
      return 'BIGINT';
    case 'float':
      return 'FLOAT';
    case 'double':
      return 'DOUBLE';
    case 'decimal':
      return `DECIMAL_TEXT(${t.precision}, ${t.scale})`;
    case 'bytes':
      return 'BLOB';
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'timestamp':
    case 'timestamp_tz':
      return 'DATETIME';
    case 'array':
    case 'map':
    case 'row':
      // TEXT, not JSON: a JSON column's NUMERIC affinity would turn the document `1` into an integer.
      return 'TEXT';
  }
}

const boolNumber: ValueEncoder = encoderOf((v: boolean) => (v ? 1 : 0));
const spacedTimestampText: ValueEncoder = encoderOf(spacedTimestamp);
const utcTimestamp: ValueEncoder = encoderOf((v: string) => timestampTzToUtc(v));

/** What better-sqlite3 binds for a SeaTunnel value of type `t` (undefined: the value as is). */
export function sqliteEncoder(t: DataType): ValueEncoder | undefined {
  switch (t.kind) {
    case 'boolean':
      return boolNumber;
    case 'timestamp':
      return spacedTimestampText;
    case 'timestamp_tz':
      return utcTimestamp;
    case 'bytes':
      return bufferEncoder;
    case 'array':
    case 'map':
    case 'row':
      return jsonText;
    default:
      return undefined;
  }
}
