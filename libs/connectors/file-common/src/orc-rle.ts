/**
 * ORC's run-length encodings (specification v1, "Run Length Encoding"): byte RLE, booleans,
 * integer RLE v1 and v2 (all four sub-encodings) decoded; byte RLE, booleans and integer RLE v2
 * (short repeat, direct, delta) encoded. Integers are numbers while they fit exactly in one
 * (|v| < 2^53) and bigints beyond, so the common case stays in doubles.
 *
 * Decoders read a whole decompressed stream; a stream that ends early or holds more values than
 * asked is corrupt and throws an OrcCorruptError naming what was being read.
 */

import { f64, u8 } from './orc-arena.js';

/** A stream's bytes that do not decode: the reader adds the file, stripe and column. */
export class OrcCorruptError extends Error {}

export type OrcInt = number | bigint;

const TWO_32 = 2 ** 32;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A number when the bigint fits one exactly. */
function small(v: bigint): OrcInt {
  return v <= SAFE && v >= -SAFE ? Number(v) : v;
}

/** The bytes of one decompressed stream, read front to back. */
export class ByteSource {
  pos = 0;
  constructor(
    readonly buf: Uint8Array,
    private readonly what: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  byte(): number {
    if (this.pos >= this.buf.length) throw new OrcCorruptError(`the ${this.what} stream ends early (${this.buf.length} bytes)`);
    return this.buf[this.pos++];
  }

  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length)
      throw new OrcCorruptError(`the ${this.what} stream ends early (${this.buf.length} bytes, ${this.pos + n} needed)`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** An unsigned LEB128 varint (up to 64 bits; more is corrupt). */
  uvarint(): OrcInt {
    return this.varint(10);
  }

  /** A zigzag-encoded signed varint, unbounded (decimals' digits may pass 64 bits; 146 bytes hold 10^308). */
  svarint(): OrcInt {
    return unzigzag(this.varint(146));
  }

  /** An unsigned LEB128 varint of at most `maxBytes` bytes: a number up to 49 bits, in bigints past them. */
  private varint(maxBytes: number): OrcInt {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.byte();
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
    let big = BigInt(v);
    let shift = 49n;
    for (let i = 7; i < maxBytes; i++) {
      const b = this.byte();
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return small(big);
      shift += 7n;
    }
    throw new OrcCorruptError(`the ${this.what} stream has a varint longer than ${maxBytes} bytes`);
  }

  /** `n` bytes big-endian, unsigned. */
  bigEndian(n: number): OrcInt {
    if (n <= 6) {
      let v = 0;
      for (let i = 0; i < n; i++) v = v * 256 + this.byte();
      return v;
    }
    let v = 0n;
    for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(this.byte());
    return small(v);
  }
}

export function unzigzag(u: OrcInt): OrcInt {
  if (typeof u === 'number') return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  return small((u >> 1n) ^ -(u & 1n));
}

export function zigzag(v: OrcInt): OrcInt {
  if (typeof v === 'number') {
    const z = v >= 0 ? v * 2 : -v * 2 - 1;
    return z <= Number.MAX_SAFE_INTEGER ? z : v >= 0 ? BigInt(v) * 2n : BigInt(-v) * 2n - 1n;
  }
  return v >= 0n ? small(v << 1n) : small((-v << 1n) - 1n);
}

function add(a: OrcInt, b: OrcInt): OrcInt {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (Number.isSafeInteger(s)) return s;
  }
  return small(BigInt.asIntN(64, BigInt(a) + BigInt(b)));
}

/** Byte RLE: `count` bytes. */
export function readByteRle(s: ByteSource, count: number): Uint8Array {
  const out = u8(count);
  let n = 0;
  while (n < count) {
    const h = s.byte();
    if (h < 128) {
      const run = h + 3;
      if (n + run > count) throw new OrcCorruptError(`a byte run of ${run} passes the ${count} values expected`);
      out.fill(s.byte(), n, n + run);
      n += run;
    } else {
      const run = 256 - h;
      if (n + run > count) throw new OrcCorruptError(`${run} literal bytes pass the ${count} values expected`);
      out.set(s.bytes(run), n);
      n += run;
    }
  }
  return out;
}

