import { endianness } from 'node:os';
import { type ColumnEncoding, ColumnEncoding_Kind, Stream_Kind, type Type, Type_Kind } from './gen/orc_file.js';
import { ByteSource, type Ints, OrcCorruptError, type OrcInt, readBooleans, readByteRle, readIntRleV1, readIntRleV2 } from './orc-rle.js';
import { dateText, decimalText, timestampText } from './parquet-values.js';
import { f32, f64, u8 } from './orc-arena.js';

/**
 * The decoding of an ORC stripe's streams (decompressed) into plain arrays, a column at a time
 * (docs/decisions/0011-orc.md, "Speed"): integers, booleans and floats into typed arrays,
 * strings as their bytes and where each starts, and timestamps and decimals already as the
 * ASCII bytes of their texts (the engine's values of those types are texts) with where each
 * starts. Nothing here makes a JS value a field: that is the reader's part (orc-reader.ts). It
 * runs on the row-group thread (row-group-worker.ts), whose answer hands the arrays over, or on
 * the reader's thread when the thread is not there or a stream is corrupt (to name it).
 */

/** The streams of one stripe's columns, decompressed, by `${column}:${kind}`. */
export type Streams = Map<string, Uint8Array>;

interface Common {
  /** One byte a row, 1 where the value is there; undefined when every row has one. */
  readonly present: Uint8Array | undefined;
  readonly rows: number;
  /** The values there (rows less the nulls). */
  readonly count: number;
}

/** A column of a stripe decoded: its present bits and its `count` values, as plain arrays. */
export type ColumnData = Common &
  (
    | { readonly kind: 'boolean' | 'byte'; readonly data: Uint8Array }
    | { readonly kind: 'int' | 'long' | 'date'; readonly data: Ints }
    | { readonly kind: 'float'; readonly data: Float32Array | Float64Array }
    /** Entry e is buf[starts[e], starts[e + 1]); value i is entry ids[i]. */
    | { readonly kind: 'dictionary'; readonly binary: boolean; readonly buf: Uint8Array; readonly starts: Float64Array; readonly ids: Ints }
    /** Value i is buf[starts[i], starts[i + 1]); `ascii` when known to be ASCII (timestamps' and decimals' texts). */
    | {
        readonly kind: 'direct';
        readonly binary: boolean;
        readonly ascii: boolean;
        readonly buf: Uint8Array;
        readonly starts: Float64Array;
      }
    | { readonly kind: 'struct'; readonly children: readonly ColumnData[] }
    /** Lists, and maps (with `vals`): each value's entries are the next lengths[i] of the children's. */
    | { readonly kind: 'list'; readonly lengths: Ints; readonly keys: ColumnData; readonly vals: ColumnData | undefined }
  );

/** What decoding a stripe's columns needs besides its streams (plain data: sent to the row-group thread as it is). */
export interface StripeColumns {
  readonly types: readonly Type[];
  /** The stripe footer's column encodings. */
  readonly encodings: readonly ColumnEncoding[];
  readonly writerZone: string;
  /** The type ids of the columns asked for, and their names. */
  readonly ids: readonly number[];
  readonly names: readonly string[];
  readonly rows: number;
}

/** Decodes the columns of a stripe; a corrupt stream throws, with `at.column` the column it was in. */
export function decodeStripeColumns(job: StripeColumns, streams: Streams, at: { column: string } = { column: '' }): ColumnData[] {
  const decoder = new StripeDecoder(job.types, streams, job.encodings, job.writerZone, at);
  return job.ids.map((id, i) => decoder.column(id, job.rows, job.names[i]));
}

