import { createRequire } from 'node:module';
import {
  type Callback,
  type Connection,
  compressionsAlgorithmsByBitmask,
  crc32c as clientCrc32c,
  createAPI,
  fetchV13,
  fetchV14,
  fetchV15,
  fetchV16,
  fetchV17,
  type Reader,
} from '#kafka-client';

/**
 * CRC-32C of a batch's bytes, by @node-rs/crc32's native code on the Buffer itself; where that
 * addon has no build for the platform, by the client's (which copies the bytes first, four times
 * slower in bench/RESULTS.md's measure).
 */
const crc32c: (data: Buffer) => number = (() => {
  try {
    return (createRequire(import.meta.url)('@node-rs/crc32') as { crc32c: (data: Buffer) => number }).crc32c;
  } catch {
    return clientCrc32c;
  }
})();

/**
 * The Kafka source's Fetch (docs/decisions/0098): the client's request writer and connection, its
 * own response parser that leaves each partition's record batches as the bytes the broker sent,
 * and a cursor that walks them in place. The client's parser makes an object per record with a
 * Buffer slice for its key and its value, an array per header and a bigint timestamp delta; the
 * reader needs none of that for most formats (the value's bytes, its offset), and builds the rest
 * (native rows: key, headers, timestamp) only when asked.
 */

/** One partition of a fetch response. */
export interface FetchedPartition {
  readonly partitionIndex: number;
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly abortedTransactions: readonly { readonly producerId: bigint; readonly firstOffset: bigint }[];
  /**
   * The whole record batches, one Buffer each: a view of the response where the batch arrived in
   * one piece of it (socket reads are 64 KiB), else a copy of that batch. A partial last batch (the
   * broker stops at the size limit) is left out: the next fetch starts at its offset. null: none.
   */
  readonly records: readonly Buffer[] | null;
  /** The offset after the last whole batch, or -1 when the response holds no whole batch. */
  readonly nextOffset: number;
}

export interface FetchedTopic {
  readonly topicId: string;
  readonly partitions: readonly FetchedPartition[];
}

export interface RawFetchResponse {
  readonly errorCode: number;
  readonly responses: readonly FetchedTopic[];
}

/** The fetch of one node, as the client's Fetch takes it. */
export interface FetchRequest {
  readonly maxWaitTime: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly isolationLevel: number;
  readonly topics: readonly {
    readonly topicId: string;
    readonly partitions: readonly {
      partition: number;
      currentLeaderEpoch: number;
      fetchOffset: bigint;
      lastFetchedEpoch: number;
      partitionMaxBytes: number;
    }[];
  }[];
}

// Byte offsets in a record batch (message format v2).
const BATCH_LENGTH = 8; // int32 after the int64 base offset
const BATCH_OVERHEAD = 12; // base offset + length: the length counts the bytes after it
const BATCH_MAGIC = 16;
const BATCH_CRC = 17; // uint32: CRC-32C of the bytes from the attributes to the batch's end
const BATCH_ATTRIBUTES = 21;
const BATCH_LAST_OFFSET_DELTA = 23;
const BATCH_FIRST_TIMESTAMP = 27;
const BATCH_MAX_TIMESTAMP = 35;
const BATCH_PRODUCER_ID = 43;
const BATCH_RECORD_COUNT = 57;
/** Where the records start: the batch's header is 61 bytes. */
const BATCH_RECORDS = 61;
const COMPRESSION = 0x07;
const EMPTY = Buffer.alloc(0);
// Batch attributes: a transaction's batch, a control batch (a transaction's commit or abort marker).
const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;

/**
 * Parses a Fetch response of versions 13-17 (their layout is one: 16 and 17 add tagged fields
 * only); each partition's records stay bytes. Partition errors are returned, not thrown: the
 * reader decides (a moved leader, an offset out of range).
 */
