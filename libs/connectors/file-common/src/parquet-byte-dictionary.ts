import type { MinMax } from './parquet-column-builder.js';

/**
 * A column chunk's string dictionary is given up (the chunk is written PLAIN) past this many
 * entries or bytes of entries: parquet-mr's default dictionary page is 1 MB.
 */
const MAX_DICTIONARY_ENTRIES = 32_768;
const MAX_DICTIONARY_BYTES = 1 << 20;

/**
 * After this many values a chunk's dictionary must already be smaller than PLAIN (its entries
 * and the indices against the values' bytes), or the chunk is written PLAIN: parquet-mr makes
 * the same check once its first page is full. Earlier than parquet-mr's ~1 MB, because every
 * value hashed after it is wasted work for a column of unique values.
 */
const DICTIONARY_CHECK_VALUES = 8192;

/** The dictionary of a column chunk: entries PLAIN (4-byte length, bytes), an entry index per value. */
export interface ByteDictionary {
  readonly entries: Uint8Array;
  readonly size: number;
  readonly indices: Int32Array;
}

/** Whether the `len` bytes at `as` and at `bs` are the same (the ORC writer's dictionary too). */
export function sameBytes(buf: Uint8Array, as: number, bs: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (buf[as + k] !== buf[bs + k]) return false;
  return true;
}

/**
 * A hash of the `len` bytes at `at`: four bytes at a time (a multiply-xor step per word, then a
 * final mix), about three times as fast as FNV-1a's step per byte on the orders bench's strings.
 * Collisions cost a byte comparison, never a wrong entry. The ORC writer's dictionary too.
 */
export function hashAt(buf: Uint8Array, at: number, len: number): number {
  let h = 0x811c9dc5 ^ len;
  const end = at + len;
  let k = at;
  for (; k + 4 <= end; k += 4) {
    h = Math.imul(h ^ (buf[k] | (buf[k + 1] << 8) | (buf[k + 2] << 16) | (buf[k + 3] << 24)), 0x9e3779b1);
    h ^= h >>> 15;
  }
  for (; k < end; k++) h = Math.imul(h ^ buf[k], 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return h ^ (h >>> 13);
}

/** An open-addressing table of `mask + 1` slots (-1 free) holding entries 0 to size - 1 by their hashes (the ORC writer's dictionary too). */
export function hashSlots(hashes: Int32Array, size: number, mask: number): Int32Array<ArrayBuffer> {
  const slots = new Int32Array(mask + 1).fill(-1);
  for (let e = 0; e < size; e++) {
    let s = hashes[e] & mask;
    while (slots[s] >= 0) s = (s + 1) & mask;
    slots[s] = e;
  }
  return slots;
}

/** Length of the PLAIN value starting at `at` (its 4-byte little-endian prefix). */
export function lengthAt(buf: Uint8Array, at: number): number {
  return (buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16) | (buf[at + 3] << 24)) >>> 0;
}

/**
 * Dictionary-encodes `count` PLAIN BYTE_ARRAY values (value i's length prefix at starts[i] in
 * `values`): entries in first-seen order. Undefined once the dictionary passes its limits, and
 * the chunk is then written PLAIN. Works on the bytes, not on JS strings, so it runs on the
 * row-group thread: an open-addressing table of FNV-1a hashes, each hit confirmed byte for byte.
 */
export function byteDictionary(values: Uint8Array, starts: Int32Array, count: number): ByteDictionary | undefined {
  let mask = 1023;
  let slots = new Int32Array(mask + 1).fill(-1); // entry number, -1 free
  let hashes = new Int32Array(64);
  let entryAt = new Int32Array(64); // where each entry's PLAIN value starts in `values`
  const indices = new Int32Array(count);
  let size = 0;
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    if (i === DICTIONARY_CHECK_VALUES && !dictionaryPays(size, bytes, i, starts[i] - starts[0])) return undefined;
    const at = starts[i];
    const len = lengthAt(values, at);
    const h = hashAt(values, at + 4, len);
    let slot = h & mask;
    let found = -1;
    for (let e = slots[slot]; e >= 0; slot = (slot + 1) & mask, e = slots[slot]) {
      if (hashes[e] === h && lengthAt(values, entryAt[e]) === len && sameBytes(values, entryAt[e] + 4, at + 4, len)) {
        found = e;
        break;
      }
    }
    if (found < 0) {
      if (size >= MAX_DICTIONARY_ENTRIES || bytes >= MAX_DICTIONARY_BYTES) return undefined;
      found = size++;
      bytes += 4 + len;
      if (found === hashes.length) {
        hashes = grownInt32(hashes);
        entryAt = grownInt32(entryAt);
      }
      hashes[found] = h;
      entryAt[found] = at;
      slots[slot] = found;
      if (size * 2 > mask) {
        // kept at most half full
        mask = mask * 2 + 1;
        slots = hashSlots(hashes, size, mask);
      }
    }
    indices[i] = found;
  }
  const entries = new Uint8Array(bytes);
  let pos = 0;
  for (let e = 0; e < size; e++) {
    const from = entryAt[e];
    const len = 4 + lengthAt(values, from);
    entries.set(values.subarray(from, from + len), pos);
    pos += len;
  }
  return { entries, size, indices };
}

/** Whether `n` values of `plainBytes` take fewer bytes as `size` entries of `entryBytes` and an index each. */
function dictionaryPays(size: number, entryBytes: number, n: number, plainBytes: number): boolean {
  const bitWidth = Math.max(1, 32 - Math.clz32(size - 1));
  return entryBytes + Math.ceil((n * bitWidth) / 8) < plainBytes;
}

function grownInt32(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Compares the PLAIN values at `a` and `b` as unsigned bytes (Parquet's order for BYTE_ARRAY). */
function compareAt(buf: Uint8Array, a: number, b: number): number {
  const al = lengthAt(buf, a);
  const bl = lengthAt(buf, b);
  const n = Math.min(al, bl);
  for (let k = 4; k < n + 4; k++) {
    const d = buf[a + k] - buf[b + k];
    if (d !== 0) return d;
  }
  return al - bl;
}

/** Smallest and largest of `n` PLAIN values in `buf` (value i's length prefix at starts[i]), in unsigned byte order. */
export function byteMinMax(buf: Uint8Array, starts: Int32Array, n: number): MinMax {
  if (n === 0) return {};
  let min = starts[0];
  let max = starts[0];
  for (let i = 1; i < n; i++) {
    const at = starts[i];
    if (compareAt(buf, at, min) < 0) min = at;
    else if (compareAt(buf, at, max) > 0) max = at;
  }
  // a copy: `buf` is reused for later row groups (and a Buffer's slice would be a view)
  const value = (at: number) => Uint8Array.prototype.slice.call(buf, at + 4, at + 4 + lengthAt(buf, at));
  return { min_value: value(min), max_value: value(max) };
}

/** Where each of the `n` PLAIN values of `entries` starts. */
export function plainStarts(entries: Uint8Array, n: number): Int32Array {
  const starts = new Int32Array(n);
  for (let i = 0, at = 0; i < n; i++) {
    starts[i] = at;
    at += 4 + lengthAt(entries, at);
  }
  return starts;
}
