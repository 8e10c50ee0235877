import { textOf } from '@tideway/common';
import { Types, formatType, type DataType } from '@tideway/api';
import { parse as parsePgArray } from 'postgres-array';
import {
  bigintOfText,
  decoderOf,
  encoderOf,
  isoTimestamp,
  integerOfText,
  jsonText,
  keepValue,
  type ValueDecoder,
  type ValueEncoder,
} from './value-codec.js';

/** A row of pg_type, enough to map a column. */
export interface PgTypeInfo {
  readonly oid: number;
  readonly name: string;
  /** b base, e enum, d domain, c composite, p pseudo, r range, m multirange */
  readonly typtype: string;
  readonly category: string;
  readonly elem: number;
  readonly baseType: number;
}

/** How to read one PostgreSQL column: its SeaTunnel type and the decoder of its text form. */
export interface PgColumnReading {
  readonly type: DataType;
  readonly decode: ValueDecoder;
}

const toNumber: ValueDecoder = decoderOf((s: string) => Number(s));
const toBool: ValueDecoder = decoderOf((s: string) => s === 't');
const toBytes: ValueDecoder = decoderOf((s: string) => Buffer.from(s.slice(2), 'hex'));
/** '2024-01-02 03:04:05.5+08' -> '2024-01-02T03:04:05.5+08:00' (ISO-8601 with a full offset). */
const toTimestampTz: ValueDecoder = decoderOf((s: string) => {
  const t = isoTimestamp(s) as string;
  return /[+-]\d{2}$/.test(t) ? [t, ':00'].join('') : t;
});

/** Scalar base types by pg_type.typname. */
const BASE: Record<string, PgColumnReading> = {
  bool: { type: Types.BOOLEAN, decode: toBool },
  int2: { type: Types.SMALLINT, decode: decoderOf(integerOfText) },
  int4: { type: Types.INT, decode: decoderOf(integerOfText) },
  int8: { type: Types.BIGINT, decode: bigintOfText },
  oid: { type: Types.BIGINT, decode: bigintOfText },
  float4: { type: Types.FLOAT, decode: toNumber },
  float8: { type: Types.DOUBLE, decode: toNumber },
  bytea: { type: Types.BYTES, decode: toBytes },
  date: { type: Types.DATE, decode: keepValue },
  time: { type: Types.TIME, decode: keepValue },
  timestamp: { type: Types.TIMESTAMP, decode: isoTimestamp },
  timestamptz: { type: Types.TIMESTAMP_TZ, decode: toTimestampTz },
};

/** Base types read as their exact text form (SeaTunnel maps these to STRING). */
const AS_TEXT = new Set([
  'text',
  'varchar',
  'bpchar',
  'char',
  'name',
  'citext',
  'json',
  'jsonb',
  'uuid',
  'xml',
  'inet',
  'cidr',
  'macaddr',
  'macaddr8',
  'interval',
  'bit',
  'varbit',
  'money',
  'timetz',
  'tsvector',
  'tsquery',
  'point',
  'line',
  'lseg',
  'box',
  'path',
  'polygon',
  'circle',
  'pg_lsn',
  'geometry',
  'geography',
  'txid_snapshot',
  'int2vector',
  'oidvector',
]);

/** Thrown for a column type that has no SeaTunnel mapping; the caller names the column. */
export class UnsupportedPgType extends Error {
  constructor(readonly typeName: string) {
    super(typeName);
  }
}

/**
 * Maps a column's type (with its typmod) to a SeaTunnel type and a decoder of PostgreSQL's text
 * output. numeric(p,s) keeps p and s; unconstrained numeric is decimal(38, 18) as in SeaTunnel.
 */