export function parseFetchResponse(_correlationId: number, _apiKey: number, _apiVersion: number, reader: Reader): RawFetchResponse {
  reader.readInt32(); // throttle_time_ms
  const errorCode = reader.readInt16();
  reader.readInt32(); // session_id
  const responses = reader.readArray((r) => ({
    topicId: r.readUUID(),
    partitions: r.readArray((r) => {
      const partitionIndex = r.readInt32();
      const partitionError = r.readInt16();
      const highWatermark = r.readInt64();
      const lastStableOffset = r.readInt64();
      r.readInt64(); // log_start_offset
      const abortedTransactions = r.readNullableArray((r) => ({ producerId: r.readInt64(), firstOffset: r.readInt64() })) ?? [];
      r.readInt32(); // preferred_read_replica
      // COMPACT_RECORDS: the length plus one, 0 for null.
      const size = r.readUnsignedVarInt() - 1;
      let records: Buffer[] | null = null;
      let nextOffset = -1;
      if (size > 0) {
        // The batches, each cut out without copying the whole (a copy of a few MiB per response).
        const bytes = r.buffer;
        const stop = r.position + size;
        records = [];
        let last = -1;
        for (let pos = r.position, end = batchEnd(bytes, pos, stop); end >= 0; pos = end, end = batchEnd(bytes, pos, stop)) {
          const batch = bytes.subarray(pos, end);
          records.push(batch.buffers.length === 1 ? batch.buffers[0] : batch.buffer);
          last = pos;
        }
        if (last >= 0) nextOffset = Number(bytes.readBigInt64BE(last)) + bytes.readInt32BE(last + BATCH_LAST_OFFSET_DELTA) + 1;
        r.skip(size);
      }
      return {
        partitionIndex,
        errorCode: partitionError,
        highWatermark,
        lastStableOffset,
        abortedTransactions,
        records,
        nextOffset,
      };
    }),
  }));
  return { errorCode, responses };
}

/** Where the batch at `pos` ends, or -1 when the bytes up to `stop` hold no whole batch there (the end, or a partial batch). */
function batchEnd(b: { readInt32BE(offset: number): number }, pos: number, stop: number): number {
  if (stop - pos < BATCH_RECORDS) return -1;
  const end = pos + BATCH_OVERHEAD + b.readInt32BE(pos + BATCH_LENGTH);
  return end > stop ? -1 : end;
}

const VERSIONS = [
  [17, fetchV17.createRequest],
  [16, fetchV16.createRequest],
  [15, fetchV15.createRequest],
  [14, fetchV14.createRequest],
  [13, fetchV13.createRequest],
] as const;

type FetchApi = ReturnType<typeof createAPI<Parameters<typeof fetchV17.createRequest>, RawFetchResponse>>;

/** What a fetcher needs of a client (any of the package's clients): its broker's APIs and its connections. */
export interface FetchingClient {
  listApis(): Promise<{ name: string; minVersion: number; maxVersion: number }[]>;
  readonly connections: { get(broker: { host: string; port: number }): Promise<Connection> };
}

/**
 * Fetch requests of one reader: the highest version both this code and the broker know (13 and
 * up: the requests name topics by id), over its client's own connections.
 */
export class RawFetcher {
  private api?: Promise<FetchApi>;

  constructor(private readonly client: FetchingClient) {}

  private version(): Promise<FetchApi> {
    this.api ??= this.client.listApis().then((apis) => {
      const fetch = apis.find((a) => a.name === 'Fetch');
      const found = VERSIONS.find(([v]) => fetch !== undefined && v >= fetch.minVersion && v <= fetch.maxVersion);
      if (!found)
        throw new Error(
          `the broker's Fetch versions (${fetch ? `${fetch.minVersion}-${fetch.maxVersion}` : 'none'}) include none of 13-17 (Kafka 3.1 or later is needed)`,
        );
      return createAPI(1, found[0], found[1], parseFetchResponse);
    });
    this.api.catch(() => {
      this.api = undefined; // asked again at the next fetch
    });
    return this.api;
  }

  /** Sends one Fetch to `node` (a broker of `brokers`, from the consumer's metadata). */
  async fetch(broker: { host: string; port: number }, request: FetchRequest): Promise<RawFetchResponse> {
    const api = await this.version();
    const connection: Connection = await this.client.connections.get(broker);
    const response = await new Promise<RawFetchResponse>((resolve, reject) => {
      const done: Callback<RawFetchResponse> = (err, result) => (err ? reject(err) : resolve(result as RawFetchResponse));
      api(
        connection,
        request.maxWaitTime,
        request.minBytes,
        request.maxBytes,
        request.isolationLevel,
        0,
        0,
        request.topics as Parameters<typeof fetchV17.createRequest>[6],
        [],
        '',
        done,
      );
    });
    if (response.errorCode !== 0)
      throw new Error(`the Fetch to ${broker.host}:${broker.port} failed with Kafka error code ${response.errorCode}`);
    return response;
  }
}

/** A zigzag varint's end, set by readVarint and readVarlong (no tuple per read). */
let at = 0;

/** A zigzag varint (int32) at `p`; its end goes to `at`. */
function readVarint(b: Buffer, p: number): number {
  let c = b[p++];
  let r = c & 0x7f;
  let shift = 7;
  while (c & 0x80) {
    if (shift > 28) throw new Error('a varint in a record batch is longer than 5 bytes');
    c = b[p++];
    r |= (c & 0x7f) << shift;
    shift += 7;
  }
  at = p;
  return (r >>> 1) ^ -(r & 1);
}

