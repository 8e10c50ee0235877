import { type Column, type DataType, formatType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { columnError, type FileEncoder, type Rows } from './file-encoder.js';
import {
  CalendarKind,
  type ColumnStatistics,
  CompressionKind,
  Footer,
  Metadata,
  PostScript,
  type StripeInformation,
  type Type,
  Type_Kind,
} from './gen/orc_file.js';
import { compress } from './orc-compression.js';
import { type EncodedOrcStripe, encodeOrcStripe, ORC_BLOCK_SIZE, type OrcStripeJob, type RawOrcColumn } from './orc-stripe.js';
import { collectOrcStripe, type RowGroupTicket, startRowGroupThread, submitOrcStripe } from './row-group-thread.js';
import { grownBuffer, type Utf8Buffer, writeUtf8 } from './parquet-byte-array-builder.js';
import { grown } from './parquet-column-builder.js';
import { ByteSink, type OrcInt } from './orc-rle.js';
import { dateDays, unscaledDecimal } from './parquet-values.js';
import { daysFromCivil, parseDateDays, parseUnscaled } from './parquet-text-parse.js';

/**
 * Tideway's ORC writer (docs/decisions/0011-orc.md): file format 0.12, integers in RLE v2,
 * strings by dictionary when at most 80% of a stripe's values are distinct, and of its first
 * 10,000 (direct otherwise, as ORC's Java writer decides on its first row group), a present
 * stream only where a stripe has nulls, stripes of about ORC_STRIPE_BYTES of buffered values, encoded by orc-stripe.ts (on the row-group thread), each stream compressed in blocks of 256 KB; column statistics
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

/** A stripe is cut once its buffered values take about this many bytes (ColumnWriter.size). */
export const ORC_STRIPE_BYTES = 16 * 1024 * 1024;
const ORC_EPOCH = 1_420_070_400; // 2015-01-01T00:00:00Z

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

function toInt(v: unknown): OrcInt {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'bigint') {
    // a safe integer only when exact: a bigint past 2^53 converts to a number past it (no BigInt comparisons)
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }
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

/** A string value, or the text of another (as a string column takes any value). */
const textOf = (v: unknown): string => (typeof v === 'string' ? v : String(v));

/** The used part of a typed array, copied into an array of its own (handed to the row-group thread; the writer keeps its buffer). */
function used<T extends Uint8Array | Int32Array | Float32Array | Float64Array>(a: T, n: number): T {
  return a.slice(0, n) as T;
}

/**
 * One column of the file being written. Values go, as they arrive, into typed arrays or one byte
 * buffer per column (decision 0011, "Speed"), kept from stripe to stripe; when the stripe is cut
 * their used parts are copied out (`detach`) and encoded (orc-stripe.ts).
 */
abstract class ColumnWriter {
  /** Values (nulls too) of the stripe so far. */
  count = 0;
  nonNull = 0;
  /** Bytes the stripe's values take, about (a null one): the stripe is cut on their sum. */
  size = 0;
  /** Where the stripe's nulls are: the present stream is made from them, when there are any. */
  private nulls: number[] = [];
  fileValues = 0;
  fileNulls = false;

  constructor(readonly id: number) {}

  add(v: unknown): void {
    if (v === null || v === undefined) this.addNull();
    else {
      this.addValue(v);
      this.count++;
      this.nonNull++;
    }
  }

  protected addNull(): void {
    this.nulls.push(this.count++);
    this.size++;
    this.fileNulls = true;
  }

  /**
   * Adds rows[r][col] for r in [r0, r1). The leaf writers each have a loop of their own (a call
   * of one class's addValue, which the compiler inlines), where `add` called column after column
   * goes through every class's addValue from one call site.
   */
  addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    for (let r = r0; r < r1; r++) this.add(rows[r][col]);
  }

  protected abstract addValue(v: unknown): void;
  /** The stripe's values (copied out) for its encoding; the writer empties its own. */
  protected abstract detachValues(): Omit<RawOrcColumn, 'id' | 'count' | 'nonNull' | 'nulls'>;

  /** Every writer of this subtree, pre-order. */
  all(): ColumnWriter[] {
    return [this];
  }

  /** The stripe's column, its statistics in `stats`; empties the column for the next stripe. */
  detach(stats: ColumnStatistics[]): RawOrcColumn {
    const hasNull = this.nulls.length > 0;
    stats[this.id] = { numberOfValues: BigInt(this.nonNull), hasNull };
    this.fileValues += this.nonNull;
    const raw: RawOrcColumn = {
      id: this.id,
      count: this.count,
      nonNull: this.nonNull,
      ...(hasNull && { nulls: Int32Array.from(this.nulls) }),
      ...this.detachValues(),
    };
    this.nulls = [];
    this.count = 0;
    this.nonNull = 0;
    this.size = 0;
    return raw;
  }
}

