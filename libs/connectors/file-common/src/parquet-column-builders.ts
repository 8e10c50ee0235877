import type { DataType } from '@tideway/api';
import type { SchemaElement } from 'hyparquet';
import { ByteArrayBuilder } from './parquet-byte-array-builder.js';
import { ColumnBuilder, grown, levelOf, type LeafPlace, type MinMax, type RawValues, takeOver } from './parquet-column-builder.js';
import type { Rows } from './file-encoder.js';
import type { RawColumn } from './parquet-row-group.js';
import { timeMicros, timestampMicros, unscaledDecimal } from './parquet-values.js';
import {
  EXACT_DECIMAL_DIGITS,
  int64Out,
  parseDateDays,
  parseTimeMicros,
  parseTimestampMicros,
  parseUnscaled,
} from './parquet-text-parse.js';

/**
 * Column buffers of the Parquet writer (parquet-file-writer.ts): each primitive column's values
 * go, as rows arrive, into typed arrays or a byte buffer already in Parquet's PLAIN layout, with
 * a definition level (0 null, 1 present) per row, and min/max kept on the way; a leaf of a nested
 * column takes its levels from the shredding (`addLevel`). No per-value objects: a row group's
 * memory is its encoded size.
 */

/**
 * Columns of numbers in a typed array: INT32 (int, tinyint, smallint, date as days), FLOAT and
 * DOUBLE. min/max are of what the column holds (a float32 column compares the rounded value);
 * NaN fails both comparisons, so it takes no part (Parquet's rule), and min > max means no value
 * but NaN (or none) was seen.
 */
class NumberBuilder extends ColumnBuilder {
  protected min = Number.POSITIVE_INFINITY;
  protected max = Number.NEGATIVE_INFINITY;

  constructor(
    element: SchemaElement,
    protected values: Int32Array | Float32Array | Float64Array,
    private readonly width: 4 | 8,
    /** Parquet writes a float zero min as -0 and a zero max as +0. */
    private readonly floating: boolean,
  ) {
    super(element);
  }

  /** The number a present value is written as. */
  protected number(v: unknown): number {
    return v as number;
  }

  protected storeRows(rows: Rows, col: number, r0: number, r1: number, defs: Uint8Array, at: number): number {
    const c0 = this.count;
    this.values = grown(this.values, c0 + r1 - r0);
    const a = this.values;
    let c = c0;
    let min = this.min;
    let max = this.max;
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (levelOf(defs, at++, v) === 0) continue;
      a[c] = this.number(v);
      const x = a[c++];
      if (x < min) min = x;
      if (x > max) max = x;
    }
    this.min = min;
    this.max = max;
    return c - c0;
  }

  bytes(): number {
    return this.count * this.width;
  }

  raw(): RawValues {
    const { min, max } = this;
    const statistics =
      min > max
        ? {}
        : this.floating
          ? { min_value: min === 0 ? -0 : min, max_value: max === 0 ? 0 : max }
          : { min_value: min, max_value: max };
    return { values: new Uint8Array(this.values.buffer, 0, this.count * this.width), fixed: this.width, statistics };
  }

  protected swapValues(spare: RawColumn | undefined): void {
    this.values = takeOver(this.values, spare?.values);
  }

  override reset(): void {
    super.reset();
    this.min = Number.POSITIVE_INFINITY;
    this.max = Number.NEGATIVE_INFINITY;
  }
}

const DAY_MS = 86_400_000;

class DateBuilder extends NumberBuilder {
  constructor(element: SchemaElement) {
    super(element, new Int32Array(4096), 4, false);
  }

