import { type Column, type DataType, formatType, rowBytes } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { FileEncoder } from './file-encoder.js';
import {
  CalendarKind,
  ColumnEncoding_Kind,
  type ColumnEncoding,
  type ColumnStatistics,
  CompressionKind,
  Footer,
  Metadata,
  PostScript,
  type Stream,
  StripeFooter,
  type StripeInformation,
  Stream_Kind,
  type Type,
  Type_Kind,
} from './gen/orc_file.js';
import { compress } from './orc-compression.js';
import { ByteSink, type OrcInt, writeBooleans, writeByteRle, writeIntRleV2 } from './orc-rle.js';
import { dateDays, unscaledDecimal } from './parquet-values.js';
import { daysFromCivil, parseDateDays, parseUnscaled } from './parquet-text-parse.js';

/**
 * Tideway's ORC writer (docs/decisions/0011-orc.md): file format 0.12, integers in RLE v2,
 * strings by dictionary when at most 80% of a stripe's values are distinct, and of its first
 * 10,000 (direct otherwise, as ORC's Java writer decides on its first row group), a present
 * stream only where a stripe has nulls, stripes of about ORC_STRIPE_BYTES of row data, each stream compressed in blocks of 256 KB; column statistics
 * (values, nulls) per stripe and per file. No row index (row_index_stride 0): readers then read
 * whole stripes, which is how Tideway splits a file anyway.
 *
 * | Tideway      | ORC                                                |
 * |--------------|----------------------------------------------------|
 * | string       | string                                             |
 * | boolean      | boolean                                            |
 * | tinyint ... bigint | tinyint, smallint, int, bigint               |
 * | float, double| float, double                                      |
 * | decimal(p,s) | decimal(p,s)                                       |
 * | bytes        | binary                                             |
 * | date         | date                                               |
 * | timestamp    | timestamp (written in GMT: the wall clock is kept) |
 * | timestamp_tz | timestamp with local time zone (the instant)       |
 * | array, map, row | array, map, struct                              |
 */

/** A stripe is cut once this many bytes of row data (rowBytes) are buffered. */
export const ORC_STRIPE_BYTES = 16 * 1024 * 1024;
export const ORC_BLOCK_SIZE = 256 * 1024;
const ORC_EPOCH = 1_420_070_400; // 2015-01-01T00:00:00Z
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The ORC type of a column, or a sentence saying why it has none. */
function orcKind(type: DataType, name: string): Type_Kind {
  switch (type.kind) {
    case 'string':
      return Type_Kind.STRING;
    case 'boolean':
      return Type_Kind.BOOLEAN;
    case 'tinyint':
      return Type_Kind.BYTE;
    case 'smallint':
      return Type_Kind.SHORT;
    case 'int':
      return Type_Kind.INT;
    case 'bigint':
      return Type_Kind.LONG;
    case 'float':
      return Type_Kind.FLOAT;
    case 'double':
      return Type_Kind.DOUBLE;
    case 'decimal':
      return Type_Kind.DECIMAL;
    case 'bytes':
      return Type_Kind.BINARY;
    case 'date':
      return Type_Kind.DATE;
    case 'timestamp':
      return Type_Kind.TIMESTAMP;
    case 'timestamp_tz':
      return Type_Kind.TIMESTAMP_INSTANT;
    case 'array':
      return Type_Kind.LIST;
    case 'map':
      return Type_Kind.MAP;
    case 'row':
      return Type_Kind.STRUCT;
    default:
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `Column '${name}' is ${formatType(type)}, which ORC has no type for: cast it (to string or bigint, say) before an orc sink.`,
      );
  }
}

/** Checks that every column can be written (at planning). */
export function checkOrcColumns(columns: readonly Column[]): void {
  const walk = (t: DataType, name: string): void => {
    orcKind(t, name);
    if (t.kind === 'array') walk(t.element, `${name}.element`);
    else if (t.kind === 'map') {
      walk(t.key, `${name}.key`);
      walk(t.value, `${name}.value`);
    } else if (t.kind === 'row') for (const f of t.fields) walk(f.type, `${name}.${f.name}`);
  };
  for (const c of columns) walk(c.type, c.name);
}