class BooleanWriter extends ColumnWriter {
  private bits = new Uint8Array(1024);
  override addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (v === null || v === undefined) this.addNull();
      else {
        this.addValue(v);
        this.count++;
        this.nonNull++;
      }
    }
  }
  protected addValue(v: unknown): void {
    const n = this.nonNull;
    if (n === this.bits.length) this.bits = grown(this.bits, n + 1);
    this.bits[n] = v ? 1 : 0;
    this.size++;
  }
  protected detachValues() {
    return { kind: 'boolean' as const, values: used(this.bits, this.nonNull) };
  }
}

class ByteWriter extends ColumnWriter {
  private bytes = new Uint8Array(1024);
  override addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (v === null || v === undefined) this.addNull();
      else {
        this.addValue(v);
        this.count++;
        this.nonNull++;
      }
    }
  }
  protected addValue(v: unknown): void {
    const n = this.nonNull;
    if (n === this.bytes.length) this.bytes = grown(this.bytes, n + 1);
    this.bytes[n] = Number(v) & 0xff;
    this.size++;
  }
  protected detachValues() {
    return { kind: 'byte' as const, values: used(this.bytes, this.nonNull) };
  }
}

/** A stripe's integers: in a Float64Array while each fits a number exactly, in an array once a bigint does not. */
class Ints {
  values = new Float64Array(1024);
  big: OrcInt[] | undefined;
  n = 0;
  push(x: OrcInt): void {
    const n = this.n;
    if (typeof x === 'number' && this.big === undefined) {
      if (n === this.values.length) this.values = grown(this.values, n + 1);
      this.values[n] = x;
    } else {
      this.big ??= Array.from(this.values.subarray(0, n));
      this.big.push(x);
    }
    this.n = n + 1;
  }
  /** The values (copied out, or the bigints' array), and empties them. */
  detach(): { values?: Float64Array; big?: OrcInt[] } {
    const out = this.big ? { big: this.big } : { values: used(this.values, this.n) };
    this.n = 0;
    this.big = undefined;
    return out;
  }
}

class IntWriter extends ColumnWriter {
  private readonly values = new Ints();
  constructor(
    id: number,
    private readonly convert: (v: unknown) => OrcInt,
  ) {
    super(id);
  }
  override addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (v === null || v === undefined) this.addNull();
      else {
        this.addValue(v);
        this.count++;
        this.nonNull++;
      }
    }
  }
  protected addValue(v: unknown): void {
    this.values.push(this.convert(v));
    this.size += 8;
  }
  protected detachValues() {
    return { kind: 'int' as const, ...this.values.detach() };
  }
}

class FloatWriter extends ColumnWriter {
  private values: Float32Array | Float64Array;
  constructor(id: number, width: 4 | 8) {
    super(id);
    this.values = width === 4 ? new Float32Array(1024) : new Float64Array(1024);
  }
  override addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (v === null || v === undefined) this.addNull();
      else {
        this.addValue(v);
        this.count++;
        this.nonNull++;
      }
    }
  }
  protected addValue(v: unknown): void {
    const n = this.nonNull;
    if (n === this.values.length) this.values = grown(this.values, n + 1);
    this.values[n] = Number(v);
    this.size += this.values.BYTES_PER_ELEMENT;
  }
  protected detachValues() {
    return { kind: 'float' as const, values: used(this.values, this.nonNull) };
  }
}

