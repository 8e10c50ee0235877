/**
 * ORC's run-length encodings (specification v1, "Run Length Encoding"): byte RLE, booleans,
 * integer RLE v1 and v2 (all four sub-encodings) decoded; byte RLE, booleans and integer RLE v2
 * (short repeat, direct, delta) encoded. Integers are numbers while they fit exactly in one
 * (|v| < 2^53) and bigints beyond, so the common case stays in doubles.
 *
 * Decoders read a whole decompressed stream; a stream that ends early or holds more values than
 * asked is corrupt and throws an OrcCorruptError naming what was being read.
 */

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
  const out = new Uint8Array(count);
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
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = (bytes[i >>> 3] >>> (7 - (i & 7))) & 1;
  return out;
}

/** Byte RLE of at least `count` bytes: a run may end past the bits needed (a writer's last byte of a stripe's bits). */
function readByteRleAtLeast(s: ByteSource, count: number): Uint8Array {
  const out: number[] = [];
  while (out.length < count) {
    const h = s.byte();
    if (h < 128) {
      const v = s.byte();
      for (let i = 0; i < h + 3; i++) out.push(v);
    } else for (const b of s.bytes(256 - h)) out.push(b);
  }
  return Uint8Array.from(out);
}

/** Integer RLE v1: `count` integers. */
export function readIntRleV1(s: ByteSource, count: number, signed: boolean): OrcInt[] {
  const out: OrcInt[] = [];
  const next = (): OrcInt => (signed ? unzigzag(s.uvarint()) : s.uvarint());
  while (out.length < count) {
    const h = s.byte();
    if (h < 128) {
      const run = h + 3;
      const d = s.byte();
      const delta = d < 128 ? d : d - 256;
      const base = next();
      if (out.length + run > count) throw new OrcCorruptError(`an integer run of ${run} passes the ${count} values expected`);
      for (let i = 0; i < run; i++) out.push(add(base, i * delta));
    } else {
      const run = 256 - h;
      if (out.length + run > count) throw new OrcCorruptError(`${run} literal integers pass the ${count} values expected`);
      for (let i = 0; i < run; i++) out.push(next());
    }
  }
  return out;
}

/** The bit widths the 5-bit width codes of RLE v2 stand for. */
const WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64];

/** The smallest width RLE v2 can encode that holds `bits` bits. */
export function closestFixedBits(bits: number): number {
  for (const w of WIDTHS) if (w >= bits) return w;
  return 64;
}

/** `n` unsigned values of `w` bits, most significant bit first, starting at a byte. */
function readPacked(s: ByteSource, w: number, n: number): OrcInt[] {
  const out = new Array<OrcInt>(n);
  if (w % 8 === 0) {
    for (let i = 0; i < n; i++) out[i] = s.bigEndian(w / 8);
    return out;
  }
  // w <= 30 here (40, 48, 56, 64 are whole bytes): the accumulator stays under 2^38
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < n; i++) {
    while (bits < w) {
      acc = acc * 256 + s.byte();
      bits += 8;
    }
    const div = 2 ** (bits - w);
    const v = Math.floor(acc / div);
    acc -= v * div;
    bits -= w;
    out[i] = v;
  }
  return out;
}

/** Integer RLE v2: `count` integers. */
export function readIntRleV2(s: ByteSource, count: number, signed: boolean): OrcInt[] {
  const out: OrcInt[] = [];
  const check = (n: number): void => {
    if (out.length + n > count) throw new OrcCorruptError(`an RLE v2 run of ${n} passes the ${count} integers expected`);
  };
  while (out.length < count) {
    const first = s.byte();
    switch (first >>> 6) {
      case 0: {
        // SHORT_REPEAT
        const width = ((first >>> 3) & 7) + 1;
        const n = (first & 7) + 3;
        check(n);
        const raw = s.bigEndian(width);
        const v = signed ? unzigzag(raw) : raw;
        for (let i = 0; i < n; i++) out.push(v);
        break;
      }
      case 1: {
        // DIRECT
        const w = WIDTHS[(first >>> 1) & 0x1f];
        const n = (((first & 1) << 8) | s.byte()) + 1;
        check(n);
        for (const raw of readPacked(s, w, n)) out.push(signed ? unzigzag(raw) : raw);
        break;
      }
      case 2: {
        // PATCHED_BASE
        const w = WIDTHS[(first >>> 1) & 0x1f];
        const n = (((first & 1) << 8) | s.byte()) + 1;
        check(n);
        const third = s.byte();
        const baseBytes = ((third >>> 5) & 7) + 1;
        const pw = WIDTHS[third & 0x1f];
        const fourth = s.byte();
        const pgw = ((fourth >>> 5) & 7) + 1;
        const pll = fourth & 0x1f;
        let base = BigInt(s.bigEndian(baseBytes));
        const signBit = 1n << BigInt(baseBytes * 8 - 1);
        if (base & signBit) base = -(base & ~signBit);
        const values = readPacked(s, w, n);
        const cfb = closestFixedBits(pw + pgw);
        if (cfb > 64) throw new OrcCorruptError('a patched-base run has patches wider than 64 bits');
        const patches = readPacked(s, cfb, pll).map(BigInt);
        const patched: bigint[] = values.map(BigInt);
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
        check(n);
        const base = signed ? unzigzag(s.uvarint()) : s.uvarint();
        const deltaBase = unzigzag(s.uvarint());
        out.push(base);
        if (w === 0) {
          let v = base;
          for (let i = 1; i < n; i++) out.push((v = add(v, deltaBase)));
        } else if (n > 1) {
          let v = add(base, deltaBase);
          out.push(v);
          const negative = deltaBase < 0;
          for (const d of readPacked(s, w, n - 2)) {
            v = add(v, negative ? -d : d);
            out.push(v);
          }
        }
        break;
      }
    }
  }
  return out;
}