/** A zigzag varlong at `p` as a number (exact to 2^53); its end goes to `at`. */
function readVarlong(b: Buffer, p: number): number {
  let c = b[p++];
  let r = c & 0x7f;
  let scale = 128;
  while (c & 0x80) {
    if (scale > 2 ** 63) throw new Error('a varlong in a record batch is longer than 10 bytes');
    c = b[p++];
    r += (c & 0x7f) * scale;
    scale *= 128;
  }
  at = p;
  return r % 2 === 1 ? -(r + 1) / 2 : r / 2;
}

/** A record batch whose bytes do not match its CRC-32C: damaged on disk or on the way. */
export class CorruptBatchError extends Error {
  constructor(
    readonly offset: bigint,
    readonly stored: number,
    readonly computed: number,
  ) {
    super(`the record batch at offset ${offset} is corrupt: its CRC-32C is ${stored}, its bytes give ${computed}`);
  }
}

/**
 * Walks the record batches of one partition (its fetched batches, or one buffer of batches), a
 * batch and then its records at a time, in place. A partial batch at the end of a buffer (the
 * broker stops at the size limit) is left: the next fetch starts at its offset. Compressed batches are decompressed by the client's own algorithms,
 * only when their records are read.
 */
export class BatchCursor {
  private pos = 0;
  private batchStart = 0;
  private batchStop = 0;
  // The batch.
  firstOffset = 0;
  lastOffsetDelta = 0;
  attributes = 0;
  producerId = 0n;
  // The records of the batch: the bytes holding them (the batch's, or the decompressed ones).
  data: Buffer;
  private p = 0;
  private stop = 0;
  private left = 0;
  // The record.
  offsetDelta = 0;
  timestampDelta = 0;
  /** The key's bytes in `data`, keyStart -1 for a null key. */
  keyStart = -1;
  keyEnd = -1;
  /** The value's bytes in `data`, valueStart -1 for a null value (a tombstone). */
  valueStart = -1;
  valueEnd = -1;
  private headersAt = 0;

  /** The buffer of batches read now, and the next of `segments`. */
  private bytes: Buffer;
  private segment = 0;

  /**
   * `segments`: buffers of whole batches (a fetched partition's records), or one buffer of batches.
   * `checkCrcs` (kafka.config check.crcs, true by default as in Kafka's Java consumer): each batch's
   * CRC-32C is checked before it is read; a batch that fails it throws CorruptBatchError.
   */
  constructor(
    private readonly segments: readonly Buffer[] | Buffer,
    private readonly checkCrcs = true,
  ) {
    if (Buffer.isBuffer(segments)) this.segments = [segments];
    this.bytes = this.data = EMPTY;
  }

  /** Moves to the next whole batch; false at the end. */
  nextBatch(): boolean {
    let b = this.bytes;
    let end = batchEnd(b, this.pos, b.length);
    while (end < 0) {
      const next = (this.segments as readonly Buffer[])[this.segment++];
      if (next === undefined) return false;
      this.bytes = b = next;
      this.pos = 0;
      end = batchEnd(b, 0, b.length);
    }
    const pos = this.pos;
    const magic = b[pos + BATCH_MAGIC];
    if (magic !== 2)
      throw new Error(
        `the record batch at offset ${b.readBigInt64BE(pos)} is in message format v${magic}; this reader reads v2 (Kafka 0.11 and later)`,
      );
    if (this.checkCrcs) {
      const stored = b.readUInt32BE(pos + BATCH_CRC);
      const computed = crc32c(b.subarray(pos + BATCH_ATTRIBUTES, end));
      if (computed !== stored) throw new CorruptBatchError(b.readBigInt64BE(pos), stored, computed);
    }
    this.batchStart = pos;
    this.batchStop = end;
    this.pos = end;
    this.firstOffset = Number(b.readBigInt64BE(pos));
    this.attributes = b.readInt16BE(pos + BATCH_ATTRIBUTES);
    this.lastOffsetDelta = b.readInt32BE(pos + BATCH_LAST_OFFSET_DELTA);
    this.producerId = b.readBigInt64BE(pos + BATCH_PRODUCER_ID);
    this.left = 0;
    return true;
  }

  /** The batch's first timestamp (CreateTime base) and max timestamp (its LogAppendTime), as bigint. */
  firstTimestamp(): bigint {
    return this.bytes.readBigInt64BE(this.batchStart + BATCH_FIRST_TIMESTAMP);
  }

