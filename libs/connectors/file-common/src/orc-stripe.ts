import { endianness } from 'node:os';
import { ColumnEncoding_Kind, type ColumnEncoding, type CompressionKind, type Stream, StripeFooter, Stream_Kind } from './gen/orc_file.js';
import { compressInto } from './orc-compression.js';
import { ByteSink, type OrcInt, writeBooleans, writeByteRle, writeIntRleV2 } from './orc-rle.js';
import { hashSlots, sameBytes } from './parquet-byte-dictionary.js';
import { grown } from './parquet-column-builder.js';

/**
 * A stripe of Tideway's ORC writer encoded (decision 0011, "Speed"): its columns' values, as the
 * writer buffered them (orc-writer.ts), made into streams, compressed, and followed by the stripe
 * footer. A pure function of its job, run on the row-group thread (row-group-thread.ts) while the
 * writer fills the next stripe, or on the writer's thread when that thread is not there.
 */

/** Compressed blocks of this many bytes (the compression block size of the file's postscript). */
export const ORC_BLOCK_SIZE = 256 * 1024;

/** The values of one column of a stripe (pre-order id), in arrays of its own (they are handed to the thread). */
export interface RawOrcColumn {
  readonly id: number;
  readonly kind: 'boolean' | 'byte' | 'int' | 'float' | 'string' | 'binary' | 'decimal' | 'timestamp' | 'list' | 'struct';
  /** Values, nulls too. */
  readonly count: number;
  readonly nonNull: number;
  /** Where the nulls are (rows of the stripe's column). */
  readonly nulls?: Int32Array;
  /** boolean and byte: a byte each; int, list (lengths) and timestamp (seconds): numbers, or `big` once a bigint came; float: the floats; string: the lengths. */
  readonly values?: Uint8Array | Float64Array | Float32Array | Int32Array;
  readonly big?: OrcInt[];
  /** timestamp: the nanoseconds, encoded (or `bigNanos`). */
  readonly nanos?: Float64Array;
  readonly bigNanos?: OrcInt[];
  /** string and binary: the values' bytes, one after the other; decimal: the unscaled values as varints. */
  readonly bytes?: Uint8Array;
  readonly scale?: number;
}

export interface OrcStripeJob {
  readonly codec: CompressionKind;
  readonly columns: readonly RawOrcColumn[];
}

/** A stripe's bytes: its streams (dataLength bytes), then its footer (footerLength). */
export interface EncodedOrcStripe {
  readonly bytes: Uint8Array;
  readonly dataLength: number;
  readonly footerLength: number;
}

/** The buffers of a job's columns, to be handed over with it. */
export function orcJobBuffers(columns: readonly RawOrcColumn[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const c of columns) for (const a of [c.nulls, c.values, c.nanos, c.bytes]) if (a) buffers.add(a.buffer as ArrayBuffer);
  return [...buffers];
}

/** Values of a stripe's string column whose distinct share decides dictionary or direct (ORC's default row index stride). */
const DICTIONARY_SAMPLE = 10_000;
const DIRECT: ColumnEncoding = { kind: ColumnEncoding_Kind.DIRECT };
const DIRECT_V2: ColumnEncoding = { kind: ColumnEncoding_Kind.DIRECT_V2 };
const LITTLE_ENDIAN = endianness() === 'LE';

/** Stream bytes made before they are compressed into the stripe: one buffer, reused stream after stream. */
const scratch = new ByteSink(1 << 16);

/** Integer RLE v2 of values[0, n), in `scratch` (valid until the next stream is made). */
function intStream(values: ArrayLike<OrcInt>, n: number, signed: boolean): Uint8Array {
  scratch.length = 0;
  writeIntRleV2(scratch, values, signed, n);
  return scratch.bytes();
}

/** A stripe's string dictionary: an entry per distinct value, in first-seen order, and each value's entry. */
interface StringDictionary {
  readonly size: number;
  /** Where each entry's bytes are in the values' buffer, and how many. */
  readonly entryAt: Int32Array;
  readonly entryLength: Int32Array;
  readonly ids: Int32Array;
}

