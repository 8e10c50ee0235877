import type { DataType, Row } from '@tideway/api';
import { ByteSink, type FieldWriter } from './pg-binary-sink.js';
import { writeNumeric } from './pg-binary-numeric.js';
import { writeDate, writeTime, writeTimestamp, writeTimestampTz } from './pg-binary-temporal.js';

/**
 * COPY's binary format (https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4):
 * PostgreSQL reads it with each type's receive function instead of parsing text, which costs the
 * COPY-in backend (the bottleneck of a sync into PostgreSQL) about a third less CPU per row.
 * Receive functions apply the column's typmod as input functions do: numeric(p,s) rounds,
 * varchar(n) rejects longer text, timestamp(p) rounds.
 */

/** PostgreSQL type oids (pg_type.dat) this encoder writes. */
export const PgOid = {
  BOOL: 16,
  BYTEA: 17,
  NAME: 19,
  INT8: 20,
  INT2: 21,
  INT4: 23,
  TEXT: 25,
  JSON: 114,
  FLOAT4: 700,
  FLOAT8: 701,
  BPCHAR: 1042,
  VARCHAR: 1043,
  DATE: 1082,
  TIME: 1083,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
  NUMERIC: 1700,
  UUID: 2950,
  JSONB: 3802,
} as const;

/** The binary format's signature, flags (no OIDs) and header extension length (none). */
export const COPY_BINARY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** The file trailer: a tuple field count of -1. */
export const COPY_BINARY_TRAILER = Buffer.from([0xff, 0xff]);

const writeBool: FieldWriter = (out, v) => {
  if (typeof v !== 'boolean') return false;
  out.ensure(5);
  out.int32(1);
  out.buf[out.pos++] = v ? 1 : 0;
  return true;
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT64_MAX = 0x7fffffffffffffffn;
const INT64_MIN = -0x8000000000000000n;

function intWriter(bytes: 2 | 4 | 8): FieldWriter {
  const max = bytes === 2 ? 32767 : bytes === 4 ? 2147483647 : Number.MAX_SAFE_INTEGER;
  return (out, v) => {
    let n: number;
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) return false;
      n = v;
    } else if (typeof v === 'bigint') {
      if (bytes === 8 && (v > MAX_SAFE || v < -MAX_SAFE)) {
        if (v > INT64_MAX || v < INT64_MIN) return false;
        out.ensure(12);
        out.int32(8);
        out.bigint64(v);
        return true;
      }
      n = Number(v);
    } else return false;
    if (n > max || n < -max - 1) return false;
    out.ensure(4 + bytes);
    out.int32(bytes);
    if (bytes === 2) out.int16(n);
    else if (bytes === 4) out.int32(n);
    else out.int64(n);
    return true;
  };
}

const writeFloat4: FieldWriter = (out, v) => {
  if (typeof v !== 'number') return false;
  out.float(v, 4);
  return true;
};

const writeFloat8: FieldWriter = (out, v) => {
  if (typeof v !== 'number') return false;
  out.float(v, 8);
  return true;
};

const writeText: FieldWriter = (out, v) => {
  if (typeof v !== 'string') return false;
  out.text(v);
  return true;
};

const writeJsonb: FieldWriter = (out, v) => {
  if (typeof v !== 'string') return false;
  out.text(v, 1);
  return true;
};

const writeBytea: FieldWriter = (out, v) => {
  if (!(v instanceof Uint8Array)) return false;
  out.bytes(v);
  return true;
};

const UUID_TEXT = /^\{?([0-9a-fA-F]{8})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{4})-?([0-9a-fA-F]{12})\}?$/;

const writeUuid: FieldWriter = (out, v) => {
  if (typeof v !== 'string') return false;
  const m = UUID_TEXT.exec(v);
  if (!m) return false;
  out.ensure(20);
  out.int32(16);
  out.buf.write(m[1] + m[2] + m[3] + m[4] + m[5], out.pos, 'hex');
  out.pos += 16;
  return true;
};

/**
 * How the encoder writes a column: one case of its switch, so every writer call is direct (a
 * const enum inlines to number literals; outside this file a kind is an opaque number).
 */
const enum FieldKind {
  BOOL,
  INT2,
  INT4,
  INT8,
  FLOAT4,
  FLOAT8,
  NUMERIC,
  TEXT,
  JSONB,
  UUID,
  BYTEA,
  DATE,
  TIME,
  TIMESTAMP,
  TIMESTAMPTZ,
}

/**
 * How a value of SeaTunnel type `t` is written into a column of type `oid`, or undefined when
 * that pair is left to the text format (the table is then copied as text).
 */
