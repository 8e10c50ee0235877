import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { PageCodec } from './page-codecs.js';
import type { EncodedRowGroup, RawColumn } from './parquet-row-group.js';
import type { EncodeJob, EncodeResult } from './row-group-worker.js';
import { type EncodedOrcStripe, orcJobBuffers, type OrcStripeJob } from './orc-stripe.js';
import type { CompressionKind } from './gen/orc_file.js';
import type { ColumnData, StripeColumns } from './orc-decode.js';
import { acquireArena, arenaRelease } from './orc-arena.js';

/**
 * One thread per process that encodes and compresses Parquet row groups (parquet-row-group.ts:
 * dictionaries, pages, statistics) and ORC stripes (orc-stripe.ts) while the writer goes on
 * buffering rows (the second core DuckDB's writer uses too). Synchronous on the writer's side, as FileEncoder
 * is: results are taken from the port with receiveMessageOnPort, and a writer that must have
 * one waits with Atomics.wait on a counter the thread bumps. Shared by every file being written;
 * unref'd, so it never keeps a process alive.
 */
interface Thread {
  readonly worker: Worker;
  readonly port: MessagePort;
  /** [0] bumped on each answer, [1] set to 1 once the thread listens. */
  readonly signal: Int32Array;
  readonly done: Map<number, EncodeResult>;
  nextId: number;
  ready: boolean;
}

/** How long the thread may take to answer one row group before the writer gives up. */
const ANSWER_MS = 120_000;

/** Row groups the thread has been sent (for tests: pages went through it). */
let sent = 0;
/** ORC stripes the thread has decoded (for tests). */
let orcStripesDecoded = 0;

let thread: Thread | null | undefined; // null: it could not start, encode on the writer's thread