/** A growable byte buffer. */
export class ByteSink {
  buf = new Uint8Array(1024);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  write(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  uvarint(v: OrcInt): void {
    if (typeof v === 'number') {
      while (v >= 128) {
        this.byte((v % 128) | 128);
        v = Math.floor(v / 128);
      }
      this.byte(v);
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
    if (typeof v === 'number' && n <= 6) {
      for (let i = n - 1; i >= 0; i--) this.byte(Math.floor(v / 2 ** (8 * i)) % 256);
      return;
    }
    const b = BigInt.asUintN(64, BigInt(v));
    for (let i = n - 1; i >= 0; i--) this.byte(Number((b >> BigInt(8 * i)) & 255n));
  }

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** Byte RLE of `values`. */
export function writeByteRle(out: ByteSink, values: Uint8Array): void {
  const n = values.length;
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
    let run = 1;
    while (i + run < n && run < 130 && values[i + run] === values[i]) run++;
    if (run >= 3) {
      flushLiterals(i);
      out.byte(run - 3);
      out.byte(values[i]);
      i += run;
      literalStart = i;
    } else i += run;
  }
  flushLiterals(n);
}

/** A boolean stream of 0/1 `bits`. */
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

function writePacked(out: ByteSink, values: readonly OrcInt[], from: number, to: number, w: number): void {
  if (w % 8 === 0) {
    for (let i = from; i < to; i++) out.bigEndian(values[i], w / 8);
    return;
  }
  let acc = 0;
  let bits = 0;
  for (let i = from; i < to; i++) {
    acc = acc * 2 ** w + (values[i] as number);
    bits += w;
    while (bits >= 8) {
      const div = 2 ** (bits - 8);
      const b = Math.floor(acc / div);
      out.byte(b);
      acc -= b * div;
      bits -= 8;
    }
  }
  if (bits > 0) out.byte(acc * 2 ** (8 - bits));
}

/** Integer RLE v2 of `values` (short repeat, delta for runs of one step, direct otherwise). */
export function writeIntRleV2(out: ByteSink, values: readonly OrcInt[], signed: boolean): void {
  const n = values.length;
  let i = 0;
  while (i < n) {
    // a run of one step (equal values: step 0)
    if (i + 1 < n && typeof values[i] === 'number' && typeof values[i + 1] === 'number') {
      const step = (values[i + 1] as number) - (values[i] as number);
      if (Number.isSafeInteger(step)) {
        let run = 2;
        while (
          i + run < n &&
          run < 512 &&
          typeof values[i + run] === 'number' &&
          (values[i + run] as number) - (values[i + run - 1] as number) === step
        )
          run++;
        if (run >= 3) {
          const first = values[i] as number;
          if (step === 0 && run <= 10) {
            const raw = signed ? zigzag(first) : first;
            const width = Math.max(1, Math.ceil(bitsOf(raw) / 8));
            out.byte(((width - 1) << 3) | (run - 3));
            out.bigEndian(raw, width);
          } else {
            out.byte(0xc0 | ((run - 1) >>> 8));
            out.byte((run - 1) & 0xff);
            if (signed) out.svarint(first);
            else out.uvarint(first);
            out.svarint(step);
          }
          i += run;
          continue;
        }
      }
    }
    // literals until the next run of three equal steps, at most 512
    let end = i + 1;
    while (end < n && end - i < 512 && !stepRunAt(values, end)) end++;
    writeDirect(out, values, i, end, signed);
    i = end;
  }
}

/** Whether values[k..k+2] are numbers one step apart (where a delta run can start). */
function stepRunAt(values: readonly OrcInt[], k: number): boolean {
  if (k + 2 >= values.length) return false;
  const a = values[k];
  const b = values[k + 1];
  const c = values[k + 2];
  return typeof a === 'number' && typeof b === 'number' && typeof c === 'number' && b - a === c - b && Number.isSafeInteger(b - a);
}

function writeDirect(out: ByteSink, values: readonly OrcInt[], from: number, to: number, signed: boolean): void {
  const raw: OrcInt[] = [];
  let bits = 0;
  for (let i = from; i < to; i++) {
    const v = values[i];
    const r = signed ? zigzag(v) : v;
    raw.push(r);
    const b = bitsOf(r);
    if (b > bits) bits = b;
  }
  let w = closestFixedBits(Math.max(bits, 1));
  // the packer takes numbers up to 30 bits unaligned; past them whole bytes
  if (w > 30 && w % 8 !== 0) w = closestFixedBits(Math.ceil(w / 8) * 8);
  const len = to - from;
  out.byte(0x40 | (WIDTHS.indexOf(w) << 1) | ((len - 1) >>> 8));
  out.byte((len - 1) & 0xff);
  writePacked(out, raw, 0, len, w);
}
