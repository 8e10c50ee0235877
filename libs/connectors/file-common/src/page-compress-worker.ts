/**
 * The page compressor thread (page-compressor.ts): compresses the pages of a row group it is
 * sent, answers on its result port, and bumps a shared counter (Atomics.notify) so that the
 * writer, which may be blocked in Atomics.wait, knows an answer is there.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { compressPages, type PageCodec } from './page-codecs.js';
import { loadZstd } from './zstd-lz4.js';

export interface CompressJob {
  readonly id: number;
  readonly codec: PageCodec;
  /** Page bodies, one after another: page i is body[ends[i-1], ends[i]). */
  readonly body: Uint8Array;
  readonly ends: readonly number[];
}

export interface CompressResult {
  readonly id: number;
  readonly body: Uint8Array;
  readonly ends: readonly number[];
  readonly error?: string;
}

const { results, signal } = workerData as { results: MessagePort; signal: Int32Array };

/** Compresses one job and answers it (answers may pass each other while zstd loads: the writer finds its own by id). */
async function answer(job: CompressJob): Promise<void> {
  let answer: CompressResult;
  try {
    if (job.codec === 'ZSTD') await loadZstd();
    answer = { id: job.id, ...compressPages(job.codec, job.body, job.ends) };
  } catch (e) {
    answer = { id: job.id, body: new Uint8Array(0), ends: [], error: e instanceof Error ? e.message : String(e) };
  }
  results.postMessage(answer, [answer.body.buffer as ArrayBuffer]);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

parentPort!.on('message', (job: CompressJob) => void answer(job));

// ready: the writer waits for this before it sends work
Atomics.store(signal, 1, 1);
Atomics.notify(signal, 1);