function start(): Thread | null {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const options = { workerData: { results: port2, signal }, transferList: [port2] };
  let worker: Worker;
  try {
    if (!fileURLToPath(import.meta.url).endsWith('.ts')) worker = new Worker(new URL('./row-group-worker.js', import.meta.url), options);
    else {
      // tests and benches run the TypeScript sources: the thread loads its module through tsx's API
      const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs');
      const code = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then((api) => api.tsImport(${JSON.stringify(new URL('./row-group-worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`;
      worker = new Worker(code, { ...options, eval: true });
    }
  } catch {
    return null;
  }
  worker.unref();
  port1.unref();
  worker.on('error', () => {
    thread = null; // later row groups are encoded on the writer's thread; one waiting for it fails on its timeout
  });
  // not waited for: row groups are encoded on the writer's thread until it listens
  return { worker, port: port1, signal, done: new Map(), nextId: 1, ready: false };
}

/** The thread, started if it was not; undefined while it is starting, null if it cannot start or died. */
function readyThread(): Thread | null | undefined {
  if (thread === undefined) thread = start();
  if (thread === null) return null;
  if (!thread.ready) thread.ready = Atomics.load(thread.signal, 1) === 1;
  return thread.ready ? thread : undefined;
}

/** Starts the thread, if it was not, without waiting for it: a writer calls this when it opens a file, so the thread is up by its first row group. */
export function startRowGroupThread(): void {
  readyThread();
}

/** A submitted row group. */
export interface RowGroupTicket {
  readonly thread: Thread;
  readonly id: number;
}

/** Sends a job to the thread, handing over `buffers`; undefined when there is no thread or it is still starting. */
function submit(job: Omit<EncodeJob, 'id'>, buffers: ArrayBuffer[]): RowGroupTicket | undefined {
  const t = readyThread();
  if (!t) return undefined;
  sent++;
  const id = t.nextId++;
  t.worker.postMessage({ ...job, id }, buffers);
  return { thread: t, id };
}

/**
 * Sends a row group's columns to the thread, handing over `buffers` (those the columns view);
 * undefined when there is no thread or it is still starting, and the caller encodes them itself.
 */
export function submitRowGroup(
  codec: 'UNCOMPRESSED' | PageCodec,
  columns: readonly RawColumn[],
  buffers: ArrayBuffer[],
): RowGroupTicket | undefined {
  return submit({ codec, columns }, buffers);
}

/** Sends an ORC stripe's columns to the thread (their buffers handed over); undefined when the caller encodes it itself. */
export function submitOrcStripe(job: OrcStripeJob): RowGroupTicket | undefined {
  return submit({ orc: job }, orcJobBuffers(job.columns));
}

/** The answer of a ticket: undefined while not done, unless `wait`, which blocks until it is. */
function collect(ticket: RowGroupTicket, wait: boolean, what: string): EncodeResult | undefined {
  const t = ticket.thread;
  for (;;) {
    const seen = Atomics.load(t.signal, 0);
    for (let m = receiveMessageOnPort(t.port); m !== undefined; m = receiveMessageOnPort(t.port)) {
      const r = m.message as EncodeResult;
      t.done.set(r.id, r);
    }
    const r = t.done.get(ticket.id);
    if (r !== undefined) {
      t.done.delete(ticket.id);
      if (r.error !== undefined) throw new Error(`Encoding ${what} failed: ${r.error}`);
      return r;
    }
    if (!wait) return undefined;
    if (Atomics.wait(t.signal, 0, seen, ANSWER_MS) === 'timed-out' && Atomics.load(t.signal, 0) === seen) {
      throw new Error(`The row-group thread did not answer in ${ANSWER_MS / 1000} s (encoding ${what}).`);
    }
  }
}

/**
 * The encoded row group of a ticket, with the columns it was sent (their buffers handed back):
 * undefined while not done, unless `wait`, which blocks until it is.
 */
export function collectRowGroup(
  ticket: RowGroupTicket,
  wait: boolean,
): { group: EncodedRowGroup; columns: readonly RawColumn[] } | undefined {
  const r = collect(ticket, wait, 'a Parquet row group');
  return r && { group: r.group!, columns: r.columns! };
}

/** The encoded ORC stripe of a ticket: undefined while not done, unless `wait`. */
export function collectOrcStripe(ticket: RowGroupTicket, wait: boolean): EncodedOrcStripe | undefined {
  return collect(ticket, wait, 'an ORC stripe')?.orc;
}

/**
 * A stripe's compressed streams (`sections`, named by `keys`), read ahead by its reader,
 * decompressed and decoded (orc-decode.ts) on the thread while the reader's thread makes the
 * values of the stripe before, into an arena (orc-arena.ts) that `release` gives back once the
 * stripe's values are made; undefined when there is no thread (or it is still starting), or it
 * fails, and the caller does both itself (and so names the stream or column that fails).
 */
export async function decodeOrcStripeOnThread(
  codec: CompressionKind,
  sections: readonly Uint8Array[],
  keys: readonly string[],
  columns: StripeColumns,
): Promise<{ columns: ColumnData[]; release: () => void } | undefined> {
  const t = readyThread();
  if (!t) return undefined;
  const { port1, port2 } = new MessageChannel();
  let gone: (() => void) | undefined;
  try {
    const answer = new Promise<{ columns?: ColumnData[]; error?: string; wanted?: number }>((resolve) => {
      port1.once('message', resolve);
      gone = () => resolve({}); // the thread died: done by the caller
      t.worker.once('exit', gone);
    });
    // the sections (views of a read that may share its buffer) are copied one after the other to the arena's start
    let total = 0;
    for (const s of sections) total += s.byteLength;
    const arena = acquireArena(total);
    const packed = new Uint8Array(arena);
    const ends: number[] = [];
    let at = 0;
    for (const s of sections) {
      packed.set(s, at);
      at += s.byteLength;
      ends.push(at);
    }
    t.worker.postMessage({ id: 0, orcStripeRead: { codec, arena, ends, keys, columns, reply: port2 } }, [port2]);
    const { columns: decoded, error, wanted } = await answer;
    const release = arenaRelease(arena, () => wanted ?? 0);
    if (!decoded) {
      if (error !== undefined) release(); // else the thread died, maybe while writing to it
      return undefined;
    }
    orcStripesDecoded++;
    return { columns: decoded, release };
  } finally {
    if (gone) t.worker.off('exit', gone);
    port1.close();
  }
}

/**
 * For tests: starts the thread and resolves once it listens (false if it cannot start), and how
 * many row groups it has been sent so far.
 */
export async function rowGroupThreadListening(): Promise<boolean> {
  for (;;) {
    const t = readyThread();
    if (t !== undefined) return t !== null;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function rowGroupsSentToThread(): number {
  return sent;
}

/** For tests: how many ORC stripes being read the thread has decoded so far. */
export function orcStripesDecodedOnThread(): number {
  return orcStripesDecoded;
}