/** A boolean stream (byte RLE of bits, most significant first): `count` 0/1 values. */
export function readBooleans(s: ByteSource, count: number): Uint8Array {
  const bytes = readByteRleAtLeast(s, Math.ceil(count / 8));
  const out = u8(count);
  for (let i = 0; i < count; i++) out[i] = (bytes[i >>> 3] >>> (7 - (i & 7))) & 1;
  return out;
}

/** Byte RLE of at least `count` bytes: a run may end past the bits needed (a writer's last byte of a stripe's bits). */
function readByteRleAtLeast(s: ByteSource, count: number): Uint8Array {
  const out = u8(count + 130);
  let n = 0;
  while (n < count) {
    const h = s.byte();
    if (h < 128) {
      out.fill(s.byte(), n, n + h + 3);
      n += h + 3;
    } else {
      out.set(s.bytes(256 - h), n);
      n += 256 - h;
    }
  }
  return out;
}

/** Decoded integers: a Float64Array while every one fits a number exactly, an array once a bigint does not. */
export type Ints = Float64Array | OrcInt[];

/** Where a decoder puts its integers (Ints), in a Float64Array until a bigint comes. */
class IntsOut {
  readonly nums: Float64Array;
  big: OrcInt[] | undefined;
  n = 0;
  constructor(readonly count: number) {
    this.nums = f64(count);
  }
  push(v: OrcInt): void {
    if (this.big !== undefined) this.big.push(v);
    else if (typeof v === 'number') this.nums[this.n] = v;
    else {
      this.big = Array.from(this.nums.subarray(0, this.n));
      this.big.push(v);
    }
    this.n++;
  }
  /** Room for `run` more, or the stream is corrupt. */
  check(run: number, what: string): void {
    if (this.n + run > this.count) throw new OrcCorruptError(`${what} of ${run} passes the ${this.count} integers expected`);
  }
  result(): Ints {
    return this.big ?? this.nums;
  }
}

/** Integer RLE v1: `count` integers. */
export function readIntRleV1(s: ByteSource, count: number, signed: boolean): Ints {
  const out = new IntsOut(count);
  const next = (): OrcInt => (signed ? unzigzag(s.uvarint()) : s.uvarint());
  while (out.n < count) {
    const h = s.byte();
    if (h < 128) {
      const run = h + 3;
      const d = s.byte();
      const delta = d < 128 ? d : d - 256;
      const base = next();
      if (out.n + run > count) throw new OrcCorruptError(`an integer run of ${run} passes the ${count} values expected`);
      for (let i = 0; i < run; i++) out.push(add(base, i * delta));
    } else {
      const run = 256 - h;
      if (out.n + run > count) throw new OrcCorruptError(`${run} literal integers pass the ${count} values expected`);
      for (let i = 0; i < run; i++) out.push(next());
    }
  }
  return out.result();
}

/** The bit widths the 5-bit width codes of RLE v2 stand for. */
const WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64];

/** The smallest width RLE v2 can encode that holds `bits` bits. */
export function closestFixedBits(bits: number): number {
  for (const w of WIDTHS) if (w >= bits) return w;
  return 64;
}

/** A run's unpacked values (a run holds at most 512), reused from run to run. */
const unpacked = new Float64Array(512);

/**
 * `n` unsigned values of `w` bits, most significant bit first, starting at a byte: in `unpacked`
 * (valid until the next call) when they all fit a number, in an array otherwise.
 */