  maxTimestamp(): bigint {
    return this.bytes.readBigInt64BE(this.batchStart + BATCH_MAX_TIMESTAMP);
  }

  /** Gets the batch's records ready to read (decompressing them if need be). */
  openRecords(): void {
    const b = this.bytes;
    this.left = b.readInt32BE(this.batchStart + BATCH_RECORD_COUNT);
    const compression = this.attributes & COMPRESSION;
    if (compression === 0) {
      this.data = b;
      this.p = this.batchStart + BATCH_RECORDS;
      this.stop = this.batchStop;
      return;
    }
    const algorithm = compressionsAlgorithmsByBitmask[compression];
    if (!algorithm)
      throw new Error(`the record batch at offset ${this.firstOffset} has an unknown compression (attributes ${this.attributes})`);
    const data = algorithm.decompressSync(b.subarray(this.batchStart + BATCH_RECORDS, this.batchStop));
    this.data = data;
    this.p = 0;
    this.stop = data.length;
  }

  /** Moves to the next record of the batch (after openRecords); false after its last. */
  nextRecord(): boolean {
    if (this.left === 0) return false;
    this.left--;
    const b = this.data;
    const length = readVarint(b, this.p);
    let p = at;
    const end = p + length;
    if (length < 0 || end > this.stop) throw new Error(`a record of the batch at offset ${this.firstOffset} runs past its batch`);
    p++; // attributes (unused)
    this.timestampDelta = readVarlong(b, p);
    this.offsetDelta = readVarint(b, at);
    const keyLength = readVarint(b, at);
    p = at;
    // A null key or value has length -1: its start and end are -1.
    this.keyStart = keyLength < 0 ? -1 : p;
    this.keyEnd = keyLength < 0 ? -1 : (p += keyLength);
    const valueLength = readVarint(b, p);
    p = at;
    this.valueStart = valueLength < 0 ? -1 : p;
    this.valueEnd = valueLength < 0 ? -1 : (p += valueLength);
    if (p > end) throw new Error(`a record of the batch at offset ${this.firstOffset} runs past its length`);
    this.headersAt = p;
    this.p = end;
    return true;
  }

  /** The record's key, a copy (null for none). */
  key(): Buffer | null {
    return this.copy(this.keyStart, this.keyEnd);
  }

  /** The record's value, a copy (null for a tombstone). */
  value(): Buffer | null {
    return this.copy(this.valueStart, this.valueEnd);
  }

  private copy(start: number, end: number): Buffer | null {
    return start < 0 ? null : Buffer.from(this.data.subarray(start, end));
  }

  /** The record's headers in order: key and value bytes (views of the batch), null where absent. */
  headers(): [Buffer | null, Buffer | null][] {
    const b = this.data;
    const count = readVarint(b, this.headersAt);
    let p = at;
    const out: [Buffer | null, Buffer | null][] = [];
    for (let i = 0; i < count; i++) {
      const kl = readVarint(b, p);
      p = at;
      const k = kl < 0 ? null : b.subarray(p, (p += kl));
      const vl = readVarint(b, p);
      p = at;
      const v = vl < 0 ? null : b.subarray(p, (p += vl));
      out.push([k, v]);
    }
    if (p > this.p) throw new Error(`the headers of a record of the batch at offset ${this.firstOffset} run past its length`);
    return out;
  }
}

/**
 * read_committed: the broker sends records up to the last stable offset, with the transactions
 * aborted there (producer, first offset); their records are skipped up to their abort marker.
 * Control batches (the markers) carry no records to read.
 */
export class AbortedTransactions {
  private readonly queue: { readonly producerId: bigint; readonly firstOffset: bigint }[];
  private readonly producers = new Set<bigint>();

  constructor(aborted: readonly { readonly producerId: bigint; readonly firstOffset: bigint }[]) {
    this.queue = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  }

  /** Whether the cursor's batch is skipped: a control batch, or a batch of an aborted transaction. Batches in offset order. */
  skips(batch: BatchCursor): boolean {
    const last = BigInt(batch.firstOffset + batch.lastOffsetDelta);
    while (this.queue.length > 0 && (this.queue[0]?.firstOffset ?? 0n) <= last)
      this.producers.add((this.queue.shift() as { producerId: bigint }).producerId);
    if (batch.attributes & CONTROL) {
      this.producers.delete(batch.producerId);
      return true;
    }
    return (batch.attributes & TRANSACTIONAL) !== 0 && this.producers.has(batch.producerId);
  }
}