/** Every ArrayBuffer that `columns` view, to be handed over with them (not the shared one of an arena, orc-arena.ts: that is shared, not moved). */
export function columnBuffers(columns: readonly ColumnData[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const add = (a: Uint8Array | Float32Array | Float64Array | Ints | undefined) => {
    if (a && !Array.isArray(a) && a.buffer instanceof ArrayBuffer) out.add(a.buffer);
  };
  const walk = (c: ColumnData) => {
    add(c.present);
    switch (c.kind) {
      case 'boolean':
      case 'byte':
      case 'int':
      case 'long':
      case 'date':
      case 'float':
        add(c.data);
        break;
      case 'dictionary':
        add(c.buf);
        add(c.starts);
        add(c.ids);
        break;
      case 'direct':
        add(c.buf);
        add(c.starts);
        break;
      case 'struct':
        for (const ch of c.children) walk(ch);
        break;
      case 'list':
        add(c.lengths);
        walk(c.keys);
        if (c.vals) walk(c.vals);
        break;
    }
  };
  for (const c of columns) walk(c);
  return [...out];
}

const ORC_EPOCH = 1_420_070_400; // 2015-01-01T00:00:00Z
const LITTLE_ENDIAN = endianness() === 'LE';

/** 10^0 to 10^9. */
const POW10 = Array.from({ length: 10 }, (_, i) => 10 ** i);

/** Seconds a zone is ahead of UTC at an instant, through Intl, cached per quarter hour. */
function zoneOffsets(zone: string): (utc: number) => number {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
  const cache = new Map<number, number>();
  return (utc) => {
    const key = Math.floor(utc / 900);
    let off = cache.get(key);
    if (off === undefined) {
      const t = key * 900;
      const p = Object.fromEntries(fmt.formatToParts(new Date(t * 1000)).map((x) => [x.type, x.value]));
      const year = p.era === 'BC' || p.era === 'B' ? 1 - Number(p.year) : Number(p.year);
      const d = new Date(0);
      d.setUTCFullYear(year, Number(p.month) - 1, Number(p.day));
      d.setUTCHours(Number(p.hour), Number(p.minute), Number(p.second), 0);
      off = Math.round(d.getTime() / 1000) - t;
      if (cache.size >= 100_000) cache.clear();
      cache.set(key, off);
    }
    return off;
  };
}

/** Each writer time zone's offsets, made once a thread (a file's stripes name the same zone). */
const zones = new Map<string, (utc: number) => number>();

const UTC_ZONES = new Set([
  '',
  'GMT',
  'UTC',
  'Etc/UTC',
  'Etc/GMT',
  'Z',
  'Zulu',
  'Etc/Universal',
  'Universal',
  'Etc/Zulu',
  'GMT0',
  'Etc/GMT0',
]);

class StripeDecoder {
  constructor(
    private readonly types: readonly Type[],
    private readonly streams: Streams,
    private readonly encodings: readonly ColumnEncoding[],
    private readonly writerZone: string,
    /** Where in the file tree decoding is, for errors. */
    private readonly at: { column: string },
  ) {}

  private stream(id: number, kind: Stream_Kind, what: string): ByteSource {
    return new ByteSource(this.streams.get(`${id}:${kind}`) ?? new Uint8Array(0), what);
  }

  private v2(id: number): boolean {
    const k = this.encodings[id]?.kind ?? ColumnEncoding_Kind.DIRECT;
    return k === ColumnEncoding_Kind.DIRECT_V2 || k === ColumnEncoding_Kind.DICTIONARY_V2;
  }

  private ints(id: number, kind: Stream_Kind, what: string, count: number, signed: boolean): Ints {
    const s = this.stream(id, kind, what);
    return this.v2(id) ? readIntRleV2(s, count, signed) : readIntRleV1(s, count, signed);
  }

  /** The `rows` values of type `id` (named `name`), with its present stream. */
  column(id: number, rows: number, name: string): ColumnData {
    this.at.column = name;
    const t = this.types[id];
    const hasPresent = this.streams.has(`${id}:${Stream_Kind.PRESENT}`);
    const present = hasPresent ? readBooleans(this.stream(id, Stream_Kind.PRESENT, `${name} PRESENT`), rows) : undefined;
    let k = rows;
    if (present) {
      k = 0;
      for (let i = 0; i < rows; i++) k += present[i];
    }
    const data = this.values(id, t, present, rows, k, name);
    this.at.column = name;
    return data;
  }

  /** The column of `rows` rows, `k` of them not null. */
  private values(id: number, t: Type, present: Uint8Array | undefined, rows: number, k: number, name: string): ColumnData {
    const data = `${name} DATA`;
    const common = { present, rows, count: k };
    switch (t.kind) {
      case Type_Kind.BOOLEAN:
        return { ...common, kind: 'boolean', data: readBooleans(this.stream(id, Stream_Kind.DATA, data), k) };
      case Type_Kind.BYTE:
        return { ...common, kind: 'byte', data: readByteRle(this.stream(id, Stream_Kind.DATA, data), k) };
      case Type_Kind.SHORT:
      case Type_Kind.INT:
        return { ...common, kind: 'int', data: this.ints(id, Stream_Kind.DATA, data, k, true) };
      case Type_Kind.LONG:
        return { ...common, kind: 'long', data: this.ints(id, Stream_Kind.DATA, data, k, true) };
      case Type_Kind.DATE:
        return { ...common, kind: 'date', data: this.ints(id, Stream_Kind.DATA, data, k, true) };
      case Type_Kind.FLOAT:
      case Type_Kind.DOUBLE: {
        const width = t.kind === Type_Kind.FLOAT ? 4 : 8;
        const bytes = this.stream(id, Stream_Kind.DATA, data).bytes(k * width);
        // copied to an aligned array (IEEE 754, little-endian: read through a DataView on a big-endian machine)
        const floats = width === 4 ? f32(k) : f64(k);
        if (LITTLE_ENDIAN) new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength).set(bytes);
        else {
          const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          for (let i = 0; i < k; i++) floats[i] = width === 4 ? view.getFloat32(i * 4, true) : view.getFloat64(i * 8, true);
        }
        return { ...common, kind: 'float', data: floats };
      }
      case Type_Kind.STRING:
      case Type_Kind.VARCHAR:
      case Type_Kind.CHAR:
      case Type_Kind.BINARY: {
        const binary = t.kind === Type_Kind.BINARY;
        const enc = this.encodings[id]?.kind ?? ColumnEncoding_Kind.DIRECT;
        if (enc === ColumnEncoding_Kind.DICTIONARY || enc === ColumnEncoding_Kind.DICTIONARY_V2) {
          const size = this.encodings[id]?.dictionarySize ?? 0;
          const [buf, starts] = this.bytesAndStarts(id, Stream_Kind.DICTIONARY_DATA, size, name);
          const ids = this.ints(id, Stream_Kind.DATA, data, k, false);
          let last = -1; // the largest index (unsigned: none below 0), in one plain loop
          if (ids instanceof Float64Array) {
            for (let i = 0; i < k; i++) if (ids[i] > last) last = ids[i];
          } else for (const j of ids) last = Math.max(last, typeof j === 'number' ? j : Number.POSITIVE_INFINITY);
          if (last >= size) {
            const j = Array.from(ids).find((x) => typeof x !== 'number' || x >= size);
            throw new OrcCorruptError(`dictionary index ${j} is past the dictionary's ${size} entries`);
          }
          return { ...common, kind: 'dictionary', binary, buf, starts, ids };
        }
        const [buf, starts] = this.bytesAndStarts(id, Stream_Kind.DATA, k, name);
        return { ...common, kind: 'direct', binary, ascii: false, buf, starts };
      }
      case Type_Kind.DECIMAL: {
        const s = this.stream(id, Stream_Kind.DATA, data);
        const unscaled = f64(k);
        let big: OrcInt[] | undefined;
        const bytes = s.buf;
        const fast = bytes.length - 7;
        for (let i = 0; i < k; i++) {
          if (big === undefined && s.pos <= fast) {
            // a varint of up to 7 bytes (49 bits) whose bytes are all there: read here, without a check a byte
            let pos = s.pos;
            let u = 0;
            let mul = 1;
            let b = 0x80;
            for (let j = 0; j < 7 && b >= 0x80; j++, mul *= 128) {
              b = bytes[pos++];
              u += (b & 0x7f) * mul;
            }
            if (b < 0x80) {
              s.pos = pos;
              unscaled[i] = u % 2 === 0 ? u / 2 : -(u + 1) / 2; // zigzag
              continue;
            }
          }
          const v = s.svarint(); // longer, or near the end of the stream: the general way
          if (big === undefined && typeof v === 'number') unscaled[i] = v;
          else {
            big ??= Array.from(unscaled.subarray(0, i));
            big.push(v);
          }
        }
        const scales = this.ints(id, Stream_Kind.SECONDARY, `${name} SECONDARY`, k, true);
        const [buf, starts] = decimalTexts(big ?? unscaled, scales, t.scale ?? 0, k);
        return { ...common, kind: 'direct', binary: false, ascii: true, buf, starts };
      }
      case Type_Kind.TIMESTAMP:
      case Type_Kind.TIMESTAMP_INSTANT: {
        const secs = this.ints(id, Stream_Kind.DATA, data, k, true);
        const nanos = this.ints(id, Stream_Kind.SECONDARY, `${name} SECONDARY`, k, false);
        const instant = t.kind === Type_Kind.TIMESTAMP_INSTANT;
        const zone = instant ? '' : this.writerZone;
        let offset: ((utc: number) => number) | undefined;
        if (!UTC_ZONES.has(zone)) {
          offset = zones.get(zone);
          if (offset === undefined) {
            try {
              offset = zoneOffsets(zone);
            } catch {
              throw new OrcCorruptError(`the stripe's writer time zone '${zone}' is not one this machine knows`);
            }
            zones.set(zone, offset);
          }
        }
        const epoch = offset ? ORC_EPOCH - offset(ORC_EPOCH - offset(ORC_EPOCH)) : ORC_EPOCH;
        const [buf, starts] = timestampTexts(secs, nanos, instant, epoch, offset, k);
        return { ...common, kind: 'direct', binary: false, ascii: true, buf, starts };
      }
      case Type_Kind.STRUCT: {
        const children = t.subtypes.map((c, j) => this.column(c, k, `${name}.${t.fieldNames[j] ?? `_col${j}`}`));
        return { ...common, kind: 'struct', children };
      }
      case Type_Kind.LIST:
      case Type_Kind.MAP: {
        const lengths = this.ints(id, Stream_Kind.LENGTH, `${name} LENGTH`, k, false);
        let total = 0;
        for (let i = 0; i < k; i++) total += Number(lengths[i]);
        const isMap = t.kind === Type_Kind.MAP;
        const keys = this.column(t.subtypes[0], total, isMap ? `${name}.key` : `${name}.element`);
        const vals = isMap ? this.column(t.subtypes[1], total, `${name}.value`) : undefined;
        return { ...common, kind: 'list', lengths, keys, vals };
      }
      default:
        throw new OrcCorruptError(`type kind ${String(t.kind)} cannot be read`);
    }
  }

  /** A bytes stream and where each of its `count` values starts (the LENGTH stream summed; starts[count] is the end). */
  private bytesAndStarts(id: number, kind: Stream_Kind, count: number, name: string): [Uint8Array, Float64Array] {
    const lengths = this.ints(id, Stream_Kind.LENGTH, `${name} LENGTH`, count, false);
    const buf = this.stream(id, kind, `${name} ${kind === Stream_Kind.DATA ? 'DATA' : 'DICTIONARY_DATA'}`).buf;
    const starts = f64(count + 1);
    let at = 0;
    for (let i = 0; i < count; i++) {
      starts[i] = at;
      at += Number(lengths[i]);
    }
    if (at > buf.length) throw new OrcCorruptError(`the ${name} values pass the end of their stream (${buf.length} bytes)`);
    starts[count] = at;
    return [buf, starts];
  }
}