/**
 * The dictionary of `n` values, value i the lengths[i] bytes after value i - 1 in `buf`, found on
 * the bytes (an open-addressing table of hashes, each hit confirmed byte for byte, as the Parquet
 * writer's); undefined when more than 80% of the values are distinct, or of the first
 * DICTIONARY_SAMPLE (ORC's Java writer decides on its first row group).
 */
function stringDictionary(buf: Uint8Array, lengths: ArrayLike<number>, n: number): StringDictionary | undefined {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let mask = 1023;
  let slots = new Int32Array(mask + 1).fill(-1); // entry number, -1 free
  let hashes = new Int32Array(256);
  let entryAt = new Int32Array(256);
  let entryLength = new Int32Array(256);
  const ids = new Int32Array(n);
  const limit = 0.8 * n;
  let size = 0;
  let at = 0;
  for (let i = 0; i < n; i++) {
    if (i === DICTIONARY_SAMPLE && size > 0.8 * DICTIONARY_SAMPLE) return undefined;
    const len = lengths[i];
    const h = hashWords(buf, view, at, len);
    let slot = h & mask;
    let found = -1;
    for (let e = slots[slot]; e >= 0; slot = (slot + 1) & mask, e = slots[slot]) {
      if (hashes[e] === h && entryLength[e] === len && sameWords(buf, view, entryAt[e], at, len)) {
        found = e;
        break;
      }
    }
    if (found < 0) {
      if (size + 1 > limit) return undefined;
      found = size++;
      if (found === hashes.length) {
        hashes = grown(hashes, found + 1);
        entryAt = grown(entryAt, found + 1);
        entryLength = grown(entryLength, found + 1);
      }
      hashes[found] = h;
      entryAt[found] = at;
      entryLength[found] = len;
      slots[slot] = found;
      if (size * 2 > mask) {
        // kept at most half full
        mask = mask * 2 + 1;
        slots = hashSlots(hashes, size, mask);
      }
    }
    ids[i] = found;
    at += len;
  }
  return { size, entryAt, entryLength, ids };
}