function readPacked(s: ByteSource, w: number, n: number): ArrayLike<OrcInt> {
  const buf = s.buf;
  if (w % 8 === 0) {
    const bytes = w / 8;
    if (s.pos + n * bytes > buf.length) s.bytes(n * bytes); // throws: the stream ends early
    if (bytes > 6) {
      const out = new Array<OrcInt>(n);
      for (let i = 0; i < n; i++) out[i] = s.bigEndian(bytes);
      return out;
    }
    let at = s.pos;
    for (let i = 0; i < n; i++) {
      let v = 0;
      for (let b = 0; b < bytes; b++) v = v * 256 + buf[at++];
      unpacked[i] = v;
    }
    s.pos = at;
    return unpacked;
  }
  const need = Math.ceil((n * w) / 8);
  if (s.pos + need > buf.length) s.bytes(need); // throws: the stream ends early
  let at = s.pos;
  if (w <= 24) {
    // integer bit operations: at most 7 + 24 bits are held
    let acc = 0;
    let bits = 0;
    const mask = (1 << w) - 1;
    for (let i = 0; i < n; i++) {
      while (bits < w) {
        acc = ((acc << 8) | buf[at++]) >>> 0;
        bits += 8;
      }
      bits -= w;
      unpacked[i] = (acc >>> bits) & mask;
      acc &= (1 << bits) - 1;
    }
  } else {
    // w <= 30 here (40, 48, 56, 64 are whole bytes): the accumulator stays under 2^38
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      while (bits < w) {
        acc = acc * 256 + buf[at++];
        bits += 8;
      }
      const div = 2 ** (bits - w);
      const v = Math.floor(acc / div);
      acc -= v * div;
      bits -= w;
      unpacked[i] = v;
    }
  }
  s.pos = at;
  return unpacked;
}

/**
 * A DELTA run of numbers written straight into out.nums, as long as its last value is a safe
 * integer: a run is monotonic (its deltas all take deltaBase's sign), so every value between
 * two safe ends is safe and each sum exact, and a run that passes 2^53 ends past it. False (the
 * run's deltas unread, out.n unchanged) when it does, and the caller decodes the run the general
 * way.
 */
function deltaRun(s: ByteSource, out: IntsOut, base: number, deltaBase: number, w: number, n: number): boolean {
  const nums = out.nums;
  let at = out.n;
  let v = base;
  if (w === 0) {
    nums[at++] = v;
    for (let i = 1; i < n; i++) nums[at++] = v += deltaBase;
    // past 2^53 a sum rounds, but away from zero: a run that leaves the safe range ends outside it
    if (!Number.isSafeInteger(v)) return false;
    out.n = at;
    return true;
  }
  if (w > 48) return false;
  const pos = s.pos;
  nums[at++] = v;
  if (n > 1) {
    v += deltaBase;
    nums[at++] = v;
    const deltas = readPacked(s, w, n - 2);
    if (deltaBase < 0) for (let i = 0; i < n - 2; i++) nums[at++] = v -= deltas[i] as number;
    else for (let i = 0; i < n - 2; i++) nums[at++] = v += deltas[i] as number;
  }
  if (!Number.isSafeInteger(v)) {
    s.pos = pos;
    return false;
  }
  out.n = at;
  return true;
}