/**
 * Strings and binary: each value's bytes (UTF-8 for a string) written, as it arrives, into one
 * buffer, its length beside; whether a string column's stripe goes by dictionary is decided on
 * those bytes when the stripe is encoded.
 */
class StringWriter extends ColumnWriter {
  private buf = Buffer.allocUnsafeSlow(1 << 16) as Utf8Buffer;
  private pos = 0;
  private lengths = new Int32Array(1024);

  constructor(
    id: number,
    private readonly binary: boolean,
  ) {
    super(id);
  }

  protected addValue(v: unknown): void {
    let len: number;
    if (this.binary) {
      const b = v as Uint8Array;
      if (this.pos + b.length > this.buf.length) this.buf = grownBuffer(this.buf, this.pos + b.length) as Utf8Buffer;
      this.buf.set(b, this.pos);
      len = b.length;
    } else {
      const s = textOf(v);
      if (this.pos + 3 * s.length > this.buf.length) this.buf = grownBuffer(this.buf, this.pos + 3 * s.length) as Utf8Buffer;
      len = writeUtf8(this.buf, this.pos, s);
    }
    this.pos += len;
    this.size += len + 4;
    const k = this.nonNull;
    if (k === this.lengths.length) this.lengths = grown(this.lengths, k + 1);
    this.lengths[k] = len;
  }

  /** A slice's strings, joined and written in one call when they are all ASCII (a byte a character). */
  private readonly parts: string[] = [];

  override addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    if (this.binary) {
      super.addColumn(rows, col, r0, r1);
      return;
    }
    const parts = this.parts;
    const first = this.nonNull;
    if (this.lengths.length < first + (r1 - r0)) this.lengths = grown(this.lengths, first + (r1 - r0));
    const lengths = this.lengths;
    let n = 0;
    let chars = 0;
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (v === null || v === undefined) this.addNull();
      else {
        const s = textOf(v);
        parts[n] = s;
        lengths[first + n++] = s.length;
        chars += s.length;
        this.count++;
      }
    }
    if (n === 0) return;
    parts.length = n;
    const at = this.pos;
    if (at + 3 * chars > this.buf.length) this.buf = grownBuffer(this.buf, at + 3 * chars) as Utf8Buffer;
    const written = this.buf.utf8Write(parts.join(''), at);
    if (written === chars) {
      // all ASCII: each string's length is its bytes'
      this.pos = at + written;
      this.size += written + 4 * n;
      this.nonNull = first + n;
    } else {
      // some are not ASCII: again one by one, for each one's byte length
      this.pos = at;
      for (let i = 0; i < n; i++) {
        this.addValue(parts[i]);
        this.nonNull++;
      }
    }
  }

  protected detachValues() {
    const bytes = Uint8Array.prototype.slice.call(this.buf, 0, this.pos);
    this.pos = 0;
    return { kind: this.binary ? ('binary' as const) : ('string' as const), bytes, values: used(this.lengths, this.nonNull) };
  }
}

class DecimalWriter extends ColumnWriter {
  private readonly sink = new ByteSink();
  /** 10^precision: an unscaled value's magnitude must stay below it (readers take the type's precision as the bound). */
  private readonly limitN: number;
  private readonly limitB: bigint;
  constructor(
    id: number,
    private readonly precision: number,
    private readonly scale: number,
  ) {
    super(id);
    this.limitN = 10 ** precision;
    this.limitB = 10n ** BigInt(precision);
  }
  override addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (v === null || v === undefined) this.addNull();
      else {
        this.addValue(v);
        this.count++;
        this.nonNull++;
      }
    }
  }
  protected addValue(v: unknown): void {
    const text = typeof v === 'string' ? v : (v as number | bigint).toString();
    // up to 15 digits as a number (exact), wider through BigInt
    const n = parseUnscaled(text, this.scale);
    const u = Number.isNaN(n) ? unscaledDecimal(text, this.scale) : n;
    if (typeof u === 'number' ? u >= this.limitN || u <= -this.limitN : u >= this.limitB || u <= -this.limitB) {
      throw new RangeError(`The decimal ${text} has more digits than DECIMAL(${this.precision}, ${this.scale}) holds.`);
    }
    this.sink.svarint(u);
    this.size += 8;
  }
  protected detachValues() {
    const bytes = this.sink.bytes().slice();
    this.sink.length = 0;
    return { kind: 'decimal' as const, bytes, scale: this.scale };
  }
}

