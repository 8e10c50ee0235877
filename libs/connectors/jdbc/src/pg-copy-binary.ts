import type { DataType, Row } from '@tideway/api';

/**
 * COPY's binary format (https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4):
 * PostgreSQL reads it with each type's receive function instead of parsing text, which costs the
 * COPY-in backend (the bottleneck of a sync into PostgreSQL) about a third less CPU per row.
 * Receive functions apply the column's typmod as input functions do: numeric(p,s) rounds,
 * varchar(n) rejects longer text, timestamp(p) rounds.
 */

/** PostgreSQL type oids (pg_type.dat) this encoder writes. */
export const PgOid = {
  BOOL: 16, BYTEA: 17, NAME: 19, INT8: 20, INT2: 21, INT4: 23, TEXT: 25, JSON: 114, FLOAT4: 700, FLOAT8: 701,
  BPCHAR: 1042, VARCHAR: 1043, DATE: 1082, TIME: 1083, TIMESTAMP: 1114, TIMESTAMPTZ: 1184, NUMERIC: 1700, UUID: 2950,
  JSONB: 3802,
} as const;

/** The binary format's signature, flags (no OIDs) and header extension length (none). */
export const COPY_BINARY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** The file trailer: a tuple field count of -1. */
export const COPY_BINARY_TRAILER = Buffer.from([0xff, 0xff]);
const TWO_32 = 4294967296;
/** Text up to this many UTF-16 units is tried as ASCII in JavaScript before the native encoder. */
const SHORT_TEXT = 24;
const MICROS_PER_DAY = 86_400_000_000;
/** Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01. */
const PG_EPOCH_DAYS = 10_957;

/** A growing output buffer with big-endian writes. */
class ByteSink {
  buf: Buffer;
  view: DataView;
  pos = 0;
  /** buf.length, kept as a plain field: read before every write. */
  private capacity: number;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.capacity = size;
  }

  ensure(n: number): void {
    if (this.pos + n <= this.capacity) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
    this.capacity = size;
  }

  int16(v: number): void {
    this.view.setInt16(this.pos, v);
    this.pos += 2;
  }

  int32(v: number): void {
    this.view.setInt32(this.pos, v);
    this.pos += 4;
  }

  /** An integer within ±2^53 as int64. */
  int64(v: number): void {
    const hi = Math.floor(v / TWO_32);
    this.view.setInt32(this.pos, hi);
    this.view.setUint32(this.pos + 4, v - hi * TWO_32);
    this.pos += 8;
  }

  bigint64(v: bigint): void {
    this.view.setBigInt64(this.pos, v);
    this.pos += 8;
  }

  /** A length-prefixed UTF-8 field; `prefix` is a byte written before the text (jsonb's version). */
  text(s: string, prefix = -1): void {
    const extra = prefix >= 0 ? 1 : 0;
    const len = s.length;
    this.ensure(4 + extra + len * 3);
    const buf = this.buf;
    const start = this.pos + 4 + extra;
    if (extra) buf[start - 1] = prefix;
    let n = 0;
    if (len <= SHORT_TEXT) {
      // Short ASCII text is copied here: cheaper than a call into the UTF-8 encoder.
      while (n < len) {
        const c = s.charCodeAt(n);
        if (c >= 0x80) break;
        buf[start + n] = c;
        n++;
      }
    }
    if (n < len) n = buf.write(s, start, 'utf8');
    this.view.setInt32(this.pos, n + extra);
    this.pos = start + n;
  }

  bytes(b: Uint8Array): void {
    this.ensure(4 + b.byteLength);
    this.int32(b.byteLength);
    this.buf.set(b, this.pos);
    this.pos += b.byteLength;
  }

  take(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/**
 * Writes one non-null value as a length-prefixed binary field. Returns false, having written
 * nothing, when the value has no exact binary form here (an out-of-range number, a date before
 * year 1, an exponent in a decimal): the batch is then sent as text, which PostgreSQL parses
 * (or rejects) as it always would.
 */
type FieldWriter = (out: ByteSink, v: any) => boolean;

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
  out.ensure(8);
  out.int32(4);
  out.view.setFloat32(out.pos, v);
  out.pos += 4;
  return true;
};

const writeFloat8: FieldWriter = (out, v) => {
  if (typeof v !== 'number') return false;
  out.ensure(12);
  out.int32(8);
  out.view.setFloat64(out.pos, v);
  out.pos += 8;
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
  out.buf.write(m[1]! + m[2]! + m[3]! + m[4]! + m[5]!, out.pos, 'hex');
  out.pos += 16;
  return true;
};

