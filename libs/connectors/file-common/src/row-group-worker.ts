/**
 * The row-group thread (row-group-thread.ts): encodes and compresses the Parquet row groups
 * (parquet-row-group.ts) and ORC stripes (orc-stripe.ts) it is sent, answers on its result port, and bumps a shared counter
 * (Atomics.notify) so that the writer, which may be blocked in Atomics.wait, knows an answer is
 * there.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { PageCodec } from './page-codecs.js';
import { buffersOf, type EncodedRowGroup, encodeRowGroup, type RawColumn } from './parquet-row-group.js';
import { loadZstd } from './zstd-lz4.js';
import { CompressionKind } from './gen/orc_file.js';
import { type EncodedOrcStripe, encodeOrcStripe, type OrcStripeJob } from './orc-stripe.js';
import { decompress } from './orc-compression.js';
import { columnBuffers, decodeStripeColumns, type StripeColumns, type Streams } from './orc-decode.js';
import { detach } from '@tideway/common';
import { Arena, decodeInArena } from './orc-arena.js';

export interface EncodeJob {
  readonly id: number;
  readonly codec?: 'UNCOMPRESSED' | PageCodec;
  /** Views into one buffer, handed over with the job. */
  readonly columns?: readonly RawColumn[];
  /** An ORC stripe instead of a Parquet row group. */
  readonly orc?: OrcStripeJob;
  /** The compressed streams of an ORC stripe being read, named by `keys`, to decompress and decode instead, answered on `reply`. */
  readonly orcStripeRead?: {
    readonly codec: CompressionKind;
    /** The stripe's arena (orc-arena.ts): the streams one after the other from its start, stream i ending at ends[i]; what is decoded goes after them. */
    readonly arena: SharedArrayBuffer;
    readonly ends: readonly number[];
    readonly keys: readonly string[];
    readonly columns: StripeColumns;
    readonly reply: MessagePort;
  };
}

export interface EncodeResult {
  readonly id: number;
  readonly group?: EncodedRowGroup;
  /** The job's columns, their buffers handed back for the writer's next row groups. */
  readonly columns?: readonly RawColumn[];
  readonly orc?: EncodedOrcStripe;
  readonly error?: string;
}

const { results, signal } = workerData as { results: MessagePort; signal: Int32Array };

/** Encodes one job and answers it (answers may pass each other while zstd loads: the writer finds its own by id). */
async function answer(job: EncodeJob): Promise<void> {
  if (job.orcStripeRead) {
    const { codec, ends, keys, columns, reply } = job.orcStripeRead;
    const arena = new Arena(job.orcStripeRead.arena);
    const packed = new Uint8Array(arena.buffer, 0, ends.length === 0 ? 0 : ends[ends.length - 1]);
    arena.take(packed.byteLength);
    try {
      if (codec === CompressionKind.ZSTD) await loadZstd();
      const decoded = decodeInArena(arena, () => {
        const streams: Streams = new Map();
        for (let i = 0; i < keys.length; i++) {
          let s = decompress(codec, packed.subarray(i === 0 ? 0 : ends[i - 1], ends[i]));
          // handed over with the answer when not in the arena: a small one may be a view of Buffer's pool, which stays here
          if (s.buffer.byteLength <= Buffer.poolSize && s.byteLength !== s.buffer.byteLength) s = s.slice();
          streams.set(keys[i], s);
        }
        return decodeStripeColumns(columns, streams);
      });
      reply.postMessage({ columns: decoded, wanted: arena.wanted }, columnBuffers(decoded));
    } catch (e) {
      reply.postMessage({ error: e instanceof Error ? e.message : String(e), wanted: arena.wanted });
    }
    reply.close();
    return;
  }
  let answer: EncodeResult;
  let transfer: ArrayBuffer[];
  try {
    if (job.orc) {
      if (job.orc.codec === CompressionKind.ZSTD) await loadZstd();
      const orc = encodeOrcStripe(job.orc);
      answer = { id: job.id, orc };
      transfer = [orc.bytes.buffer as ArrayBuffer];
    } else {
      if (job.codec === 'ZSTD') await loadZstd();
      const group = encodeRowGroup(job.codec!, job.columns!);
      answer = { id: job.id, group, columns: job.columns };
      transfer = [group.bytes.buffer as ArrayBuffer, ...buffersOf(job.columns!)];
    }
  } catch (e) {
    answer = { id: job.id, error: e instanceof Error ? e.message : String(e) };
    transfer = [];
  }
  results.postMessage(answer, transfer);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

parentPort!.on('message', (job: EncodeJob) => detach(answer(job), 'encoding a row group'));

// ready: the writer waits for this before it sends work
Atomics.store(signal, 1, 1);
Atomics.notify(signal, 1);