/** Integer RLE v2: `count` integers. */
export function readIntRleV2(s: ByteSource, count: number, signed: boolean): Ints {
  const out = new IntsOut(count);
  const run = 'an RLE v2 run';
  while (out.n < count) {
    const first = s.byte();
    switch (first >>> 6) {
      case 0: {
        // SHORT_REPEAT
        const width = ((first >>> 3) & 7) + 1;
        const n = (first & 7) + 3;
        out.check(n, run);
        const raw = s.bigEndian(width);
        const v = signed ? unzigzag(raw) : raw;
        if (typeof v === 'number' && out.big === undefined) {
          out.nums.fill(v, out.n, out.n + n);
          out.n += n;
        } else for (let i = 0; i < n; i++) out.push(v);
        break;
      }
      case 1: {
        // DIRECT
        const w = WIDTHS[(first >>> 1) & 0x1f];
        const n = (((first & 1) << 8) | s.byte()) + 1;
        out.check(n, run);
        const raw = readPacked(s, w, n);
        if (raw === unpacked && out.big === undefined) {
          const nums = out.nums;
          let at = out.n;
          if (signed)
            for (let i = 0; i < n; i++) {
              const u = unpacked[i];
              nums[at++] = u % 2 === 0 ? u / 2 : -(u + 1) / 2;
            }
          else for (let i = 0; i < n; i++) nums[at++] = unpacked[i];
          out.n = at;
        } else for (let i = 0; i < n; i++) out.push(signed ? unzigzag(raw[i]) : raw[i]);
        break;
      }
      case 2: {
        // PATCHED_BASE
        const w = WIDTHS[(first >>> 1) & 0x1f];
        const n = (((first & 1) << 8) | s.byte()) + 1;
        out.check(n, run);
        const third = s.byte();
        const baseBytes = ((third >>> 5) & 7) + 1;
        const pw = WIDTHS[third & 0x1f];
        const fourth = s.byte();
        const pgw = ((fourth >>> 5) & 7) + 1;
        const pll = fourth & 0x1f;
        let base = BigInt(s.bigEndian(baseBytes));
        const signBit = 1n << BigInt(baseBytes * 8 - 1);
        if (base & signBit) base = -(base & ~signBit);
        const patched: bigint[] = Array.from(readPacked(s, w, n), BigInt);
        const cfb = closestFixedBits(pw + pgw);
        if (cfb > 64) throw new OrcCorruptError('a patched-base run has patches wider than 64 bits');
        const patches = Array.from(readPacked(s, cfb, pll), BigInt);
        const patchMask = (1n << BigInt(pw)) - 1n;
        let at = 0;
        let p = 0;
        while (p < pll) {
          let gap = Number(patches[p] >> BigInt(pw));
          let patch = patches[p] & patchMask;
          while (gap === 255 && patch === 0n && p + 1 < pll) {
            at += 255;
            p++;
            gap = Number(patches[p] >> BigInt(pw));
            patch = patches[p] & patchMask;
          }
          at += gap;
          if (at >= n) throw new OrcCorruptError(`a patch of a patched-base run lands past its ${n} values`);
          patched[at] |= patch << BigInt(w);
          p++;
        }
        for (const v of patched) out.push(small(BigInt.asIntN(64, base + v)));
        break;
      }
      default: {
        // DELTA
        const code = (first >>> 1) & 0x1f;
        const w = code === 0 ? 0 : WIDTHS[code];
        const n = (((first & 1) << 8) | s.byte()) + 1;
        out.check(n, run);
        const base = signed ? unzigzag(s.uvarint()) : s.uvarint();
        const deltaBase = unzigzag(s.uvarint());
        if (typeof base === 'number' && typeof deltaBase === 'number' && out.big === undefined && deltaRun(s, out, base, deltaBase, w, n))
          break;
        out.push(base);
        if (w === 0) {
          let v = base;
          for (let i = 1; i < n; i++) out.push((v = add(v, deltaBase)));
        } else if (n > 1) {
          let v = add(base, deltaBase);
          out.push(v);
          const negative = deltaBase < 0;
          const deltas = readPacked(s, w, n - 2);
          for (let i = 0; i < n - 2; i++) {
            const d = deltas[i];
            v = add(v, negative ? -d : d);
            out.push(v);
          }
        }
        break;
      }
    }
  }
  return out.result();
}

/** A growable byte buffer. */
export class ByteSink {
  buf = new Uint8Array(1024);
  length = 0;

  constructor(size = 1024) {
    this.buf = new Uint8Array(size);
  }