/** The texts of a decimal column's `k` values: unscaled integers with their scales, at the type's `scale`. */
function decimalTexts(unscaled: Ints, scales: Ints, scale: number, k: number): [Uint8Array, Float64Array] {
  const out = new TextsOut(k, 12);
  for (let i = 0; i < k; i++) {
    const raw = unscaled[i];
    const sc = Number(scales[i]);
    if (typeof raw === 'number' && sc === scale) {
      out.decimal(raw, scale); // the common case, without a BigInt
      continue;
    }
    let v = BigInt(raw);
    if (sc < scale) v *= 10n ** BigInt(scale - sc);
    else if (sc > scale) v /= 10n ** BigInt(sc - scale);
    out.text(decimalText(v, scale));
  }
  return out.done();
}

/** The texts of a timestamp column's `k` values: seconds from ORC's epoch and encoded nanoseconds. */
function timestampTexts(
  secs: Ints,
  nanos: Ints,
  instant: boolean,
  epoch: number,
  offset: ((utc: number) => number) | undefined,
  k: number,
): [Uint8Array, Float64Array] {
  const out = new TextsOut(k, instant ? 32 : 26);
  for (let i = 0; i < k; i++) {
    const raw = nanos[i];
    let zeros: number;
    let frac: number;
    if (typeof raw === 'number') {
      zeros = raw % 8;
      frac = (raw - zeros) / 8;
    } else {
      // Arrow's writer gives instants before 1970 negative nanoseconds, stored as 64-bit two's complement
      const signed = BigInt.asIntN(64, raw);
      zeros = Number(signed & 7n);
      frac = Number(signed >> 3n);
    }
    // the writer dropped zeros + 1 trailing zeros of the nanoseconds when zeros is not 0: frac is their first 9 - that digits
    const digits = zeros === 0 ? 9 : 8 - zeros;
    let ns = zeros === 0 ? frac : frac * POW10[zeros + 1];
    if (ns > 999_999_999 || ns < -999_999_999) throw new OrcCorruptError(`a timestamp has ${ns} nanoseconds`);
    let utc = Number(secs[i]) + epoch;
    if (utc >= 0 && ns >= 0) {
      out.timestamp(offset ? utc + offset(utc) : utc, frac, digits, instant);
      continue;
    }
    // ORC's writers store seconds truncated toward zero for instants before 1970
    if (utc < 0 && ns > 999_999) utc -= 1;
    if (ns < 0) {
      utc -= 1;
      ns += 1_000_000_000;
    }
    out.timestamp(offset ? utc + offset(utc) : utc, ns, 9, instant);
  }
  return out.done();
}