/** Two ASCII digits at `i`, or NaN. */
function digits2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 2000-01-01 of 'YYYY-MM-DD' at `s[0..10)`, or NaN when it is not a valid date of years 1-9999. */
function pgDays(s: string): number {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return NaN;
  const y = digits2(s, 0) * 100 + digits2(s, 2);
  const m = digits2(s, 5);
  const d = digits2(s, 8);
  if (!(y >= 1) || !(m >= 1 && m <= 12) || !(d >= 1)) return NaN;
  if (d > (m === 2 && isLeap(y) ? 29 : MONTH_DAYS[m - 1]!)) return NaN;
  return daysFromCivil(y, m, d) - PG_EPOCH_DAYS;
}

/**
 * Microseconds of 'HH:MM:SS[.ffffff]' starting at `s[i]` and running to `end`, or NaN. More
 * than six fraction digits would need PostgreSQL's rounding: NaN (the batch goes as text).
 */
function timeMicros(s: string, i: number, end: number): number {
  if (end - i < 8 || s.charCodeAt(i + 2) !== 58 || s.charCodeAt(i + 5) !== 58) return NaN;
  const h = digits2(s, i);
  const mi = digits2(s, i + 3);
  const se = digits2(s, i + 6);
  if (!(h <= 24 && mi <= 59 && se <= 60)) return NaN;
  let micros = ((h * 60 + mi) * 60 + se) * 1_000_000;
  let j = i + 8;
  if (j < end) {
    if (s.charCodeAt(j) !== 46) return NaN;
    j++;
    const digits = end - j;
    if (digits < 1 || digits > 6) return NaN;
    let f = 0;
    for (let k = 0; k < 6; k++) {
      const c = k < digits ? s.charCodeAt(j + k) - 48 : 0;
      if (c < 0 || c > 9) return NaN;
      f = f * 10 + c;
    }
    micros += f;
  }
  if (micros > MICROS_PER_DAY) return NaN;
  return micros;
}

/** Writes microseconds since 2000-01-01 given as whole days plus microseconds within them. */
function writeMicros(out: ByteSink, days: number, micros: number): void {
  out.ensure(12);
  out.int32(8);
  const total = days * MICROS_PER_DAY + micros;
  if (Number.isSafeInteger(total)) out.int64(total);
  else out.bigint64(BigInt(days) * BigInt(MICROS_PER_DAY) + BigInt(micros));
}

const writeDate: FieldWriter = (out, v) => {
  if (typeof v !== 'string' || v.length !== 10) return false;
  const days = pgDays(v);
  if (Number.isNaN(days)) return false;
  out.ensure(8);
  out.int32(4);
  out.int32(days);
  return true;
};

const writeTime: FieldWriter = (out, v) => {
  if (typeof v !== 'string') return false;
  const micros = timeMicros(v, 0, v.length);
  if (Number.isNaN(micros)) return false;
  out.ensure(12);
  out.int32(8);
  out.int64(micros);
  return true;
};

/** What dateTime() parsed (module scratch: no allocation per value). */
let parsedDays = 0;
let parsedMicros = 0;

/** Parses 'YYYY-MM-DD[T ]HH:MM:SS[.f]' up to `end` into parsedDays and parsedMicros; false when it is not one. */
function dateTime(s: string, end: number): boolean {
  if (s.length < 19) return false;
  const sep = s.charCodeAt(10);
  if (sep !== 84 && sep !== 32) return false;
  parsedDays = pgDays(s);
  parsedMicros = timeMicros(s, 11, end);
  return !Number.isNaN(parsedDays) && !Number.isNaN(parsedMicros);
}

const writeTimestamp: FieldWriter = (out, v) => {
  if (typeof v !== 'string' || !dateTime(v, v.length)) return false;
  writeMicros(out, parsedDays, parsedMicros);
  return true;
};

/** Offset in minutes of a trailing 'Z', '±HH', '±HHMM' or '±HH:MM', and where it starts; or undefined. */
function zoneOffset(s: string): { start: number; minutes: number } | undefined {
  const n = s.length;
  if (s.charCodeAt(n - 1) === 90 /* Z */) return { start: n - 1, minutes: 0 };
  for (const [len, colon] of [[6, true], [5, false], [3, false]] as const) {
    const start = n - len;
    const sign = s.charCodeAt(start);
    if (start < 19 || (sign !== 43 && sign !== 45)) continue;
    const h = digits2(s, start + 1);
    let m = 0;
    if (len > 3) {
      if (colon && s.charCodeAt(start + 3) !== 58) continue;
      m = digits2(s, start + (colon ? 4 : 3));
    }
    // PostgreSQL accepts offsets up to ±15:59.
    if (!(h <= 15) || !(m <= 59)) continue;
    return { start, minutes: (sign === 45 ? -1 : 1) * (h * 60 + m) };
  }
  return undefined;
}

