/**
 * A Snappy compressor (the raw format Parquet pages use: a varint of the length, then literals
 * and copies) written for V8: the input is read a 32-bit word at a time through a DataView and
 * the output written through a typed array, with no per-byte calls, and the hash table and
 * output buffer are reused between calls.
 * Measured (docs/decisions/0023): about hysnappy's WebAssembly speed on text, and ten times it
 * or more on integer and incompressible pages, where the growing skip of the search moves on
 * fast and hysnappy pays for copying every input into its memory.
 *
 * The algorithm is the one of the format's reference compressor, described in its
 * format_description.txt: 64 KB blocks, a hash of 4 bytes to the last position seen, a skip that
 * grows while no match is found, and copies of up to 64 bytes with 1- or 2-byte offsets.
 */

const BLOCK = 1 << 16;
const HASH_BITS = 14;
const INPUT_MARGIN = 15;

const table = new Uint16Array(1 << HASH_BITS);
let scratch = new Uint8Array(1 << 16);

/** Worst-case compressed size of `n` bytes. */
function maxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6);
}

/** The 4 bytes at `i`, little-endian: one unaligned load (TurboFan compiles DataView reads to one), not four byte loads. */
function load32(v: DataView, i: number): number {
  return v.getInt32(i, true);
}

function hash(v: number, shift: number): number {
  return Math.imul(v, 0x1e35a7bd) >>> shift;
}

/** Writes the literal input[from, to) at `op`; returns the new output position. */
function literal(out: Uint8Array, op: number, input: Uint8Array, from: number, to: number): number {
  const n = to - from - 1;
  if (n < 60) out[op++] = n << 2;
  else if (n < 0x100) {
    out[op++] = 60 << 2;
    out[op++] = n;
  } else if (n < 0x10000) {
    out[op++] = 61 << 2;
    out[op++] = n & 0xff;
    out[op++] = n >>> 8;
  } else {
    out[op++] = 62 << 2;
    out[op++] = n & 0xff;
    out[op++] = (n >>> 8) & 0xff;
    out[op++] = n >>> 16;
  }
  if (to - from < 64) for (let i = from; i < to; i++) out[op++] = input[i]!;
  else {
    out.set(input.subarray(from, to), op);
    op += to - from;
  }
  return op;
}

/** Writes a copy of `len` bytes from `offset` back (offset < 65536); returns the new output position. */
function copy(out: Uint8Array, op: number, offset: number, len: number): number {
  while (len >= 68) {
    out[op++] = 2 | (63 << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
    len -= 64;
  }
  if (len > 64) {
    out[op++] = 2 | (59 << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
    len -= 60;
  }
  if (len < 12 && offset < 2048) {
    out[op++] = 1 | ((len - 4) << 2) | ((offset >>> 8) << 5);
    out[op++] = offset & 0xff;
  } else {
    out[op++] = 2 | ((len - 1) << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
  }
  return op;
}

/** Compresses input[start, end) (at most one block) into `out` at `op`; returns the new output position. */
function block(input: Uint8Array, view: DataView, start: number, end: number, out: Uint8Array, op: number): number {
  const n = end - start;
  if (n < INPUT_MARGIN) return n > 0 ? literal(out, op, input, start, end) : op;
  let bits = 8;
  while (bits < HASH_BITS && 1 << bits < n) bits++;
  const shift = 32 - bits;
  table.fill(0, 0, 1 << bits);
  const limit = end - INPUT_MARGIN;
  let nextEmit = start;
  let ip = start + 1;
  let nextValue = load32(view, ip);
  let nextHash = hash(nextValue, shift);
  for (;;) {
    // find a 4-byte match, looking further apart the longer none is found
    let skip = 32;
    let nextIp = ip;
    let candidate: number;
    let value: number;
    do {
      ip = nextIp;
      const h = nextHash;
      value = nextValue;
      nextIp = ip + (skip++ >> 5);
      if (nextIp > limit) return nextEmit < end ? literal(out, op, input, nextEmit, end) : op;
      nextValue = load32(view, nextIp);
      nextHash = hash(nextValue, shift);
      candidate = start + table[h];
      table[h] = ip - start;
    } while (value !== load32(view, candidate));
    op = literal(out, op, input, nextEmit, ip);
    // emit copies while the bytes after one match start another
    for (;;) {
      const base = ip;
      let a = candidate + 4;
      ip += 4;
      while (ip + 4 <= end && load32(view, ip) === load32(view, a)) {
        ip += 4;
        a += 4;
      }
      while (ip < end && input[ip] === input[a]) {
        ip++;
        a++;
      }
      op = copy(out, op, base - candidate, ip - base);
      nextEmit = ip;
      if (ip >= limit) return nextEmit < end ? literal(out, op, input, nextEmit, end) : op;
      table[hash(load32(view, ip - 1), shift)] = ip - 1 - start;
      const here = load32(view, ip);
      const h = hash(here, shift);
      candidate = start + table[h];
      table[h] = ip - start;
      if (here !== load32(view, candidate)) break;
    }
    nextValue = load32(view, ++ip);
    nextHash = hash(nextValue, shift);
  }
}

/**
 * Snappy-compresses `input`. The result is a view of a buffer the next call reuses: copy it or
 * write it out before compressing again.
 */
export function snappyCompressReused(input: Uint8Array): Uint8Array {
  const need = maxCompressedLength(input.length);
  if (scratch.length < need) scratch = new Uint8Array(Math.max(need, scratch.length * 2));
  const out = scratch;
  let op = 0;
  let n = input.length;
  do {
    out[op++] = (n & 0x7f) | (n > 0x7f ? 0x80 : 0);
    n = Math.floor(n / 128);
  } while (n > 0);
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  for (let at = 0; at < input.length; at += BLOCK) op = block(input, view, at, Math.min(input.length, at + BLOCK), out, op);
  return out.subarray(0, op);
}

/** Snappy-compresses `input` into a new array. */
export function snappyCompress(input: Uint8Array): Uint8Array {
  return snappyCompressReused(input).slice();
}