type LatinBuffer = Buffer & { latin1Write(s: string, offset: number): number };

const latinBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength) as LatinBuffer;

/** Digits of a decimal are written here from the last, then copied into the texts. */
const digitBuf = Buffer.alloc(64);
const DIGITS_END = 60;

/** Writes the decimal digits of `v` (a non-negative integer below 2^53) to end before `end` in digitBuf; returns where they start. */
function digitsBefore(v: number, end: number): number {
  let at = end;
  do {
    const q = Math.floor(v / 10);
    digitBuf[--at] = 48 + v - q * 10;
    v = q;
  } while (v > 0);
  return at;
}

/** The canonical decimal text of an unscaled integer held exactly in a number, in digitBuf[at, DIGITS_END) (decimalText's, without a BigInt); -1 past 38 digits of scale. */
function decimalDigits(unscaled: number, scale: number): number {
  const neg = unscaled < 0;
  let a = neg ? -unscaled : unscaled;
  if (scale > 38) return -1;
  // the digits from the last: `scale` of the fraction, the point, then the whole part (at least a 0)
  let at = DIGITS_END;
  if (scale > 0) {
    for (let i = 0; i < scale; i++) {
      const q = Math.floor(a / 10);
      digitBuf[--at] = 48 + a - q * 10;
      a = q;
    }
    digitBuf[--at] = 46; // '.'
  }
  at = digitsBefore(a, at);
  if (neg) digitBuf[--at] = 45; // '-'
  return at;
}