const writeTimestampTz: FieldWriter = (out, v) => {
  if (typeof v !== 'string') return false;
  const zone = zoneOffset(v);
  if (!zone || !dateTime(v, zone.start)) return false;
  writeMicros(out, parsedDays, parsedMicros - zone.minutes * 60_000_000);
  return true;
};

/** Base-10000 digit groups of the numeric being written (scratch; longer numbers go as text). */
const groups = new Uint16Array(64);

/**
 * numeric's binary form: base-10000 digit groups with a weight (the first group's position
 * relative to the decimal point, in groups), a sign and the display scale. Reads plain decimal
 * text ('-12.50', '.5', '+7'); anything else (exponents, NaN) returns false.
 */
const writeNumeric: FieldWriter = (out, v) => {
  const s = typeof v === 'string' ? v : typeof v === 'bigint' ? v.toString() : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
  if (s === undefined) return false;
  const len = s.length;
  const first = s.charCodeAt(0);
  const negative = first === 45;
  const digitsStart = negative || first === 43 ? 1 : 0;
  let i = digitsStart;
  while (i < len && s.charCodeAt(i) === 48) i++; // leading zeros
  const intStart = i;
  while (i < len && isDigit(s.charCodeAt(i))) i++;
  const intLen = i - intStart;
  let fracStart = i;
  let fracLen = 0;
  if (i < len && s.charCodeAt(i) === 46) {
    fracStart = ++i;
    while (i < len && isDigit(s.charCodeAt(i))) i++;
    fracLen = i - fracStart;
  }
  // Something besides digits, or no digit at all ('', '-', '.').
  const anyDigit = intStart > digitsStart || intLen > 0 || fracLen > 0;
  if (i !== len || !anyDigit) return false;
  if (fracLen > 0x3fff) return false;
  // Digits as one run padded to whole groups: zeros before the integer part, after the fraction.
  const pad = (4 - (intLen % 4)) % 4;
  const intGroups = (pad + intLen) / 4;
  const total = intGroups + Math.ceil(fracLen / 4);
  if (total > groups.length) return false;
  for (let g = 0; g < total; g++) {
    let value = 0;
    for (let k = 0; k < 4; k++) {
      const p = g * 4 + k - pad; // position in the integer digits, then the fraction's
      let d = 0;
      if (p >= 0 && p < intLen) d = s.charCodeAt(intStart + p) - 48;
      else if (p >= intLen && p - intLen < fracLen) d = s.charCodeAt(fracStart + p - intLen) - 48;
      value = value * 10 + d;
    }
    groups[g] = value;
  }
  let lo = 0;
  while (lo < total && groups[lo] === 0) lo++;
  let hi = total;
  while (hi > lo && groups[hi - 1] === 0) hi--;
  const ndigits = hi - lo;
  out.ensure(12 + ndigits * 2);
  out.int32(8 + ndigits * 2);
  out.int16(ndigits);
  out.int16(ndigits === 0 ? 0 : intGroups - 1 - lo);
  out.int16(ndigits > 0 && negative ? 0x4000 : 0);
  out.int16(fracLen);
  for (let g = lo; g < hi; g++) out.int16(groups[g]!);
  return true;
};

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * How the encoder writes a column: one case of its switch, so every writer call is direct (a
 * const enum inlines to number literals; outside this file a kind is an opaque number).
 */
const enum FieldKind {
  BOOL, INT2, INT4, INT8, FLOAT4, FLOAT8, NUMERIC, TEXT, JSONB, UUID, BYTEA, DATE, TIME, TIMESTAMP, TIMESTAMPTZ,
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
      const fields = rows[r]!.fields;
      out.ensure(2 + 4 * n);
      out.int16(n);
      for (let i = 0; i < n; i++) {
        const v = fields[i];
        if (v === null || v === undefined) out.int32(-1);
        else if (!writeField(out, kinds[i] as FieldKind, v)) return undefined;
      }
    }
    // A copy: the next batch reuses the buffer while this one may still be on its way.
    return Buffer.from(out.take());
  }
}