/** A stream of a stripe: its kind, column and compressed bytes. */
interface StripeStream {
  readonly kind: Stream_Kind;
  readonly column: number;
  readonly bytes: Uint8Array;
}

function toInt(v: unknown): OrcInt {
  if (typeof v === 'bigint') return v <= SAFE && v >= -SAFE ? Number(v) : v;
  return Math.trunc(Number(v));
}

const d2 = (s: string, i: number): number => {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >>> 0 > 9 || b >>> 0 > 9 ? -1 : a * 10 + b;
};

/** The canonical 'YYYY-MM-DDTHH:mm:ss[.f{1,9}]' read digit by digit into `out` (seconds, nanoseconds); false for any other shape. */
function fastSecondsAndNanos(s: string, out: [number, number]): boolean {
  const n = s.length;
  if (n < 19 || (n > 19 && (s.charCodeAt(19) !== 46 || n === 20 || n > 29))) return false;
  const sep = s.charCodeAt(10);
  if ((sep !== 84 && sep !== 32) || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58)
    return false;
  const y0 = d2(s, 0);
  const y1 = d2(s, 2);
  const mo = d2(s, 5);
  const d = d2(s, 8);
  const h = d2(s, 11);
  const mi = d2(s, 14);
  const se = d2(s, 17);
  if (y0 < 0 || y1 < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return false;
  let ns = 0;
  for (let k = 20; k < 29; k++) {
    const c = k < n ? s.charCodeAt(k) - 48 : 0;
    if (c >>> 0 > 9) return false;
    ns = ns * 10 + c;
  }
  out[0] = daysFromCivil(y0 * 100 + y1, mo, d) * 86400 + h * 3600 + mi * 60 + se;
  out[1] = ns;
  return true;
}

/** Wall-clock seconds and nanoseconds of a timestamp text (read as UTC), or of an instant with an offset. */
function secondsAndNanos(text: string, withZone: boolean): [number, number] {
  const m = /^([+-]?\d{4,6}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(.*)$/.exec(text);
  if (!m) throw new TypeError(`'${text}' is not a timestamp (YYYY-MM-DDTHH:mm:ss[.fffffffff]) and cannot be written to ORC`);
  const zone = withZone ? m[4] || 'Z' : 'Z';
  const ms = Date.parse(`${m[1]}T${m[2].length === 5 ? `${m[2]}:00` : m[2]}${zone}`);
  if (Number.isNaN(ms)) throw new TypeError(`'${text}' is not a timestamp ORC can hold`);
  return [Math.floor(ms / 1000), Number((m[3] ?? '').padEnd(9, '0'))];
}

/** ORC's nanosecond encoding: trailing decimal zeros (2 to 8) counted in the low three bits. */
function encodeNanos(ns: number): number {
  if (ns === 0) return 0;
  let zeros = 0;
  let v = ns;
  while (v % 10 === 0 && zeros < 8) {
    v /= 10;
    zeros++;
  }
  return zeros >= 2 ? v * 8 + (zeros - 1) : ns * 8;
}

abstract class ColumnWriter {
  /** Values (nulls too) of the stripe so far. */
  count = 0;
  nonNull = 0;
  /** Where the stripe's nulls are: the present stream is made from them, when there are any. */
  private nulls: number[] = [];
  fileValues = 0;
  fileNulls = false;

  constructor(readonly id: number) {}

  add(v: unknown): void {
    if (v === null || v === undefined) {
      this.nulls.push(this.count++);
      this.fileNulls = true;
      return;
    }
    this.count++;
    this.nonNull++;
    this.addValue(v);
  }

  protected abstract addValue(v: unknown): void;
  /** The stripe's data streams (uncompressed) and encoding; resets the stripe's values. */
  protected abstract flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding;

  /** Every writer of this subtree, pre-order. */
  all(): ColumnWriter[] {
    return [this];
  }

  flush(streams: StripeStream[], codec: CompressionKind, encodings: ColumnEncoding[], stats: ColumnStatistics[]): void {
    const hasNull = this.nulls.length > 0;
    if (hasNull) {
      const present = new Uint8Array(this.count).fill(1);
      for (const at of this.nulls) present[at] = 0;
      const sink = new ByteSink();
      writeBooleans(sink, present);
      streams.push({ kind: Stream_Kind.PRESENT, column: this.id, bytes: compress(codec, sink.bytes(), ORC_BLOCK_SIZE) });
    }
    stats[this.id] = { numberOfValues: BigInt(this.nonNull), hasNull };
    this.fileValues += this.nonNull;
    encodings[this.id] = this.flushValues((kind, bytes) => {
      streams.push({ kind, column: this.id, bytes: compress(codec, bytes, ORC_BLOCK_SIZE) });
    });
    this.nulls = [];
    this.count = 0;
    this.nonNull = 0;
  }
}

const DIRECT: ColumnEncoding = { kind: ColumnEncoding_Kind.DIRECT };
/** Values of a stripe's string column whose distinct share decides dictionary or direct (ORC's default row index stride). */
const DICTIONARY_SAMPLE = 10_000;
const DIRECT_V2: ColumnEncoding = { kind: ColumnEncoding_Kind.DIRECT_V2 };

function intStream(values: readonly OrcInt[], signed: boolean): Uint8Array {
  const sink = new ByteSink();
  writeIntRleV2(sink, values, signed);
  return sink.bytes();
}

class BooleanWriter extends ColumnWriter {
  private bits: number[] = [];
  protected addValue(v: unknown): void {
    this.bits.push(v ? 1 : 0);
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    const sink = new ByteSink();
    writeBooleans(sink, Uint8Array.from(this.bits));
    out(Stream_Kind.DATA, sink.bytes());
    this.bits = [];
    return DIRECT;
  }
}

class ByteWriter extends ColumnWriter {
  private bytes: number[] = [];
  protected addValue(v: unknown): void {
    this.bytes.push(Number(v) & 0xff);
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    const sink = new ByteSink();
    writeByteRle(sink, Uint8Array.from(this.bytes));
    out(Stream_Kind.DATA, sink.bytes());
    this.bytes = [];
    return DIRECT;
  }
}

class IntWriter extends ColumnWriter {
  private values: OrcInt[] = [];
  constructor(
    id: number,
    private readonly convert: (v: unknown) => OrcInt,
  ) {
    super(id);
  }
  protected addValue(v: unknown): void {
    this.values.push(this.convert(v));
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    out(Stream_Kind.DATA, intStream(this.values, true));
    this.values = [];
    return DIRECT_V2;
  }
}

class FloatWriter extends ColumnWriter {
  private values: number[] = [];
  constructor(
    id: number,
    private readonly width: 4 | 8,
  ) {
    super(id);
  }
  protected addValue(v: unknown): void {
    this.values.push(Number(v));
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    const bytes = new Uint8Array(this.values.length * this.width);
    const view = new DataView(bytes.buffer);
    // IEEE 754, little-endian, whatever the machine's order
    if (this.width === 4) for (let i = 0; i < this.values.length; i++) view.setFloat32(i * 4, this.values[i], true);
    else for (let i = 0; i < this.values.length; i++) view.setFloat64(i * 8, this.values[i], true);
    out(Stream_Kind.DATA, bytes);
    this.values = [];
    return DIRECT;
  }
}

class StringWriter extends ColumnWriter {
  private values: (string | Uint8Array)[] = [];
  constructor(
    id: number,
    private readonly binary: boolean,
  ) {
    super(id);
  }
  protected addValue(v: unknown): void {
    this.values.push(this.binary ? (v as Uint8Array) : typeof v === 'string' ? v : String(v));
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    const values = this.values;
    this.values = [];
    if (!this.binary) {
      const dict = new Map<string, number>();
      const idx = new Array<number>(values.length);
      const limit = 0.8 * values.length;
      let direct = values.length === 0;
      for (let i = 0; i < values.length && !direct; i++) {
        const s = values[i] as string;
        let j = dict.get(s);
        if (j === undefined) {
          j = dict.size;
          dict.set(s, j);
        }
        idx[i] = j;
        // decided on the first DICTIONARY_SAMPLE values, as ORC's Java writer decides on its first row group
        direct = dict.size > limit || (i === DICTIONARY_SAMPLE - 1 && dict.size > 0.8 * DICTIONARY_SAMPLE);
      }
      if (!direct) {
        out(Stream_Kind.DATA, intStream(idx, false));
        const [data, lengths] = this.bytesAndLengths([...dict.keys()]);
        out(Stream_Kind.LENGTH, lengths);
        out(Stream_Kind.DICTIONARY_DATA, data);
        return { kind: ColumnEncoding_Kind.DICTIONARY_V2, dictionarySize: dict.size };
      }
    }
    const [data, lengths] = this.bytesAndLengths(values);
    out(Stream_Kind.DATA, data);
    out(Stream_Kind.LENGTH, lengths);
    return DIRECT_V2;
  }
  private bytesAndLengths(values: readonly (string | Uint8Array)[]): [Uint8Array, Uint8Array] {
    // one buffer for all: a string takes at most 3 bytes per UTF-16 unit
    let room = 0;
    for (const v of values) room += typeof v === 'string' ? v.length * 3 : v.length;
    const buf = Buffer.allocUnsafe(room);
    const lengths = new Array<number>(values.length);
    let at = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      const n = typeof v === 'string' ? buf.write(v, at, 'utf8') : (buf.set(v, at), v.length);
      lengths[i] = n;
      at += n;
    }
    return [buf.subarray(0, at), intStream(lengths, false)];
  }
}

class DecimalWriter extends ColumnWriter {
  private sink = new ByteSink();
  constructor(
    id: number,
    private readonly scale: number,
  ) {
    super(id);
  }
  protected addValue(v: unknown): void {
    const text = typeof v === 'string' ? v : (v as number | bigint).toString();
    // up to 15 digits as a number (exact), wider through BigInt
    const n = parseUnscaled(text, this.scale);
    this.sink.svarint(Number.isNaN(n) ? unscaledDecimal(text, this.scale) : n);
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    out(Stream_Kind.DATA, this.sink.bytes());
    out(Stream_Kind.SECONDARY, intStream(new Array<number>(this.nonNull).fill(this.scale), true));
    this.sink = new ByteSink();
    return DIRECT_V2;
  }
}

class TimestampWriter extends ColumnWriter {
  private secs: number[] = [];
  private nanos: number[] = [];
  constructor(
    id: number,
    private readonly withZone: boolean,
  ) {
    super(id);
  }
  private readonly parsed: [number, number] = [0, 0];
  protected addValue(v: unknown): void {
    const text = String(v);
    const [s, ns] = !this.withZone && fastSecondsAndNanos(text, this.parsed) ? this.parsed : secondsAndNanos(text, this.withZone);
    // ORC's writers truncate toward zero before 1970: readers take one second back
    this.secs.push(s - ORC_EPOCH + (s < 0 && ns > 999_999 ? 1 : 0));
    this.nanos.push(encodeNanos(ns));
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    out(Stream_Kind.DATA, intStream(this.secs, true));
    out(Stream_Kind.SECONDARY, intStream(this.nanos, false));
    this.secs = [];
    this.nanos = [];
    return DIRECT_V2;
  }
}

class StructWriter extends ColumnWriter {
  constructor(
    id: number,
    readonly children: ColumnWriter[],
  ) {
    super(id);
  }
  protected addValue(v: unknown): void {
    const fields = v as readonly unknown[];
    for (let i = 0; i < this.children.length; i++) this.children[i].add(fields[i]);
  }
  override all(): ColumnWriter[] {
    return [this, ...this.children.flatMap((c) => c.all())];
  }
  protected flushValues(): ColumnEncoding {
    return DIRECT;
  }
}

class ListWriter extends ColumnWriter {
  private lengths: number[] = [];
  constructor(
    id: number,
    private readonly element: ColumnWriter,
    private readonly value?: ColumnWriter,
  ) {
    super(id);
  }
  protected addValue(v: unknown): void {
    if (this.value) {
      const entries = v instanceof Map ? [...(v as Map<unknown, unknown>).entries()] : Object.entries(v as object);
      this.lengths.push(entries.length);
      for (const [k, val] of entries) {
        this.element.add(k);
        this.value.add(val);
      }
      return;
    }
    const items = v as readonly unknown[];
    this.lengths.push(items.length);
    for (const item of items) this.element.add(item);
  }
  override all(): ColumnWriter[] {
    return [this, ...this.element.all(), ...(this.value ? this.value.all() : [])];
  }
  protected flushValues(out: (kind: Stream_Kind, bytes: Uint8Array) => void): ColumnEncoding {
    out(Stream_Kind.LENGTH, intStream(this.lengths, false));
    this.lengths = [];
    return DIRECT_V2;
  }
}

/** The writers and ORC types of a column tree, pre-order ids from `types.length`. */
function buildWriter(type: DataType, name: string, types: Type[]): ColumnWriter {
  const id = types.length;
  const t: Type = { kind: orcKind(type, name), subtypes: [], fieldNames: [], attributes: [] };
  types.push(t);
  switch (type.kind) {
    case 'boolean':
      return new BooleanWriter(id);
    case 'tinyint':
      return new ByteWriter(id);
    case 'smallint':
    case 'int':
    case 'bigint':
      return new IntWriter(id, toInt);
    case 'date':
      return new IntWriter(id, (v) => {
        const text = String(v);
        const days = parseDateDays(text);
        return Number.isNaN(days) ? dateDays(text) : days;
      });
    case 'float':
      return new FloatWriter(id, 4);
    case 'double':
      return new FloatWriter(id, 8);
    case 'string':
      return new StringWriter(id, false);
    case 'bytes':
      return new StringWriter(id, true);
    case 'decimal':
      t.precision = type.precision;
      t.scale = type.scale;
      return new DecimalWriter(id, type.scale);
    case 'timestamp':
    case 'timestamp_tz':
      return new TimestampWriter(id, type.kind === 'timestamp_tz');
    case 'array': {
      t.subtypes.push(types.length);
      return new ListWriter(id, buildWriter(type.element, `${name}.element`, types));
    }
    case 'map': {
      t.subtypes.push(types.length);
      const key = buildWriter(type.key, `${name}.key`, types);
      t.subtypes.push(types.length);
      return new ListWriter(id, key, buildWriter(type.value, `${name}.value`, types));
    }
    case 'row': {
      const children = type.fields.map((f) => {
        t.subtypes.push(types.length);
        t.fieldNames.push(f.name);
        return buildWriter(f.type, `${name}.${f.name}`, types);
      });
      return new StructWriter(id, children);
    }
    default:
      throw new Error(`unreachable: ${formatType(type)}`);
  }
}

/** Writes one ORC file; `take` hands over the stripes written so far. */
export class OrcFileWriter implements FileEncoder {
  private readonly types: Type[] = [];
  private readonly root: StructWriter;
  private readonly writers: ColumnWriter[];
  private out = new ByteSink();
  private offset = 0;
  private readonly stripes: StripeInformation[] = [];
  private readonly stripeStats: ColumnStatistics[][] = [];
  private rows = 0;
  private totalRows = 0;
  private estimated = 0;

  constructor(
    columns: readonly Column[],
    private readonly codec: CompressionKind,
    private readonly stripeBytes = ORC_STRIPE_BYTES,
  ) {
    checkOrcColumns(columns);
    this.types.push({ kind: Type_Kind.STRUCT, subtypes: [], fieldNames: [], attributes: [] });
    const children = columns.map((c) => {
      this.types[0].subtypes.push(this.types.length);
      this.types[0].fieldNames.push(c.name);
      return buildWriter(c.type, c.name, this.types);
    });
    this.root = new StructWriter(0, children);
    this.writers = this.root.all();
    this.out.write(new TextEncoder().encode('ORC'));
    this.offset = 3;
  }

  add(fields: readonly unknown[]): void {
    const children = this.root.children;
    for (let i = 0; i < children.length; i++) children[i].add(fields[i]);
    this.rows++;
    this.estimated += rowBytes(fields) + fields.length;
    if (this.estimated >= this.stripeBytes) this.writeStripe();
  }

  private writeStripe(): void {
    if (this.rows === 0) return;
    // the root struct has a value per row and no nulls
    this.root.count = this.rows;
    this.root.nonNull = this.rows;
    const streams: StripeStream[] = [];
    const encodings: ColumnEncoding[] = [];
    const stats: ColumnStatistics[] = [];
    for (const w of this.writers) w.flush(streams, this.codec, encodings, stats);
    const start = this.offset;
    let dataLength = 0;
    const listed: Stream[] = [];
    for (const s of streams) {
      this.out.write(s.bytes);
      dataLength += s.bytes.length;
      listed.push({ kind: s.kind, column: s.column, length: BigInt(s.bytes.length) });
    }
    const footer = compress(
      this.codec,
      StripeFooter.encode({ streams: listed, columns: encodings, writerTimezone: 'GMT' }).finish(),
      ORC_BLOCK_SIZE,
    );
    this.out.write(footer);
    this.offset += dataLength + footer.length;
    this.stripes.push({
      offset: BigInt(start),
      indexLength: 0n,
      dataLength: BigInt(dataLength),
      footerLength: BigInt(footer.length),
      numberOfRows: BigInt(this.rows),
    });
    this.stripeStats.push(stats);
    this.totalRows += this.rows;
    this.rows = 0;
    this.estimated = 0;
  }

  take(): Uint8Array | undefined {
    if (this.out.length === 0) return undefined;
    const bytes = this.out.bytes();
    this.out = new ByteSink();
    return bytes;
  }

  finish(): Uint8Array | undefined {
    this.writeStripe();
    const metadata = compress(
      this.codec,
      Metadata.encode({ stripeStats: this.stripeStats.map((colStats) => ({ colStats })) }).finish(),
      ORC_BLOCK_SIZE,
    );
    const footer = compress(
      this.codec,
      Footer.encode({
        headerLength: 3n,
        contentLength: BigInt(this.offset),
        stripes: this.stripes,
        types: this.types,
        metadata: [],
        numberOfRows: BigInt(this.totalRows),
        statistics: this.writers.map((w) => ({ numberOfValues: BigInt(w.id === 0 ? this.totalRows : w.fileValues), hasNull: w.fileNulls })),
        rowIndexStride: 0,
        calendar: CalendarKind.PROLEPTIC_GREGORIAN,
        softwareVersion: 'Tideway',
      }).finish(),
      ORC_BLOCK_SIZE,
    );
    const ps = PostScript.encode({
      footerLength: BigInt(footer.length),
      compression: this.codec,
      compressionBlockSize: BigInt(ORC_BLOCK_SIZE),
      version: [0, 12],
      metadataLength: BigInt(metadata.length),
      writerVersion: 6,
      magic: 'ORC',
    }).finish();
    this.out.write(metadata);
    this.out.write(footer);
    this.out.write(ps);
    this.out.byte(ps.length);
    return this.take();
  }
}