/** The ASCII digits of 00 to 99, two bytes each. */
const PAIRS = Uint8Array.from({ length: 200 }, (_, i) => 48 + (i % 2 === 0 ? Math.floor(i / 20) : (i >> 1) % 10));

/** The day whose 'YYYY-MM-DDT' is in dayPrefix. */
let textDay = Number.NaN;
const dayPrefix = Buffer.alloc(11) as LatinBuffer;

/**
 * A column's texts (timestamps, decimals) written one after the other as ASCII bytes, with where
 * each starts: the reader makes a batch's strings of them by one latin1Slice and a substring
 * each (flat strings, as the PostgreSQL source's own are).
 */
class TextsOut {
  private buf: LatinBuffer;
  private pos = 0;
  private n = 0;
  private readonly starts: Float64Array;

  /** Room for `count` texts of about `each` bytes. */
  constructor(count: number, each: number) {
    this.buf = latinBuffer(u8(Math.max(64, count * each)));
    this.starts = f64(count + 1);
  }

  private room(bytes: number): void {
    if (this.pos + bytes > this.buf.length) {
      const b = latinBuffer(u8(Math.max(this.pos + bytes, this.buf.length * 2)));
      this.buf.copy(b, 0, 0, this.pos);
      this.buf = b;
    }
  }

  /** The texts' bytes (a view of a buffer of their own) and where each starts (and the last ends). */
  done(): [Uint8Array, Float64Array] {
    this.starts[this.n] = this.pos;
    return [this.buf.subarray(0, this.pos), this.starts];
  }

  /** An ASCII text made another way. */
  text(s: string): void {
    this.room(s.length);
    this.starts[this.n++] = this.pos;
    this.pos += this.buf.latin1Write(s, this.pos);
  }