/** hashAt's hash of the `len` bytes at `at`, its words read through a DataView (one load each, not four). */
function hashWords(buf: Uint8Array, view: DataView, at: number, len: number): number {
  let h = 0x811c9dc5 ^ len;
  const end = at + len;
  let k = at;
  for (; k + 4 <= end; k += 4) {
    h = Math.imul(h ^ view.getInt32(k, true), 0x9e3779b1);
    h ^= h >>> 15;
  }
  for (; k < end; k++) h = Math.imul(h ^ buf[k], 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return h ^ (h >>> 13);
}

/** Whether the `len` bytes at `as` and at `bs` are the same: four at a time (sameBytes' loop, a quarter of its steps). */
function sameWords(buf: Uint8Array, view: DataView, as: number, bs: number, len: number): boolean {
  let k = 0;
  for (; k + 4 <= len; k += 4) if (view.getInt32(as + k) !== view.getInt32(bs + k)) return false;
  return sameBytes(buf, as + k, bs + k, len - k);
}

/** Where a column's streams go: compressed into the stripe's bytes, and listed for its footer. */
type Emit = (kind: Stream_Kind, bytes: Uint8Array) => void;

/** Strings by dictionary when at most 80% of the stripe's values are distinct (stringDictionary), direct otherwise; binary direct. */
function stringStreams(c: RawOrcColumn, emit: Emit): ColumnEncoding {
  const n = c.nonNull;
  const buf = c.bytes!;
  const lengths = c.values as Int32Array;
  const dict = c.kind === 'binary' || n === 0 ? undefined : stringDictionary(buf, lengths, n);
  if (!dict) {
    emit(Stream_Kind.DATA, buf);
    emit(Stream_Kind.LENGTH, intStream(lengths, n, false));
    return DIRECT_V2;
  }
  emit(Stream_Kind.DATA, intStream(dict.ids, n, false));
  emit(Stream_Kind.LENGTH, intStream(dict.entryLength, dict.size, false));
  // the entries' bytes, one after the other (in place: each entry is at or after where it goes)
  let at = 0;
  for (let e = 0; e < dict.size; e++) {
    buf.copyWithin(at, dict.entryAt[e], dict.entryAt[e] + dict.entryLength[e]);
    at += dict.entryLength[e];
  }
  emit(Stream_Kind.DICTIONARY_DATA, buf.subarray(0, at));
  return { kind: ColumnEncoding_Kind.DICTIONARY_V2, dictionarySize: dict.size };
}

/** A column's streams and encoding. */
function columnStreams(c: RawOrcColumn, emit: Emit): ColumnEncoding {
  const n = c.nonNull;
  if (c.nulls !== undefined && c.nulls.length > 0) {
    const present = new Uint8Array(c.count).fill(1);
    for (const at of c.nulls) present[at] = 0;
    scratch.length = 0;
    writeBooleans(scratch, present);
    emit(Stream_Kind.PRESENT, scratch.bytes());
  }
  switch (c.kind) {
    case 'boolean':
      scratch.length = 0;
      writeBooleans(scratch, c.values as Uint8Array, n);
      emit(Stream_Kind.DATA, scratch.bytes());
      return DIRECT;
    case 'byte':
      scratch.length = 0;
      writeByteRle(scratch, c.values as Uint8Array, n);
      emit(Stream_Kind.DATA, scratch.bytes());
      return DIRECT;
    case 'int':
      emit(Stream_Kind.DATA, intStream(c.big ?? c.values!, n, true));
      return DIRECT_V2;
    case 'float': {
      const floats = c.values as Float32Array | Float64Array;
      if (LITTLE_ENDIAN) emit(Stream_Kind.DATA, new Uint8Array(floats.buffer, floats.byteOffset, n * floats.BYTES_PER_ELEMENT));
      else {
        // IEEE 754, little-endian, whatever the machine's order
        const bytes = new Uint8Array(n * floats.BYTES_PER_ELEMENT);
        const view = new DataView(bytes.buffer);
        if (floats.BYTES_PER_ELEMENT === 4) for (let i = 0; i < n; i++) view.setFloat32(i * 4, floats[i], true);
        else for (let i = 0; i < n; i++) view.setFloat64(i * 8, floats[i], true);
        emit(Stream_Kind.DATA, bytes);
      }
      return DIRECT;
    }
    case 'string':
    case 'binary':
      return stringStreams(c, emit);
    case 'decimal':
      emit(Stream_Kind.DATA, c.bytes!);
      emit(Stream_Kind.SECONDARY, intStream(new Float64Array(n).fill(c.scale!), n, true));
      return DIRECT_V2;
    case 'timestamp':
      emit(Stream_Kind.DATA, intStream(c.big ?? c.values!, n, true));
      emit(Stream_Kind.SECONDARY, intStream(c.bigNanos ?? c.nanos!, n, false));
      return DIRECT_V2;
    case 'list':
      emit(Stream_Kind.LENGTH, intStream(c.big ?? c.values!, n, false));
      return DIRECT_V2;
    case 'struct':
      return DIRECT;
  }
}

/** The stripe's bytes: every column's streams, compressed, then the stripe footer. */
export function encodeOrcStripe(job: OrcStripeJob): EncodedOrcStripe {
  let raw = 0;
  for (const c of job.columns) for (const a of [c.nulls, c.values, c.nanos, c.bytes]) raw += a?.byteLength ?? 0;
  const sink = new ByteSink(raw + (1 << 16));
  const listed: Stream[] = [];
  const encodings: ColumnEncoding[] = [];
  for (const c of job.columns) {
    encodings[c.id] = columnStreams(c, (kind, bytes) => {
      const length = compressInto(job.codec, bytes, ORC_BLOCK_SIZE, sink);
      listed.push({ kind, column: c.id, length: BigInt(length) });
    });
  }
  const dataLength = sink.length;
  const footer = StripeFooter.encode({ streams: listed, columns: encodings, writerTimezone: 'GMT' }).finish();
  const footerLength = compressInto(job.codec, footer, ORC_BLOCK_SIZE, sink);
  return { bytes: sink.bytes(), dataLength, footerLength };
}
