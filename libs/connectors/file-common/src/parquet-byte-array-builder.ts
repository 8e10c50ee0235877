import type { SchemaElement } from 'hyparquet';
import { ColumnBuilder, grown, levelOf, type RawValues, takeOver } from './parquet-column-builder.js';
import type { Rows } from './file-encoder.js';
import type { RawColumn } from './parquet-row-group.js';

/**
 * Strings shorter than this are copied as ASCII by a loop: cheaper than a native call (about 1.8
 * ns a character against some 50 ns a call on the orders bench's strings; 32 was 3-7% faster
 * than 48 over its five string columns, with `utf8Write`).
 */
const SHORT = 32;

/** Node's Buffer#utf8Write (what Buffer#write calls for UTF-8, without its argument handling: about 20 ns less a call). */
export type Utf8Buffer = Buffer & { utf8Write(s: string, offset: number): number };

/** Writes `s` as UTF-8 at `at` (`buf` has room for 3 * s.length bytes) and returns its byte length; the ORC writer's strings too. */
export function writeUtf8(buf: Utf8Buffer, at: number, s: string): number {
  const n = s.length;
  if (n < SHORT) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) break;
      buf[at + i] = c;
    }
    if (i === n) return n;
  }
  return buf.utf8Write(s, at);
}

/**
 * Writes `s` as a PLAIN BYTE_ARRAY (4-byte length, UTF-8) at `at`; `buf` has room for 4 + 3 *
 * s.length bytes. Returns the UTF-8 byte length.
 */
function putString(buf: Utf8Buffer, at: number, s: string): number {
  const len = writeUtf8(buf, at + 4, s);
  // the length's bytes, little-endian (writeUInt32LE checks its arguments first)
  buf[at] = len;
  buf[at + 1] = len >>> 8;
  buf[at + 2] = len >>> 16;
  buf[at + 3] = len >>> 24;
  return len;
}

export function grownBuffer(buf: Buffer, need: number): Buffer {
  if (need <= buf.length) return buf;
  const b = Buffer.allocUnsafeSlow(Math.max(need, buf.length * 2));
  buf.copy(b);
  return b;
}

/**
 * BYTE_ARRAY columns (string, bytes): values PLAIN (4-byte length, bytes) in one buffer. Whether a
 * string chunk is dictionary-encoded, and its min/max, are found from these bytes when the row
 * group is encoded (parquet-row-group.ts), on the row-group thread.
 */
export class ByteArrayBuilder extends ColumnBuilder {
  private buf: Buffer = Buffer.allocUnsafeSlow(1 << 16);
  private pos = 0;
  private starts: Int32Array = new Int32Array(4096);

  constructor(
    element: SchemaElement,
    private readonly text: boolean,
  ) {
    super(element);
  }

  protected storeRows(rows: Rows, col: number, r0: number, r1: number, defs: Uint8Array, at: number): number {
    const c0 = this.count;
    this.starts = grown(this.starts, c0 + r1 - r0);
    const starts = this.starts;
    const text = this.text;
    let buf = this.buf;
    let pos = this.pos;
    let c = c0;
    for (let r = r0; r < r1; r++) {
      const v = rows[r][col];
      if (levelOf(defs, at++, v) === 0) continue;
      starts[c++] = pos;
      if (typeof v === 'string' || text) {
        const s = typeof v === 'string' ? v : String(v);
        if (pos + 4 + 3 * s.length > buf.length) buf = grownBuffer(buf, pos + 4 + 3 * s.length);
        pos += 4 + putString(buf as Utf8Buffer, pos, s);
      } else {
        const b = v as Uint8Array;
        if (pos + 4 + b.length > buf.length) buf = grownBuffer(buf, pos + 4 + b.length);
        buf.writeUInt32LE(b.length, pos);
        buf.set(b, pos + 4);
        pos += 4 + b.length;
      }
    }
    this.buf = buf;
    this.pos = pos;
    return c - c0;
  }

  bytes(): number {
    return this.pos;
  }

  raw(): RawValues {
    return { values: this.buf.subarray(0, this.pos), fixed: 0, starts: this.starts.subarray(0, this.count), dictionary: this.text };
  }

  protected swapValues(spare: RawColumn | undefined): void {
    this.buf = spare ? Buffer.from(spare.values.buffer) : Buffer.allocUnsafeSlow(this.buf.length);
    this.starts = takeOver(this.starts, spare?.starts);
  }

  override reset(): void {
    super.reset();
    this.pos = 0;
  }
}