  /** A decimal's canonical text (decimalText's) of an unscaled integer held exactly in a number. */
  decimal(unscaled: number, scale: number): void {
    const neg = unscaled < 0;
    let a = neg ? -unscaled : unscaled;
    if (a <= 0x7fffffff && scale <= 9) {
      // 32-bit: the digits counted, then written from the last straight into the texts
      let digits = 1;
      for (let t = 10; t <= a && digits < 10; t *= 10) digits++;
      if (digits <= scale) digits = scale + 1;
      const len = (neg ? 1 : 0) + digits + (scale > 0 ? 1 : 0);
      this.room(len);
      const b = this.buf;
      const p = this.pos;
      this.starts[this.n++] = p;
      let e = p + len;
      for (let i = 0; i < scale; i++) {
        const q = (a / 10) | 0;
        b[--e] = 48 + a - q * 10;
        a = q;
      }
      if (scale > 0) b[--e] = 46; // '.'
      const first = neg ? p + 1 : p;
      while (e > first) {
        const q = (a / 10) | 0;
        b[--e] = 48 + a - q * 10;
        a = q;
      }
      if (neg) b[p] = 45; // '-'
      this.pos = p + len;
      return;
    }
    const at = decimalDigits(unscaled, scale);
    if (at < 0) {
      this.text(decimalText(BigInt(unscaled), scale));
      return;
    }
    this.room(DIGITS_END - at);
    // a loop: Buffer#copy's checks cost more than these few bytes
    const b = this.buf;
    let p = this.pos;
    this.starts[this.n++] = p;
    for (let i = at; i < DIGITS_END; i++) b[p++] = digitBuf[i];
    this.pos = p;
  }

  /**
   * The text of a timestamp: wall-clock seconds since 1970 and the first `digits` digits of its
   * nanoseconds as the integer `frac` (the rest zeros; trailing zeros dropped from the text),
   * '+00:00' after an instant's.
   */
  timestamp(wall: number, frac: number, digits: number, instant: boolean): void {
    const day = Math.floor(wall / 86400);
    if (day !== textDay) {
      const date = dateText(day);
      if (date.length !== 10) {
        // years outside 0000-9999
        const ns = frac * POW10[9 - digits];
        this.text(`${timestampText(BigInt(wall) * 1_000_000n)}${ns === 0 ? '' : fractionText(ns)}${instant ? '+00:00' : ''}`);
        return;
      }
      dayPrefix.latin1Write(date, 0);
      dayPrefix[10] = 84; // 'T'
      textDay = day;
    }
    this.room(40);
    const b = this.buf;
    const p = this.pos;
    this.starts[this.n++] = p;
    const d = dayPrefix;
    b[p] = d[0];
    b[p + 1] = d[1];
    b[p + 2] = d[2];
    b[p + 3] = d[3];
    b[p + 4] = d[4];
    b[p + 5] = d[5];
    b[p + 6] = d[6];
    b[p + 7] = d[7];
    b[p + 8] = d[8];
    b[p + 9] = d[9];
    b[p + 10] = d[10];
    // small integers from here on: 32-bit arithmetic
    let rest = (wall - day * 86400) | 0;
    const h = (rest / 3600) | 0;
    rest -= h * 3600;
    const m = (rest / 60) | 0;
    const sec = rest - m * 60;
    const hh = h * 2;
    const mm = m * 2;
    const ss = sec * 2;
    b[p + 11] = PAIRS[hh];
    b[p + 12] = PAIRS[hh + 1];
    b[p + 13] = 58; // ':'
    b[p + 14] = PAIRS[mm];
    b[p + 15] = PAIRS[mm + 1];
    b[p + 16] = 58;
    b[p + 17] = PAIRS[ss];
    b[p + 18] = PAIRS[ss + 1];
    let len = 19;
    if (frac !== 0) {
      let v = frac | 0;
      while (v % 10 === 0) {
        v = (v / 10) | 0;
        digits--;
      }
      b[p + 19] = 46; // '.'
      len = 20 + digits;
      // v has `digits` digits (leading zeros too): written from the last, two at a time
      let i = p + len;
      const first = p + 20;
      while (i - first >= 2) {
        const q = (v / 100) | 0;
        const r = (v - q * 100) * 2;
        b[--i] = PAIRS[r + 1];
        b[--i] = PAIRS[r];
        v = q;
      }
      if (i > first) b[first] = 48 + v; // the first digit, when they are odd
    }
    if (instant) len += b.latin1Write('+00:00', p + len);
    this.pos = p + len;
  }
}

/** '.f' of nanoseconds (1 to 999,999,999), trailing zeros dropped. */
function fractionText(ns: number): string {
  const digits = String(ns + 1_000_000_000).slice(1);
  let end = 9;
  while (digits.charCodeAt(end - 1) === 48) end--; // '0'
  return `.${end === 9 ? digits : digits.slice(0, end)}`;
}