  /** Makes room for `n` more bytes (hot loops then write `buf` directly). */
  room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    if (this.length === this.buf.length) this.room(1);
    this.buf[this.length++] = b;
  }

  write(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  uvarint(v: OrcInt): void {
    if (typeof v === 'number') {
      this.room(8);
      const buf = this.buf;
      let at = this.length;
      while (v >= 128) {
        buf[at++] = (v % 128) | 128;
        v = Math.floor(v / 128);
      }
      buf[at++] = v;
      this.length = at;
      return;
    }
    while (v >= 128n) {
      this.byte(Number(v & 127n) | 128);
      v >>= 7n;
    }
    this.byte(Number(v));
  }

  svarint(v: OrcInt): void {
    this.uvarint(zigzag(v));
  }

  bigEndian(v: OrcInt, n: number): void {
    this.room(n);
    const buf = this.buf;
    const at = this.length;
    if (typeof v === 'number' && v >= 0 && v < TWO_32 && n <= 4) {
      for (let i = n - 1, x = v; i >= 0; i--, x >>>= 8) buf[at + i] = x & 255;
    } else if (typeof v === 'number' && v >= 0 && n <= 6) {
      for (let i = n - 1, x = v; i >= 0; i--, x = Math.floor(x / 256)) buf[at + i] = x % 256;
    } else {
      const b = BigInt.asUintN(64, BigInt(v));
      for (let i = n - 1; i >= 0; i--) buf[at + n - 1 - i] = Number((b >> BigInt(8 * i)) & 255n);
    }
    this.length = at + n;
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** Byte RLE of values[0, n). */
export function writeByteRle(out: ByteSink, values: Uint8Array, n = values.length): void {
  let i = 0;
  let literalStart = 0;
  const flushLiterals = (end: number): void => {
    while (literalStart < end) {
      const len = Math.min(128, end - literalStart);
      out.byte(256 - len);
      out.write(values.subarray(literalStart, literalStart + len));
      literalStart += len;
    }
  };
  while (i < n) {
    const v = values[i];
    let run = 1;
    while (i + run < n && run < 130 && values[i + run] === v) run++;
    if (run >= 3) {
      flushLiterals(i);
      out.byte(run - 3);
      out.byte(v);
      i += run;
      literalStart = i;
    } else i += run;
  }
  flushLiterals(n);
}

/** A boolean stream of 0/1 bits[0, count). */
export function writeBooleans(out: ByteSink, bits: Uint8Array, count = bits.length): void {
  const bytes = new Uint8Array(Math.ceil(count / 8));
  for (let i = 0; i < count; i++) if (bits[i]) bytes[i >>> 3] |= 0x80 >>> (i & 7);
  writeByteRle(out, bytes);
}

/** Bits needed for an unsigned value. */
function bitsOf(u: OrcInt): number {
  if (typeof u === 'number') return u === 0 ? 0 : u < TWO_32 ? 32 - Math.clz32(u) : 32 + bitsOf(Math.floor(u / TWO_32));
  return u.toString(2).length;
}

/** values[0, len) packed in `w` bits each, most significant first (w <= 30 or a whole number of bytes). */
function writePacked(out: ByteSink, values: ArrayLike<OrcInt>, len: number, w: number): void {
  if (w % 8 === 0) {
    for (let i = 0; i < len; i++) out.bigEndian(values[i], w / 8);
    return;
  }
  out.room(Math.ceil((len * w) / 8) + 1);
  const buf = out.buf;
  let at = out.length;
  if (w <= 24) {
    // integer bit operations: at most 7 + 24 bits are held
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < len; i++) {
      acc = (acc << w) | (values[i] as number);
      bits += w;
      while (bits >= 8) {
        bits -= 8;
        buf[at++] = acc >>> bits;
      }
      acc &= (1 << bits) - 1;
    }
    if (bits > 0) buf[at++] = acc << (8 - bits);
  } else {
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < len; i++) {
      acc = acc * 2 ** w + (values[i] as number);
      bits += w;
      while (bits >= 8) {
        const div = 2 ** (bits - 8);
        const b = Math.floor(acc / div);
        buf[at++] = b;
        acc -= b * div;
        bits -= 8;
      }
    }
    if (bits > 0) buf[at++] = acc * 2 ** (8 - bits);
  }
  out.length = at;
}

