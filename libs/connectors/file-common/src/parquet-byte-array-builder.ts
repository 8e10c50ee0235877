import type { SchemaElement } from 'hyparquet';
import { ColumnBuilder, type MinMax } from './parquet-column-builder.js';

/**
 * A string dictionary is given up (for the rest of the file) past this many entries or bytes:
 * parquet-mr's default dictionary page is 1 MB.
 */
export const MAX_DICTIONARY_ENTRIES = 32_768;
export const MAX_DICTIONARY_BYTES = 1 << 20;

/** Strings shorter than this are copied as ASCII by a loop: cheaper than a native call. */
const SHORT = 48;

/**
 * Writes `s` as a PLAIN BYTE_ARRAY (4-byte length, UTF-8) at `at`; `buf` has room for 4 + 3 *
 * s.length bytes. Returns the UTF-8 byte length.
 */
function putString(buf: Buffer, at: number, s: string): number {
  const n = s.length;
  let len = -1;
  if (n < SHORT) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) break;
      buf[at + 4 + i] = c;
    }
    if (i === n) len = n;
  }
  if (len < 0) len = buf.write(s, at + 4);
  buf.writeUInt32LE(len, at);
  return len;
}

function grownBuffer(buf: Buffer, need: number): Buffer {
  if (need <= buf.length) return buf;
  const b = Buffer.allocUnsafe(Math.max(need, buf.length * 2));
  buf.copy(b);
  return b;
}

