/**
 * Arenas for the ORC stripes the row-group thread decodes (decision 0011, "Speed", fourth pass):
 * a SharedArrayBuffer that the reader's thread hands to the thread with a stripe, into which the
 * thread writes the stripe's compressed streams, their decompressed bytes and the decoded arrays
 * one after the other, and which the reader gives back to a pool once it has made the stripe's
 * values (every value is copied out of it: strings sliced, numbers read). Arrays handed over
 * (transferred) live on as new ArrayBuffers on the reader's thread, and V8 counts every one's
 * bytes as external memory: at about 16 MB a stripe it started a full (mark-compact) collection
 * every three or four stripes. A SharedArrayBuffer's bytes are not counted so, and the arena's
 * memory is reused instead of mapped anew a stripe.
 */

/** Bytes of the first arenas; one that was too small for a stripe makes the next ones as large as that stripe needed. */
const FIRST_BYTES = 32 << 20;
/** The largest arena kept: a stripe that needs more gets the rest of its arrays as plain ones. */
const MAX_BYTES = 512 << 20;
/** Free arenas kept (the stripe being made into rows and the two read ahead are out at once). */
const POOL = 3;

/** A bump allocator over a SharedArrayBuffer (8-byte aligned blocks). */
export class Arena {
  private pos = 0;
  /** Bytes asked for, those that did not fit included: the size a next arena needs. */
  wanted = 0;

  constructor(readonly buffer: SharedArrayBuffer) {}

  /** The offset of `bytes` free bytes (not zeroed), or -1 when they do not fit. */
  take(bytes: number): number {
    const at = this.pos;
    const size = (bytes + 7) & ~7;
    this.wanted += size;
    if (at + size > this.buffer.byteLength) return -1;
    this.pos = at + size;
    return at;
  }
}

/** The arena the decoding on this thread writes into, if any (decodeInArena). */
let current: Arena | undefined;

/** f() with its arrays (u8, f64, f32) taken from `arena`. */
export function decodeInArena<T>(arena: Arena, f: () => T): T {
  current = arena;
  try {
    return f();
  } finally {
    current = undefined;
  }
}

/** Whether this thread's decoding writes into an arena now. */
export function inArena(): boolean {
  return current !== undefined;
}

/** `n` bytes, from the current arena when there is one and it has room (not zeroed then: every caller writes all of them). */
export function u8(n: number): Uint8Array {
  const at = current === undefined ? -1 : current.take(n);
  return at < 0 ? new Uint8Array(n) : new Uint8Array(current!.buffer, at, n);
}

/** `n` doubles, as u8. */
export function f64(n: number): Float64Array {
  const at = current === undefined ? -1 : current.take(n * 8);
  return at < 0 ? new Float64Array(n) : new Float64Array(current!.buffer, at, n);
}

/** `n` floats, as u8. */
export function f32(n: number): Float32Array {
  const at = current === undefined ? -1 : current.take(n * 4);
  return at < 0 ? new Float32Array(n) : new Float32Array(current!.buffer, at, n);
}

// ---- the pool, on the reader's thread ----

const free: SharedArrayBuffer[] = [];
let arenaBytes = FIRST_BYTES;

/** An arena's memory for a stripe whose streams take `compressed` bytes: a free one, or a new one. */
export function acquireArena(compressed: number): SharedArrayBuffer {
  // the streams decompressed and decoded take a few times their compressed size
  const bytes = Math.max(arenaBytes, Math.min(MAX_BYTES, compressed * 4));
  for (;;) {
    const b = free.pop();
    if (b === undefined) return new SharedArrayBuffer(bytes);
    if (b.byteLength >= bytes) return b; // smaller ones (from before a larger stripe) are dropped
  }
}

/**
 * Gives an arena back once nothing made from the stripe in it views it any more; `wanted` is
 * what the stripe needed (Arena.wanted), which the next arenas are made to hold.
 */
export function releaseArena(buffer: SharedArrayBuffer, wanted: number): void {
  if (wanted > arenaBytes) arenaBytes = Math.min(MAX_BYTES, Math.ceil((wanted * 1.25) / (1 << 20)) << 20);
  if (free.length < POOL && buffer.byteLength >= arenaBytes && !free.includes(buffer)) free.push(buffer);
}

/** releaseArena of `buffer` as a call that gives it back once however often it is called (an arena handed out twice would be written by two stripes). */
export function arenaRelease(buffer: SharedArrayBuffer, wanted: () => number): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    releaseArena(buffer, wanted());
  };
}