/** One run's values zigzagged (when signed), reused from run to run. */
const runScratch = new Float64Array(512);

/**
 * Integer RLE v2 of values[0, n) (short repeat, delta for runs of one step, direct otherwise).
 * Numbers go without an allocation per run; a bigint makes its run take the general path.
 */
export function writeIntRleV2(out: ByteSink, values: ArrayLike<OrcInt>, signed: boolean, n = values.length): void {
  let i = 0;
  while (i < n) {
    // a run of one step (equal values: step 0)
    const a = values[i];
    const b = i + 1 < n ? values[i + 1] : undefined;
    if (typeof a === 'number' && typeof b === 'number' && Number.isSafeInteger(b - a)) {
      const step = b - a;
      let run = 2;
      let prev = b;
      while (i + run < n && run < 512) {
        const c = values[i + run];
        if (typeof c !== 'number' || c - prev !== step) break;
        prev = c;
        run++;
      }
      if (run >= 3) {
        if (step === 0 && run <= 10) {
          const raw = signed ? zigzag(a) : a;
          const width = Math.max(1, Math.ceil(bitsOf(raw) / 8));
          out.byte(((width - 1) << 3) | (run - 3));
          out.bigEndian(raw, width);
        } else {
          out.byte(0xc0 | ((run - 1) >>> 8));
          out.byte((run - 1) & 0xff);
          if (signed) out.svarint(a);
          else out.uvarint(a);
          out.svarint(step);
        }
        i += run;
        continue;
      }
    }
    // literals until the next run of three equal steps, at most 512
    let end = i + 1;
    while (end < n && end - i < 512 && !stepRunAt(values, end, n)) end++;
    writeDirect(out, values, i, end, signed);
    i = end;
  }
}

/** Whether values[k..k+2] are numbers one step apart (where a delta run can start). */
function stepRunAt(values: ArrayLike<OrcInt>, k: number, n: number): boolean {
  if (k + 2 >= n) return false;
  const a = values[k];
  const b = values[k + 1];
  const c = values[k + 2];
  return typeof a === 'number' && typeof b === 'number' && typeof c === 'number' && b - a === c - b && Number.isSafeInteger(b - a);
}

function writeDirect(out: ByteSink, values: ArrayLike<OrcInt>, from: number, to: number, signed: boolean): void {
  const len = to - from;
  let raw: ArrayLike<OrcInt> = runScratch;
  let max = 0;
  for (let i = from; i < to; i++) {
    const v = values[i];
    const r = typeof v === 'number' ? (signed ? (v >= 0 ? v * 2 : -v * 2 - 1) : v) : 0;
    if (typeof v !== 'number' || r > Number.MAX_SAFE_INTEGER) {
      raw = generalRaw(values, from, to, signed);
      break;
    }
    runScratch[i - from] = r;
    if (r > max) max = r;
  }
  let bits = 0;
  if (raw === runScratch) bits = bitsOf(max);
  else for (let i = 0; i < len; i++) bits = Math.max(bits, bitsOf(raw[i]));
  let w = closestFixedBits(Math.max(bits, 1));
  // the packer takes numbers up to 30 bits unaligned; past them whole bytes
  if (w > 30 && w % 8 !== 0) w = closestFixedBits(Math.ceil(w / 8) * 8);
  out.byte(0x40 | (WIDTHS.indexOf(w) << 1) | ((len - 1) >>> 8));
  out.byte((len - 1) & 0xff);
  writePacked(out, raw, len, w);
}

/** A run's values zigzagged (when signed), bigints among them. */
function generalRaw(values: ArrayLike<OrcInt>, from: number, to: number, signed: boolean): OrcInt[] {
  const raw: OrcInt[] = [];
  for (let i = from; i < to; i++) raw.push(signed ? zigzag(values[i]) : values[i]);
  return raw;
}