export function binaryFieldWriter(t: DataType, oid: number): number | undefined {
  const k = t.kind;
  const smallInt = k === 'tinyint' || k === 'smallint';
  switch (oid) {
    case PgOid.BOOL:
      return k === 'boolean' ? FieldKind.BOOL : undefined;
    case PgOid.INT2:
      return smallInt ? FieldKind.INT2 : undefined;
    case PgOid.INT4:
      return smallInt || k === 'int' ? FieldKind.INT4 : undefined;
    case PgOid.INT8:
      return smallInt || k === 'int' || k === 'bigint' ? FieldKind.INT8 : undefined;
    case PgOid.FLOAT4:
      return k === 'float' ? FieldKind.FLOAT4 : undefined;
    case PgOid.FLOAT8:
      return k === 'float' || k === 'double' ? FieldKind.FLOAT8 : undefined;
    case PgOid.NUMERIC:
      return k === 'decimal' ? FieldKind.NUMERIC : undefined;
    case PgOid.TEXT:
    case PgOid.VARCHAR:
    case PgOid.BPCHAR:
    case PgOid.NAME:
    case PgOid.JSON:
      return k === 'string' ? FieldKind.TEXT : undefined;
    case PgOid.JSONB:
      return k === 'string' ? FieldKind.JSONB : undefined;
    case PgOid.UUID:
      return k === 'string' ? FieldKind.UUID : undefined;
    case PgOid.BYTEA:
      return k === 'bytes' ? FieldKind.BYTEA : undefined;
    case PgOid.DATE:
      return k === 'date' ? FieldKind.DATE : undefined;
    case PgOid.TIME:
      return k === 'time' ? FieldKind.TIME : undefined;
    case PgOid.TIMESTAMP:
      return k === 'timestamp' ? FieldKind.TIMESTAMP : undefined;
    case PgOid.TIMESTAMPTZ:
      return k === 'timestamp_tz' ? FieldKind.TIMESTAMPTZ : undefined;
    default:
      return undefined;
  }
}

const writeInt2 = intWriter(2);
const writeInt4 = intWriter(4);
const writeInt8 = intWriter(8);

/** Writes one non-null value of a column (false: it has no exact binary form here). */
function writeField(out: ByteSink, kind: FieldKind, v: unknown): boolean {
  switch (kind) {
    case FieldKind.BOOL:
      return writeBool(out, v);
    case FieldKind.INT2:
      return writeInt2(out, v);
    case FieldKind.INT4:
      return writeInt4(out, v);
    case FieldKind.INT8:
      return writeInt8(out, v);
    case FieldKind.FLOAT4:
      return writeFloat4(out, v);
    case FieldKind.FLOAT8:
      return writeFloat8(out, v);
    case FieldKind.NUMERIC:
      return writeNumeric(out, v);
    case FieldKind.TEXT:
      return writeText(out, v);
    case FieldKind.JSONB:
      return writeJsonb(out, v);
    case FieldKind.UUID:
      return writeUuid(out, v);
    case FieldKind.BYTEA:
      return writeBytea(out, v);
    case FieldKind.DATE:
      return writeDate(out, v);
    case FieldKind.TIME:
      return writeTime(out, v);
    case FieldKind.TIMESTAMP:
      return writeTimestamp(out, v);
    case FieldKind.TIMESTAMPTZ:
      return writeTimestampTz(out, v);
  }
}

/** Encodes batches of rows as binary COPY tuples (the stream's header and trailer are CopyIn's). */
export class CopyBinaryEncoder {
  private readonly out = new ByteSink(1 << 16);
  private readonly kinds: Uint8Array;

  /** @param kinds binaryFieldWriter's answer for each column. */
  constructor(kinds: readonly number[]) {
    this.kinds = Uint8Array.from(kinds);
  }

  /** The tuples of `rows`, or undefined when a value has no binary form here. */
  encode(rows: readonly Row[]): Buffer | undefined {
    const out = this.out;
    const kinds = this.kinds;
    const n = kinds.length;
    out.pos = 0;
    for (let r = 0; r < rows.length; r++) {
      const fields = rows[r].fields;
      out.ensure(2 + 4 * n);
      out.int16(n);
      for (let i = 0; i < n; i++) {
        const v = fields[i];
        if (v === null || v === undefined) out.int32(-1);
        else if (!writeField(out, kinds[i], v)) return undefined;
      }
    }
    // The batch keeps this buffer (it may still be on its way while the next one is encoded);
    // the next batch gets a new one of the same size: no copy, and allocUnsafe does not zero it.
    const data = out.take();
    out.renew();
    return data;
  }
}