class TimestampWriter extends ColumnWriter {
  private readonly secs = new Ints();
  private readonly nanos = new Ints();
  constructor(
    id: number,
    private readonly withZone: boolean,
  ) {
    super(id);
  }
  private readonly parsed: [number, number] = [0, 0];
  override addColumn(rows: Rows, col: number, r0: number, r1: number): void {
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (v === null || v === undefined) this.addNull();
      else {
        this.addValue(v);
        this.count++;
        this.nonNull++;
      }
    }
  }
  protected addValue(v: unknown): void {
    const text = typeof v === 'string' ? v : String(v);
    const [s, ns] = !this.withZone && fastSecondsAndNanos(text, this.parsed) ? this.parsed : secondsAndNanos(text, this.withZone);
    // ORC's writers truncate toward zero before 1970: readers take one second back
    this.secs.push(s - ORC_EPOCH + (s < 0 && ns > 999_999 ? 1 : 0));
    this.nanos.push(encodeNanos(ns));
    this.size += 12;
  }
  protected detachValues() {
    const nanos = this.nanos.detach();
    return { kind: 'timestamp' as const, ...this.secs.detach(), nanos: nanos.values, bigNanos: nanos.big };
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
  protected detachValues() {
    return { kind: 'struct' as const };
  }
}

