const TWO_32 = 4294967296;
/** Text up to this many UTF-16 units is tried as ASCII in JavaScript before the native encoder. */
const SHORT_TEXT = 24;

/**
 * Node's Buffer#utf8Write: what Buffer#write calls for UTF-8, without its argument handling
 * (in the PG -> PG job's profile that handling took longer than the UTF-8 copy itself).
 */
type Utf8Buffer = Buffer & { utf8Write(s: string, offset: number): number };

/** A growing output buffer with big-endian writes. */
export class ByteSink {
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

  /** A float4 or float8 field, length prefix included. */
  float(v: number, bytes: 4 | 8): void {
    this.ensure(4 + bytes);
    this.int32(bytes);
    if (bytes === 4) this.view.setFloat32(this.pos, v);
    else this.view.setFloat64(this.pos, v);
    this.pos += bytes;
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
    // ensure() left room for three bytes per UTF-16 unit, UTF-8's most: nothing is cut.
    if (n < len) n = (buf as Utf8Buffer).utf8Write(s, start);
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

  /** Leaves what was written to whoever took it: writing starts over in a new buffer of the same capacity. */
  renew(): void {
    this.buf = Buffer.allocUnsafe(this.capacity);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos = 0;
  }
}

/**
 * Writes one non-null value as a length-prefixed binary field. Returns false, having written
 * nothing, when the value has no exact binary form here (an out-of-range number, a date before
 * year 1, an exponent in a decimal): the batch is then sent as text, which PostgreSQL parses
 * (or rejects) as it always would.
 */
export type FieldWriter = (out: ByteSink, v: unknown) => boolean;