  protected override number(v: unknown): number {
    const s = v as string;
    const days = parseDateDays(s);
    if (!Number.isNaN(days)) return days;
    const ms = Date.parse(`${s}T00:00:00Z`);
    if (Number.isNaN(ms)) throw new TypeError(`A date value '${s}' is not a date (YYYY-MM-DD) and cannot be written to Parquet.`);
    return Math.round(ms / DAY_MS);
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * INT64 columns; timestamp and time values are stored as two 32-bit halves, without a BigInt.
 * `put` writes one value at a position, and min/max are kept by position.
 */
class Int64Builder extends ColumnBuilder {
  protected words: Int32Array = new Int32Array(8192);
  protected big: BigInt64Array = new BigInt64Array(this.words.buffer);
  protected minAt = 0;
  protected maxAt = 0;

  /** Writes value number `c`. */
  protected put(v: unknown, c: number): void {
    const b = typeof v === 'bigint' ? v : BigInt(v as number);
    if (b < INT64_MIN || b > INT64_MAX) throw new RangeError(`parquet INT64 value out of range: ${b}`);
    this.big[c] = b;
  }

  protected storeRows(rows: Rows, col: number, r0: number, r1: number, defs: Uint8Array, at: number): number {
    const c0 = this.count;
    if ((c0 + r1 - r0) * 2 > this.words.length) {
      this.words = grown(this.words, (c0 + r1 - r0) * 2);
      this.big = new BigInt64Array(this.words.buffer);
    }
    const w = this.words;
    // min/max by position, comparing the halves as a signed 64-bit number; the first value of a row group is both
    let minAt = c0 === 0 ? 0 : this.minAt;
    let maxAt = c0 === 0 ? 0 : this.maxAt;
    let c = c0;
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (levelOf(defs, at++, v) === 0) continue;
      this.put(v, c);
      const hi = w[c * 2 + 1];
      const lo = w[c * 2] >>> 0;
      const mh = w[minAt * 2 + 1];
      if (hi < mh || (hi === mh && lo < w[minAt * 2] >>> 0)) minAt = c;
      const xh = w[maxAt * 2 + 1];
      if (hi > xh || (hi === xh && lo > w[maxAt * 2] >>> 0)) maxAt = c;
      c++;
    }
    this.minAt = minAt;
    this.maxAt = maxAt;
    return c - c0;
  }

  bytes(): number {
    return this.count * 8;
  }

  raw(): RawValues {
    const statistics = this.count === 0 ? {} : { min_value: this.big[this.minAt], max_value: this.big[this.maxAt] };
    return { values: new Uint8Array(this.words.buffer, 0, this.count * 8), fixed: 8, statistics };
  }

  protected swapValues(spare: RawColumn | undefined): void {
    this.words = takeOver(this.words, spare?.values);
    this.big = new BigInt64Array(this.words.buffer);
  }
}

class TimestampBuilder extends Int64Builder {
  protected override put(v: unknown, c: number): void {
    const s = v as string;
    if (!parseTimestampMicros(s)) return super.put(timestampMicros(s), c);
    this.words[c * 2] = int64Out.lo;
    this.words[c * 2 + 1] = int64Out.hi;
  }
}

class TimeBuilder extends Int64Builder {
  protected override put(v: unknown, c: number): void {
    const s = v as string;
    const micros = parseTimeMicros(s);
    if (micros < 0) return super.put(timeMicros(s), c);
    // a time of day is below 2^37 microseconds: the high half is micros / 2^32
    this.words[c * 2] = micros % 4294967296;
    this.words[c * 2 + 1] = Math.floor(micros / 4294967296);
  }
}

class BooleanBuilder extends ColumnBuilder {
  private values: Uint8Array = new Uint8Array(4096);
  private seen = 0; // bit 1: false seen, bit 2: true seen

  protected storeRows(rows: Rows, col: number, r0: number, r1: number, defs: Uint8Array, at: number): number {
    const c0 = this.count;
    this.values = grown(this.values, c0 + r1 - r0);
    const a = this.values;
    let c = c0;
    let seen = this.seen;
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (levelOf(defs, at++, v) === 0) continue;
      const b = v ? 1 : 0;
      a[c++] = b;
      seen |= 1 << b;
    }
    this.seen = seen;
    return c - c0;
  }

  bytes(): number {
    return this.count >> 3;
  }

  raw(): RawValues {
    const statistics = this.seen === 0 ? {} : { min_value: !(this.seen & 1), max_value: (this.seen & 2) !== 0 };
    return { values: this.values.subarray(0, this.count), fixed: -1, statistics };
  }

  protected swapValues(spare: RawColumn | undefined): void {
    this.values = takeOver(this.values, spare?.values);
  }

  override reset(): void {
    super.reset();
    this.seen = 0;
  }
}

/** FIXED_LEN_BYTE_ARRAY decimals: big-endian two's complement unscaled values of `width` bytes. */
class DecimalBuilder extends ColumnBuilder {
  private values: Uint8Array;
  private readonly width: number;
  private readonly scale: number;
  private readonly exact: boolean; // every value fits a double exactly
  private readonly precision: number;
  /** 10^precision: an unscaled value's magnitude must stay below it (the bytes of `width` hold no more). */
  private readonly limitN: number;
  private readonly limitB: bigint;
  private minN = Number.POSITIVE_INFINITY;
  private maxN = Number.NEGATIVE_INFINITY;
  private minB: bigint | undefined;
  private maxB: bigint | undefined;

