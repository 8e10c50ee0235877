import { Types, formatType, type DataType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { UnsupportedColumnType } from './unsupported-type.js';
import {
  bigintOfText,
  bufferEncoder,
  encoderOf,
  jsonText,
  spacedTimestamp,
  timestampTzToUtc,
  type ValueDecoder,
  type ValueEncoder,
} from './value-codec.js';

/**
 * Firebird 3's type mapping (decision 0075). Result columns are described by their SQL type
 * number, subtype, scale and character set (XSQLVAR); NUMERIC/DECIMAL precision comes from the
 * system tables when the column is a table's. Values come from node-firebird with exact
 * numerics as text (numericMode 'string'); dates and times are read as text by the statement
 * (CAST ... AS VARCHAR), since the driver's JS Dates keep milliseconds only and depend on the
 * process time zone, where Firebird keeps 1/10000 s.
 */

/** Firebird's SQL type numbers (ibase.h), without the null flag bit. */
export const FB = {
  TEXT: 452,
  VARYING: 448,
  SHORT: 500,
  LONG: 496,
  FLOAT: 482,
  DOUBLE: 480,
  D_FLOAT: 530,
  TIMESTAMP: 510,
  BLOB: 520,
  ARRAY: 540,
  TYPE_TIME: 560,
  TYPE_DATE: 570,
  INT64: 580,
  TIMESTAMP_TZ_EX: 32748,
  TIME_TZ_EX: 32750,
  INT128: 32752,
  TIMESTAMP_TZ: 32754,
  TIME_TZ: 32756,
  DEC16: 32760,
  DEC34: 32762,
  BOOLEAN: 32764,
  NULL: 32766,
} as const;

/** Character set id OCTETS: CHAR/VARCHAR columns of bytes. */
const OCTETS = 1;

/** One result column as the driver describes it. */
export interface FirebirdColumnMeta {
  readonly type: number;
  readonly subType: number;
  readonly scale: number;
  readonly length: number;
  readonly charSetId?: number;
}

/** How a Firebird result column is read: its SeaTunnel type, decoder, and whether the statement reads it as text. */
export interface FirebirdColumnReading {
  readonly type: DataType;
  readonly decode: ValueDecoder;
  readonly nativeType: string;
  /** The column is temporal: the reading statement casts it to text. */
  readonly asText: boolean;
}

const asNumber: ValueDecoder = (v) => (typeof v === 'number' ? v : Number(v));
const asFloat: ValueDecoder = (v) => Math.fround(Number(v));
const asString: ValueDecoder = (v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
const asBytes: ValueDecoder = (v) => (Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8'));
const asBoolean: ValueDecoder = (v) => v === true || v === 1;

/** Drops trailing zeros of a fraction of seconds ('03:04:05.1200' -> '03:04:05.12', '.0000' -> ''). */
function trimFraction(s: string): string {
  const dot = s.lastIndexOf('.');
  if (dot < 0) return s;
  let end = s.length;
  while (end > dot + 1 && s.charCodeAt(end - 1) === 48) end--;
  return end === dot + 1 ? s.slice(0, dot) : s.slice(0, end);
}
const asTime: ValueDecoder = (v) => trimFraction(String(v));
const asTimestamp: ValueDecoder = (v) => {
  const s = trimFraction(String(v));
  return s.charCodeAt(10) === 32 ? `${s.slice(0, 10)}T${s.slice(11)}` : s;
};

/** A fixed-point value's text ('12.5000', '-.5' never: the driver writes '-0.5'). */
const asDecimal: ValueDecoder = (v) => String(v);

/** Where the precision of a fixed-point column is unknown (an expression), the most its storage holds. */
const STORAGE_PRECISION: Record<number, number> = { [FB.SHORT]: 4, [FB.LONG]: 9, [FB.INT64]: 18 };

/**
 * The reading of a result column. `precision` is NUMERIC/DECIMAL's declared precision, when the
 * column is a table's (RDB$FIELD_PRECISION). Firebird 4 types (INT128, DECFLOAT, time zones)
 * and arrays are refused: they are not tested here (Firebird 3).
 */
export function firebirdColumnReading(name: string, m: FirebirdColumnMeta, precision?: number): FirebirdColumnReading {
  const plain = (type: DataType, decode: ValueDecoder, nativeType: string): FirebirdColumnReading => ({
    type,
    decode,
    nativeType,
    asText: false,
  });
  switch (m.type) {
    case FB.SHORT:
    case FB.LONG:
    case FB.INT64: {
      // subType 1 is NUMERIC, 2 DECIMAL; a negative scale is a fixed-point value too.
      if (m.subType === 1 || m.subType === 2 || m.scale < 0) {
        const p = precision && precision > 0 ? precision : STORAGE_PRECISION[m.type];
        const s = -m.scale;
        return plain(Types.decimal(Math.max(p, s, 1), s), asDecimal, `${m.subType === 2 ? 'DECIMAL' : 'NUMERIC'}(${p}, ${s})`);
      }
      if (m.type === FB.SHORT) return plain(Types.SMALLINT, asNumber, 'SMALLINT');
      if (m.type === FB.LONG) return plain(Types.INT, asNumber, 'INTEGER');
      return plain(Types.BIGINT, bigintOfText, 'BIGINT');
    }
    case FB.FLOAT:
      return plain(Types.FLOAT, asFloat, 'FLOAT');
    case FB.DOUBLE:
    case FB.D_FLOAT:
      return plain(Types.DOUBLE, asNumber, 'DOUBLE PRECISION');
    case FB.BOOLEAN:
      return plain(Types.BOOLEAN, asBoolean, 'BOOLEAN');
    case FB.TYPE_DATE:
      return { type: Types.DATE, decode: asString, nativeType: 'DATE', asText: true };
    case FB.TYPE_TIME:
      return { type: Types.TIME, decode: asTime, nativeType: 'TIME', asText: true };
    case FB.TIMESTAMP:
      return { type: Types.TIMESTAMP, decode: asTimestamp, nativeType: 'TIMESTAMP', asText: true };
    case FB.TEXT:
    case FB.VARYING: {
      const kind = m.type === FB.TEXT ? 'CHAR' : 'VARCHAR';
      if (m.charSetId === OCTETS) return plain(Types.BYTES, asBytes, `${kind}(${m.length}) CHARACTER SET OCTETS`);
      return plain(Types.STRING, asString, kind);
    }
    case FB.BLOB:
      return m.subType === 1
        ? plain(Types.STRING, asString, 'BLOB SUB_TYPE TEXT')
        : plain(Types.BYTES, asBytes, `BLOB SUB_TYPE ${m.subType === 0 ? 'BINARY' : m.subType}`);
    case FB.NULL:
      return plain(Types.NULL, asString, 'NULL');
    default: {
      const names: Record<number, string> = {
        [FB.INT128]: 'INT128',
        [FB.DEC16]: 'DECFLOAT(16)',
        [FB.DEC34]: 'DECFLOAT(34)',
        [FB.TIME_TZ]: 'TIME WITH TIME ZONE',
        [FB.TIME_TZ_EX]: 'TIME WITH TIME ZONE',
        [FB.TIMESTAMP_TZ]: 'TIMESTAMP WITH TIME ZONE',
        [FB.TIMESTAMP_TZ_EX]: 'TIMESTAMP WITH TIME ZONE',
        [FB.ARRAY]: 'ARRAY',
      };
      throw new UnsupportedColumnType(name, names[m.type] ?? `type number ${m.type}`, 'Firebird');
    }
  }
}

/** Firebird 3 holds at most 18 digits in NUMERIC/DECIMAL. */
export const FIREBIRD_MAX_PRECISION = 18;

/**
 * The column type the sink creates for a SeaTunnel type. Strings are BLOB SUB_TYPE TEXT (a
 * row holds at most 64 KB, so wide VARCHARs do not fit several to a table), except key
 * columns, which must be indexable: VARCHAR(255) (bytes: VARCHAR(255) CHARACTER SET OCTETS).
 * tinyint becomes SMALLINT (Firebird has no TINYINT); timestamp_tz is stored as UTC wall-clock
 * time in a TIMESTAMP; arrays, maps and rows are JSON text. A decimal over 18 digits is refused.
 */
export function firebirdColumnType(t: DataType, key: boolean): string {
  switch (t.kind) {
    case 'string':
    case 'null':
      return key ? 'VARCHAR(255)' : 'BLOB SUB_TYPE TEXT';
    case 'boolean':
      return 'BOOLEAN';
    case 'tinyint':
    case 'smallint':
      return 'SMALLINT';
    case 'int':
      return 'INTEGER';
    case 'bigint':
      return 'BIGINT';
    case 'float':
      return 'FLOAT';
    case 'double':
      return 'DOUBLE PRECISION';
    case 'decimal':
      if (t.precision > FIREBIRD_MAX_PRECISION) {
        throw new ConfigError(
          ErrorCode.UNSUPPORTED_TYPE,
          `${formatType(t)} does not fit Firebird 3, whose NUMERIC and DECIMAL hold at most ${FIREBIRD_MAX_PRECISION} digits (create the table yourself, e.g. with a VARCHAR column, and use schema_save_mode = IGNORE)`,
        );
      }
      return `DECIMAL(${t.precision}, ${t.scale})`;
    case 'bytes':
      return key ? 'VARCHAR(255) CHARACTER SET OCTETS' : 'BLOB SUB_TYPE BINARY';
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME';
    case 'timestamp':
    case 'timestamp_tz':
      return 'TIMESTAMP';
    case 'array':
    case 'map':
    case 'row':
      return 'BLOB SUB_TYPE TEXT';
  }
}

/** Whether a parameter of this type is sent as text and cast by the statement (dates and times: see the file comment). */
export function firebirdParamAsText(t: DataType): boolean {
  return t.kind === 'date' || t.kind === 'time' || t.kind === 'timestamp' || t.kind === 'timestamp_tz';
}

/** A placeholder for a value of type `t`: temporal values go as text the server converts exactly. */
export function firebirdPlaceholder(t: DataType): string {
  return firebirdParamAsText(t) ? 'CAST(? AS VARCHAR(32))' : '?';
}

/** Firebird keeps 1/10000 s: longer fractions are cut to four digits (Firebird refuses more). */
function fourDigitFraction(s: string): string {
  const dot = s.lastIndexOf('.');
  return dot >= 0 && s.length - dot - 1 > 4 ? s.slice(0, dot + 5) : s;
}
const spacedTimestampText: ValueEncoder = encoderOf((v: string) => fourDigitFraction(spacedTimestamp(v)));
const utcTimestamp: ValueEncoder = encoderOf((v: string) => fourDigitFraction(timestampTzToUtc(v)));
const timeText: ValueEncoder = encoderOf((v: string) => fourDigitFraction(v));
const bigintText: ValueEncoder = encoderOf((v: bigint | number) => v.toString());

/**
 * What node-firebird sends for a SeaTunnel value of type `t` (undefined: the value as is).
 * BIGINTs go as text (the driver would send a JS bigint as INT128, which Firebird 3 lacks).
 */
export function firebirdEncoder(t: DataType): ValueEncoder | undefined {
  switch (t.kind) {
    case 'bigint':
      return bigintText;
    case 'timestamp':
      return spacedTimestampText;
    case 'timestamp_tz':
      return utcTimestamp;
    case 'time':
      return timeText;
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