export function pgColumnReading(oid: number, typmod: number, types: ReadonlyMap<number, PgTypeInfo>): PgColumnReading {
  const info = types.get(oid);
  if (!info) throw new UnsupportedPgType(`oid ${oid}`);
  if (info.typtype === 'd') return pgColumnReading(info.baseType, typmod, types);
  if (info.typtype === 'e' || info.typtype === 'r' || info.typtype === 'm') return { type: Types.STRING, decode: keepValue };
  if (info.typtype === 'c' || info.typtype === 'p') throw new UnsupportedPgType(info.name);
  if (info.category === 'A' && info.elem !== 0) {
    const element = pgColumnReading(info.elem, typmod, types);
    if (element.type.kind === 'array') throw new UnsupportedPgType(info.name);
    const decodeElement = element.decode;
    return {
      type: Types.array(element.type),
      decode: decoderOf((s: string) => parsePgArray(s, (v) => (v === null ? null : decodeElement(v)))),
    };
  }
  if (info.name === 'numeric') {
    if (typmod < 4) return { type: Types.decimal(38, 18), decode: keepValue };
    const precision = ((typmod - 4) >> 16) & 0xffff;
    const scale = (typmod - 4) & 0xffff;
    return { type: Types.decimal(precision, scale), decode: keepValue };
  }
  const base = BASE[info.name];
  if (base) return base;
  if (AS_TEXT.has(info.name) || info.category === 'S') return { type: Types.STRING, decode: keepValue };
  throw new UnsupportedPgType(info.name);
}

/**
 * The type JDBC's setter gives a statement parameter of SeaTunnel type `t` (setBoolean, setShort,
 * setInt, setLong, setFloat, setDouble, setBigDecimal), or undefined where Tideway leaves the
 * parameter untyped for the server to convert to its place's type (strings, dates, times, ...).
 */
export function pgParameterType(t: DataType): string | undefined {
  switch (t.kind) {
    case 'boolean':
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
      return pgColumnType(t);
    case 'decimal':
      return 'numeric';
    default:
      return undefined;
  }
}

/** The column type a SeaTunnel type is stored in when the sink creates a PostgreSQL table. */
export function pgColumnType(t: DataType): string {
  switch (t.kind) {
    case 'string':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'tinyint':
    case 'smallint':
      return 'smallint';
    case 'int':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'float':
      return 'real';
    case 'double':
      return 'double precision';
    case 'decimal':
      return `numeric(${t.precision}, ${t.scale})`;
    case 'bytes':
      return 'bytea';
    case 'date':
      return 'date';
    case 'time':
      return 'time(6)';
    case 'timestamp':
      return 'timestamp(6)';
    case 'timestamp_tz':
      return 'timestamptz(6)';
    case 'array':
      if (t.element.kind === 'array' || t.element.kind === 'map' || t.element.kind === 'row' || t.element.kind === 'null') return 'jsonb';
      return `${pgColumnType(t.element)}[]`;
    case 'map':
    case 'row':
      return 'jsonb';
    case 'null':
      return 'text';
  }
}

function quoteArrayElement(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** PostgreSQL's array literal for a JS array of SeaTunnel values of `element`. */
function pgArrayLiteral(values: readonly unknown[], encodeElement: ValueEncoder): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    parts[i] = v === null || v === undefined ? 'NULL' : quoteArrayElement(String(encodeElement(v)));
  }
  return `{${parts.join(',')}}`;
}

const bytesHex: ValueEncoder = encoderOf((v: Uint8Array) => `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`);
const boolText: ValueEncoder = encoderOf((v: boolean) => (v ? 't' : 'f'));
const asString: ValueEncoder = (v) => textOf(v);
/** String(-0) is '0': negative zero keeps its sign, as binary transfer and JDBC's setDouble keep it. */
const floatText: ValueEncoder = encoderOf((v: number) => (Object.is(v, -0) ? '-0' : String(v)));

/**
 * The text form PostgreSQL accepts for a SeaTunnel value of type `t` (used for COPY text and as
 * untyped statement parameters, so the server converts it to the column's type exactly).
 */
export function pgTextEncoder(t: DataType): ValueEncoder {
  switch (t.kind) {
    case 'boolean':
      return boolText;
    case 'bytes':
      return bytesHex;
    case 'float':
    case 'double':
      return floatText;
    case 'array': {
      if (pgColumnType(t) === 'jsonb') return jsonText;
      const element = pgTextEncoder(t.element);
      return encoderOf((v: unknown[]) => pgArrayLiteral(v, element));
    }
    case 'map':
    case 'row':
      return jsonText;
    default:
      return asString;
  }
}

/** For error messages: the SeaTunnel spelling of a type. */
export const describeType = formatType;