  constructor(element: SchemaElement) {
    super(element);
    this.width = element.type_length!;
    this.scale = element.scale ?? 0;
    this.precision = element.precision ?? 38;
    this.exact = this.precision <= EXACT_DECIMAL_DIGITS;
    this.limitN = 10 ** this.precision;
    this.limitB = 10n ** BigInt(this.precision);
    this.values = new Uint8Array(4096 * this.width);
  }

  protected storeRows(rows: Rows, col: number, r0: number, r1: number, defs: Uint8Array, at: number): number {
    const c0 = this.count;
    this.values = grown(this.values, (c0 + r1 - r0) * this.width);
    let c = c0;
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (levelOf(defs, at++, v) === 0) continue;
      const s = typeof v === 'string' ? v : String(v);
      const u = this.exact ? parseUnscaled(s, this.scale) : Number.NaN;
      if (Number.isNaN(u)) {
        const b = unscaledDecimal(s, this.scale);
        if (b >= this.limitB || b <= -this.limitB) this.tooWide(s);
        this.storeBig(b, c++);
      } else {
        if (u >= this.limitN || u <= -this.limitN) this.tooWide(s);
        this.storeNumber(u, c++);
      }
    }
    return c - c0;
  }

  /** A value the column's bytes cannot hold: written, it would come back as another number. */
  private tooWide(s: string): never {
    throw new RangeError(`The decimal ${s} has more digits than DECIMAL(${this.precision}, ${this.scale}) holds.`);
  }

  /** Writes unscaled value `n` (a safe integer) as value number `c`. */
  private storeNumber(n: number, c: number): void {
    if (n < this.minN) this.minN = n;
    if (n > this.maxN) this.maxN = n;
    const hi = Math.floor(n / 4294967296);
    const lo = n - hi * 4294967296;
    const a = this.values;
    const end = (c + 1) * this.width;
    for (let k = 0; k < this.width; k++) {
      a[end - 1 - k] = k < 4 ? (lo >>> (8 * k)) & 0xff : (hi >> (8 * (k - 4))) & 0xff;
    }
  }

  private storeBig(b: bigint, c: number): void {
    if (this.minB === undefined || b < this.minB) this.minB = b;
    if (this.maxB === undefined || b > this.maxB) this.maxB = b;
    const a = this.values;
    const end = (c + 1) * this.width;
    let x = b;
    for (let k = 0; k < this.width; k++) {
      a[end - 1 - k] = Number(x & 0xffn);
      x >>= 8n;
    }
  }

  bytes(): number {
    return this.count * this.width;
  }

  raw(): RawValues {
    return { values: this.values.subarray(0, this.count * this.width), fixed: this.width, statistics: this.statistics() };
  }

  protected swapValues(spare: RawColumn | undefined): void {
    this.values = takeOver(this.values, spare?.values);
  }

  private statistics(): MinMax {
    let min = this.minB;
    let max = this.maxB;
    if (this.minN !== Number.POSITIVE_INFINITY) {
      const mn = BigInt(this.minN);
      const mx = BigInt(this.maxN);
      if (min === undefined || mn < min) min = mn;
      if (max === undefined || mx > max) max = mx;
    }
    return min === undefined ? {} : { min_value: min, max_value: max! };
  }

  override reset(): void {
    super.reset();
    this.minN = Number.POSITIVE_INFINITY;
    this.maxN = Number.NEGATIVE_INFINITY;
    this.minB = undefined;
    this.maxB = undefined;
  }
}

/**
 * The builder of a column of primitive `type` whose schema element is `element` (a leaf of a
 * nested column at `place`), or undefined when the type is not primitive.
 */
export function columnBuilderOf(type: DataType, element: SchemaElement, place?: LeafPlace): ColumnBuilder | undefined {
  const builder = primitiveBuilderOf(type, element);
  return place ? builder?.asLeaf(place) : builder;
}

function primitiveBuilderOf(type: DataType, element: SchemaElement): ColumnBuilder | undefined {
  switch (type.kind) {
    case 'string':
      return new ByteArrayBuilder(element, true);
    case 'bytes':
      return new ByteArrayBuilder(element, false);
    case 'boolean':
      return new BooleanBuilder(element);
    case 'tinyint':
    case 'smallint':
    case 'int':
      return new NumberBuilder(element, new Int32Array(4096), 4, false);
    case 'date':
      return new DateBuilder(element);
    case 'bigint':
      return new Int64Builder(element);
    case 'timestamp':
      return new TimestampBuilder(element);
    case 'time':
      return new TimeBuilder(element);
    case 'float':
      return new NumberBuilder(element, new Float32Array(4096), 4, true);
    case 'double':
      return new NumberBuilder(element, new Float64Array(4096), 8, true);
    case 'decimal':
      return new DecimalBuilder(element);
    default:
      return undefined;
  }
}