function grownInts(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** Positions of the smallest and largest of `n` PLAIN values in `buf` (starting at starts[i], the last ending at `end`), unsigned byte order. */
function byteMinMax(buf: Buffer, starts: Int32Array, n: number, end: number): MinMax {
  if (n === 0) return {};
  const endOf = (i: number) => (i + 1 < n ? starts[i + 1] : end);
  let min = 0;
  let max = 0;
  for (let i = 1; i < n; i++) {
    const s = starts[i] + 4;
    const e = endOf(i);
    if (buf.compare(buf, starts[min] + 4, endOf(min), s, e) < 0) min = i;
    else if (buf.compare(buf, starts[max] + 4, endOf(max), s, e) > 0) max = i;
  }
  return { min_value: buf.subarray(starts[min] + 4, endOf(min)).slice(), max_value: buf.subarray(starts[max] + 4, endOf(max)).slice() };
}

/**
 * BYTE_ARRAY columns (string, bytes) in PLAIN layout, or for strings RLE_DICTIONARY: entries in
 * a dictionary buffer and an index per value, until the dictionary grows past its limits.
 */
export class ByteArrayBuilder extends ColumnBuilder {
  private buf: Buffer = Buffer.allocUnsafe(1 << 16);
  private pos = 0;
  private starts: Int32Array = new Int32Array(4096);
  /** Dictionary mode: entry of each string, entries PLAIN in dictBuf, an index per value. */
  private dict: Map<string, number> | undefined;
  private dictBuf: Buffer = Buffer.allocUnsafe(0);
  private dictPos = 0;
  private dictStarts: Int32Array = new Int32Array(0);
  private indices: Int32Array = new Int32Array(0);
  /** Every string so far was ASCII: JS string order is then byte order, and min/max are kept as strings. */
  private ascii = true;
  private minS: string | undefined;
  private maxS: string | undefined;

  constructor(
    element: SchemaElement,
    private readonly text: boolean,
  ) {
    super(element);
    if (text) this.enterDictionary();
  }

  private enterDictionary(): void {
    this.dict = new Map();
    this.dictBuf = Buffer.allocUnsafe(1 << 14);
    this.dictStarts = new Int32Array(1024);
    this.indices = new Int32Array(4096);
  }

  addColumn(rows: readonly (readonly unknown[])[], r0: number, r1: number, col: number): void {
    for (let r = r0; r < r1; r++) this.add(rows[r][col]);
  }

  protected push(v: unknown): void {
    if (!this.text) return typeof v === 'string' ? this.pushString(v) : this.pushBytes(v as Uint8Array);
    const s = typeof v === 'string' ? v : String(v);
    if (this.dict === undefined) return this.pushString(s);
    let idx = this.dict.get(s);
    if (idx === undefined) {
      idx = this.dict.size;
      if (idx >= MAX_DICTIONARY_ENTRIES || this.dictPos >= MAX_DICTIONARY_BYTES) {
        this.leaveDictionary();
        return this.pushString(s);
      }
      this.dict.set(s, idx);
      if (idx === this.dictStarts.length) this.dictStarts = grownInts(this.dictStarts, idx + 1);
      this.dictBuf = grownBuffer(this.dictBuf, this.dictPos + 4 + 3 * s.length);
      this.dictStarts[idx] = this.dictPos;
      const len = putString(this.dictBuf, this.dictPos, s);
      if (len !== s.length) this.ascii = false;
      this.dictPos += 4 + len;
    }
    if (this.count === this.indices.length) this.indices = grownInts(this.indices, this.count + 1);
    this.indices[this.count] = idx;
  }

  private pushString(s: string): void {
    if (this.count === this.starts.length) this.starts = grownInts(this.starts, this.count + 1);
    this.buf = grownBuffer(this.buf, this.pos + 4 + 3 * s.length);
    this.starts[this.count] = this.pos;
    const len = putString(this.buf, this.pos, s);
    this.pos += 4 + len;
    if (len !== s.length) this.ascii = false;
    if (this.minS === undefined || s < this.minS) this.minS = s;
    if (this.maxS === undefined || s > this.maxS) this.maxS = s;
  }

  private pushBytes(b: Uint8Array): void {
    if (this.count === this.starts.length) this.starts = grownInts(this.starts, this.count + 1);
    this.buf = grownBuffer(this.buf, this.pos + 4 + b.length);
    this.starts[this.count] = this.pos;
    this.buf.writeUInt32LE(b.length, this.pos);
    this.buf.set(b, this.pos + 4);
    this.pos += 4 + b.length;
  }

  /** Turns the values so far into PLAIN ones; the column stays PLAIN for the rest of the file. */
  private leaveDictionary(): void {
    const dict = this.dict!;
    for (const s of dict.keys()) {
      if (this.minS === undefined || s < this.minS) this.minS = s;
      if (this.maxS === undefined || s > this.maxS) this.maxS = s;
    }
    this.starts = grownInts(this.starts, this.count + 1);
    for (let i = 0; i < this.count; i++) {
      const e = this.indices[i];
      const from = this.dictStarts[e];
      const len = this.dictBuf.readUInt32LE(from) + 4;
      this.buf = grownBuffer(this.buf, this.pos + len);
      this.dictBuf.copy(this.buf, this.pos, from, from + len);
      this.starts[i] = this.pos;
      this.pos += len;
    }
    this.dict = undefined;
    this.dictBuf = Buffer.allocUnsafe(0);
    this.dictStarts = new Int32Array(0);
    this.indices = new Int32Array(0);
  }

  /** The dictionary of this row group (entries PLAIN, count), when the column is dictionary-encoded. */
  dictionary(): { readonly entries: Uint8Array; readonly size: number } | undefined {
    // a row group of nulls only has no dictionary to write: its (empty) pages are PLAIN
    return this.dict === undefined || this.dict.size === 0
      ? undefined
      : { entries: this.dictBuf.subarray(0, this.dictPos), size: this.dict.size };
  }

  /** Dictionary indices of values [v0, v1). */
  dictionaryIndices(v0: number, v1: number): Int32Array {
    return this.indices.subarray(v0, v1);
  }

  bytes(): number {
    return this.dict === undefined ? this.pos : this.count * 4 + this.dictPos;
  }

  plain(v0: number, v1: number): Uint8Array {
    if (v0 === v1) return this.buf.subarray(0, 0); // starts[v0] may be left from an earlier row group
    return this.buf.subarray(this.starts[v0], v1 < this.count ? this.starts[v1] : this.pos);
  }

  statistics(): MinMax {
    if (this.count === 0) return {};
    if (this.dict !== undefined) {
      if (!this.ascii) return byteMinMax(this.dictBuf, this.dictStarts, this.dict.size, this.dictPos);
      let min: string | undefined;
      let max: string | undefined;
      for (const s of this.dict.keys()) {
        if (min === undefined || s < min) min = s;
        if (max === undefined || s > max) max = s;
      }
      return { min_value: Buffer.from(min!), max_value: Buffer.from(max!) };
    }
    if (!this.text || !this.ascii) return byteMinMax(this.buf, this.starts, this.count, this.pos);
    return { min_value: Buffer.from(this.minS!), max_value: Buffer.from(this.maxS!) };
  }

  override reset(): void {
    super.reset();
    this.pos = 0;
    this.dict?.clear();
    this.dictPos = 0;
    this.ascii = true;
    this.minS = undefined;
    this.maxS = undefined;
  }
}