class ListWriter extends ColumnWriter {
  private readonly lengths = new Ints();
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
      for (const [k, val] of entries) {
        this.element.add(k);
        this.value.add(val);
      }
      this.lengths.push(entries.length);
      this.size += 4;
      return;
    }
    const items = v as readonly unknown[];
    for (const item of items) this.element.add(item);
    this.lengths.push(items.length);
    this.size += 4;
  }
  override all(): ColumnWriter[] {
    return [this, ...this.element.all(), ...(this.value ? this.value.all() : [])];
  }
  protected detachValues() {
    return { kind: 'list' as const, ...this.lengths.detach() };
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
      return new DecimalWriter(id, type.precision, type.scale);
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

/** Rows of a batch taken at a time by addRows, column by column: the stripe's size is looked at between slices. */
const SLICE = 1024;

/** Stripes handed to the row-group thread and not yet written; past this the writer waits for the oldest. */
const IN_FLIGHT = 2;

/** A stripe cut and not yet placed in the file: sent to the row-group thread, or encoded here. */
interface PendingStripe {
  readonly rows: number;
  readonly stats: ColumnStatistics[];
  readonly ticket?: RowGroupTicket;
  readonly encoded?: EncodedOrcStripe;
}

/**
 * Writes one ORC file: values go into column buffers as rows arrive (the column writers above);
 * once a stripe's values reach `stripeBytes` they are copied out and the stripe is encoded
 * (orc-stripe.ts) on the row-group thread while the next one fills, or here when there is no
 * thread (or it is still starting). `take` hands over the stripes written so far.
 */
export class OrcFileWriter implements FileEncoder {
  private readonly types: Type[] = [];
  private readonly root: StructWriter;
  private readonly writers: ColumnWriter[];
  /** The file's bytes not taken yet, in order. */
  private ready: Uint8Array[] = [Buffer.from('ORC')];
  private readonly pending: PendingStripe[] = [];
  private offset = 3;
  private readonly stripes: StripeInformation[] = [];
  private readonly stripeStats: ColumnStatistics[][] = [];
  private rows = 0;
  private totalRows = 0;
  /** A writer without a thread whose column writers take each probed row and drop it (`probe`). */
  private prober: OrcFileWriter | undefined;

  /** `thread`: encode stripes on the row-group thread when it can start (tests compare both ways). */
  constructor(
    private readonly columns: readonly Column[],
    private readonly codec: CompressionKind,
    private readonly stripeBytes = ORC_STRIPE_BYTES,
    private readonly thread = true,
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
    if (thread) startRowGroupThread(); // up by the first stripe, or that one is encoded here
  }

  /** The file's ORC types (pre-order, the root struct first): a caller may add attributes before `finish` (Iceberg's field ids). */
  get orcTypes(): Type[] {
    return this.types;
  }

  add(fields: readonly unknown[]): void {
    const children = this.root.children;
    for (let i = 0; i < children.length; i++) children[i].add(fields[i]);
    this.rows++;
    if (this.stripeSize() >= this.stripeBytes) this.cutStripe();
  }

  /**
   * Converts the row's values as `add` would, on column writers of its own that drop them after,
   * so a value no column of this file can hold throws naming its column and nothing is kept
   * (FileEncoder.probe).
   */
  probe(fields: readonly unknown[]): void {
    this.prober ??= new OrcFileWriter(this.columns, CompressionKind.NONE, Number.POSITIVE_INFINITY, false);
    const p = this.prober;
    const children = p.root.children;
    try {
      for (let i = 0; i < children.length; i++) {
        try {
          children[i].add(fields[i]);
        } catch (err) {
          throw columnError(this.columns[i].name, err);
        }
      }
    } finally {
      const dropped: ColumnStatistics[] = [];
      for (const w of p.writers) w.detach(dropped);
    }
  }

  addRows(rows: Rows, count: number, columns?: readonly number[]): void {
    const children = this.root.children;
    for (let r0 = 0; r0 < count; r0 += SLICE) {
      const r1 = Math.min(count, r0 + SLICE);
      for (let i = 0; i < children.length; i++) {
        const w = children[i];
        const col = columns === undefined ? i : columns[i];
        w.addColumn(rows, col, r0, r1);
      }
      this.rows += r1 - r0;
      if (this.stripeSize() >= this.stripeBytes) this.cutStripe();
    }
  }

  /** Bytes the stripe's values take, about: a value's own, and one a column per row. */
  private stripeSize(): number {
    let size = 0;
    for (const w of this.writers) size += w.size + w.count;
    return size;
  }

  /** Ends the stripe being filled: its values copied out and sent to be encoded. */
  private cutStripe(): void {
    if (this.rows === 0) return;
    // the root struct has a value per row and no nulls
    this.root.count = this.rows;
    this.root.nonNull = this.rows;
    const stats: ColumnStatistics[] = [];
    const job: OrcStripeJob = { codec: this.codec, columns: this.writers.map((w) => w.detach(stats)) };
    const ticket = this.thread ? submitOrcStripe(job) : undefined;
    this.pending.push({ rows: this.rows, stats, ticket, encoded: ticket ? undefined : encodeOrcStripe(job) });
    this.rows = 0;
    this.place(false);
  }

  /** Places the stripes encoded so far in the file, in order; waits for them all with `all`, and for the oldest while too many are out. */
  private place(all: boolean): void {
    while (this.pending.length > 0) {
      const p = this.pending[0];
      const wait = all || this.pending.length > IN_FLIGHT;
      const encoded = p.encoded ?? collectOrcStripe(p.ticket!, wait);
      if (encoded === undefined) return;
      this.pending.shift();
      this.ready.push(encoded.bytes);
      this.stripes.push({
        offset: BigInt(this.offset),
        indexLength: 0n,
        dataLength: BigInt(encoded.dataLength),
        footerLength: BigInt(encoded.footerLength),
        numberOfRows: BigInt(p.rows),
      });
      this.offset += encoded.bytes.length;
      this.stripeStats.push(p.stats);
      this.totalRows += p.rows;
    }
  }

  take(): Uint8Array | undefined {
    this.place(false);
    const parts = this.ready;
    if (parts.length === 0) return undefined;
    this.ready = [];
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  finish(): Uint8Array | undefined {
    this.cutStripe();
    this.place(true);
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
    this.ready.push(metadata, footer, ps, Uint8Array.of(ps.length));
    return this.take();
  }
}
