import { textOf } from '@tideway/common';
import { Types, type DataType } from '@tideway/api';
import {
  bigintOfText,
  decoderOf,
  encoderOf,
  isoTimestamp,
  jsonText,
  keepValue,
  timestampTzToUtc,
  type ValueDecoder,
  type ValueEncoder,
} from './value-codec.js';

/** MySQL protocol column type codes (include/mysql_com.h, enum_field_types). */
export const MySqlType = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  VARCHAR: 15,
  BIT: 16,
  JSON: 245,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;

const UNSIGNED_FLAG = 32;
const ENUM_FLAG = 256;
const SET_FLAG = 2048;
const BINARY_CHARSET = 63;

/** The metadata mysql2 gives for a result column. */
export interface MySqlFieldMeta {
  readonly name: string;
  readonly columnType: number;
  readonly flags: number;
  readonly decimals: number;
  readonly columnLength: number;
  readonly characterSet: number;
}

export interface MySqlColumnReading {
  readonly type: DataType;
  readonly decode: ValueDecoder;
  readonly nativeType: string;
}

const nonZero: ValueDecoder = decoderOf((n: number) => n !== 0);
const firstBitSet: ValueDecoder = decoderOf((b: Buffer) => b.length > 0 && b[b.length - 1] !== 0);

/**
 * Maps a result column to SeaTunnel after SeaTunnel's MySQL table: TINYINT(1) and BIT(1) are
 * BOOLEAN, unsigned types widen, BIGINT UNSIGNED is DECIMAL(20, 0), DECIMAL keeps its precision
 * (over 38 digits: DECIMAL(38, 18)), text types and JSON/ENUM/SET are STRING, binary types and
 * BIT(n) and GEOMETRY are BYTES. The driver is set up to return exact text for numbers and dates.
 */
