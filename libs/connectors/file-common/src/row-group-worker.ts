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
import { detach } from '@tideway/common';

export interface EncodeJob {
  readonly id: number;
  readonly codec?: 'UNCOMPRESSED' | PageCodec;
  /** Views into one buffer, handed over with the job. */
  readonly columns?: readonly RawColumn[];
  /** An ORC stripe instead of a Parquet row group. */
  readonly orc?: OrcStripeJob;
  /** Compressed sections of an ORC file (a stripe's streams) to decompress instead, answered on `reply`. */
  readonly orcSections?: { readonly codec: CompressionKind; readonly sections: readonly Uint8Array[]; readonly reply: MessagePort };
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
  if (job.orcSections) {
    const { codec, sections, reply } = job.orcSections;
    try {
      if (codec === CompressionKind.ZSTD) await loadZstd();
      const out = sections.map((s) => decompress(codec, s));
      // each one's own buffer, handed over (a section stored as it was is a view of the read bytes, copied)
      const own = out.map((o) => (o.byteOffset === 0 && o.byteLength === o.buffer.byteLength ? o : o.slice()));
      reply.postMessage({ sections: own }, [...new Set(own.map((o) => o.buffer as ArrayBuffer))]);
    } catch (e) {
      reply.postMessage({ error: e instanceof Error ? e.message : String(e) });
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