export function mysqlColumnReading(f: MySqlFieldMeta, tinyInt1isBit: boolean): MySqlColumnReading | undefined {
  const unsigned = (f.flags & UNSIGNED_FLAG) !== 0;
  const binary = f.characterSet === BINARY_CHARSET;
  switch (f.columnType) {
    case MySqlType.TINY:
      if (f.columnLength === 1 && tinyInt1isBit && !unsigned) return { type: Types.BOOLEAN, decode: nonZero, nativeType: 'TINYINT(1)' };
      return unsigned
        ? { type: Types.SMALLINT, decode: keepValue, nativeType: 'TINYINT UNSIGNED' }
        : { type: Types.TINYINT, decode: keepValue, nativeType: 'TINYINT' };
    case MySqlType.SHORT:
      return unsigned
        ? { type: Types.INT, decode: keepValue, nativeType: 'SMALLINT UNSIGNED' }
        : { type: Types.SMALLINT, decode: keepValue, nativeType: 'SMALLINT' };
    case MySqlType.INT24:
      return { type: Types.INT, decode: keepValue, nativeType: 'MEDIUMINT' };
    case MySqlType.LONG:
      return unsigned
        ? { type: Types.BIGINT, decode: bigintOfText, nativeType: 'INT UNSIGNED' }
        : { type: Types.INT, decode: keepValue, nativeType: 'INT' };
    case MySqlType.YEAR:
      return { type: Types.INT, decode: keepValue, nativeType: 'YEAR' };
    case MySqlType.LONGLONG:
      return unsigned
        ? { type: Types.decimal(20, 0), decode: String, nativeType: 'BIGINT UNSIGNED' }
        : { type: Types.BIGINT, decode: bigintOfText, nativeType: 'BIGINT' };
    case MySqlType.FLOAT:
      return { type: Types.FLOAT, decode: keepValue, nativeType: 'FLOAT' };
    case MySqlType.DOUBLE:
      return { type: Types.DOUBLE, decode: keepValue, nativeType: 'DOUBLE' };
    case MySqlType.DECIMAL:
    case MySqlType.NEWDECIMAL: {
      const scale = f.decimals;
      const precision = f.columnLength - (scale > 0 ? 1 : 0) - (unsigned ? 0 : 1);
      const type = precision > 38 ? Types.decimal(38, 18) : Types.decimal(Math.max(precision, 1), scale);
      return { type, decode: keepValue, nativeType: `DECIMAL(${precision},${scale})` };
    }
    case MySqlType.DATE:
    case MySqlType.NEWDATE:
      return { type: Types.DATE, decode: keepValue, nativeType: 'DATE' };
    case MySqlType.TIME:
      return { type: Types.TIME, decode: keepValue, nativeType: 'TIME' };
    case MySqlType.DATETIME:
      return { type: Types.TIMESTAMP, decode: isoTimestamp, nativeType: 'DATETIME' };
    case MySqlType.TIMESTAMP:
      return { type: Types.TIMESTAMP, decode: isoTimestamp, nativeType: 'TIMESTAMP' };
    case MySqlType.BIT:
      return f.columnLength === 1
        ? { type: Types.BOOLEAN, decode: firstBitSet, nativeType: 'BIT(1)' }
        : { type: Types.BYTES, decode: keepValue, nativeType: `BIT(${f.columnLength})` };
    case MySqlType.JSON:
      return { type: Types.STRING, decode: keepValue, nativeType: 'JSON' };
    case MySqlType.ENUM:
    case MySqlType.SET:
      return { type: Types.STRING, decode: keepValue, nativeType: f.columnType === MySqlType.ENUM ? 'ENUM' : 'SET' };
    case MySqlType.VARCHAR:
    case MySqlType.VAR_STRING:
    case MySqlType.STRING:
      if ((f.flags & (ENUM_FLAG | SET_FLAG)) !== 0) return { type: Types.STRING, decode: keepValue, nativeType: 'ENUM' };
      return binary
        ? { type: Types.BYTES, decode: keepValue, nativeType: 'VARBINARY' }
        : { type: Types.STRING, decode: keepValue, nativeType: 'VARCHAR' };
    case MySqlType.TINY_BLOB:
    case MySqlType.MEDIUM_BLOB:
    case MySqlType.LONG_BLOB:
    case MySqlType.BLOB:
      return binary
        ? { type: Types.BYTES, decode: keepValue, nativeType: 'BLOB' }
        : { type: Types.STRING, decode: keepValue, nativeType: 'TEXT' };
    case MySqlType.GEOMETRY:
      return { type: Types.BYTES, decode: keepValue, nativeType: 'GEOMETRY' };
    case MySqlType.NULL:
      return { type: Types.NULL, decode: keepValue, nativeType: 'NULL' };
    default:
      return undefined;
  }
}

/** The column type a SeaTunnel type is stored in when the sink creates a MySQL/MariaDB table. */
export function mysqlColumnType(t: DataType, key: boolean): string {
  switch (t.kind) {
    case 'string':
      // A key column needs a bounded length for its index.
      return key ? 'VARCHAR(255)' : 'LONGTEXT';
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
      // MySQL's DECIMAL holds at most 65 digits, scale at most 30.
      return `DECIMAL(${Math.min(t.precision, 65)}, ${Math.min(t.scale, 30)})`;
    case 'bytes':
      return key ? 'VARBINARY(255)' : 'LONGBLOB';
    case 'date':
      return 'DATE';
    case 'time':
      return 'TIME(6)';
    case 'timestamp':
      return 'DATETIME(6)';
    case 'timestamp_tz':
      // MySQL's TIMESTAMP stops in 2038; DATETIME holds the instant as UTC wall-clock time.
      return 'DATETIME(6)';
    case 'array':
    case 'map':
    case 'row':
      return 'JSON';
    case 'null':
      return 'LONGTEXT';
  }
}

const boolNumber: ValueEncoder = encoderOf((v: boolean) => (v ? 1 : 0));
const asString: ValueEncoder = (v) => textOf(v);
const asUtc: ValueEncoder = encoderOf((v: string) => timestampTzToUtc(v));

/** What mysql2 sends for a SeaTunnel value of type `t` (escaped client-side as a literal). */
export function mysqlEncoder(t: DataType): ValueEncoder | undefined {
  switch (t.kind) {
    case 'boolean':
      return boolNumber;
    case 'bigint':
      return asString;
    case 'timestamp_tz':
      return asUtc;
    case 'array':
    case 'map':
    case 'row':
      return jsonText;
    default:
      return undefined;
  }
}
