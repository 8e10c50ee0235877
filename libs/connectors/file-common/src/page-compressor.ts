import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { CompressJob, CompressResult } from './page-compress-worker.js';
import type { PageCodec } from './page-codecs.js';

/**
 * One thread per process that compresses Parquet pages while the writer goes on encoding rows
 * (the second core DuckDB's writer uses too). Synchronous on the writer's side, as FileEncoder
 * is: results are taken from the port with receiveMessageOnPort, and a writer that must have
 * one waits with Atomics.wait on a counter the thread bumps. Shared by every file being written;
 * unref'd, so it never keeps a process alive.
 */
interface Thread {
  readonly worker: Worker;
  readonly port: MessagePort;
  /** [0] bumped on each answer, [1] set to 1 once the thread listens. */
  readonly signal: Int32Array;
  readonly done: Map<number, CompressResult>;
  nextId: number;
  ready: boolean;
}

/** How long the thread may take to answer one row group before the writer gives up. */
const ANSWER_MS = 120_000;

/** Row groups the thread has been sent (for tests: pages went through it). */
let sent = 0;

let thread: Thread | null | undefined; // null: it could not start, compress on the writer's thread

function start(): Thread | null {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const options = { workerData: { results: port2, signal }, transferList: [port2] };
  let worker: Worker;
  try {
    if (!fileURLToPath(import.meta.url).endsWith('.ts'))
      worker = new Worker(new URL('./page-compress-worker.js', import.meta.url), options);
    else {
      // tests and benches run the TypeScript sources: the thread loads its module through tsx's API
      const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs');
      const code = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then((api) => api.tsImport(${JSON.stringify(new URL('./page-compress-worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`;
      worker = new Worker(code, { ...options, eval: true });
    }
  } catch {
    return null;
  }
  worker.unref();
  port1.unref();
  worker.on('error', () => {
    thread = null; // later row groups compress on the writer's thread; one waiting for it fails on its timeout
  });
  // not waited for: row groups are compressed on the writer's thread until it listens
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
export function startCompressorThread(): void {
  readyThread();
}

/** A submitted row group's pages. */
export interface CompressTicket {
  readonly thread: Thread;
  readonly id: number;
}

/**
 * Sends `body` (page bodies ending at `ends`; its buffer is handed over) to the compressor
 * thread; undefined when there is no thread or it is still starting, and the caller compresses
 * itself.
 */
export function submitPages(codec: PageCodec, body: Uint8Array, ends: readonly number[]): CompressTicket | undefined {
  const t = readyThread();
  if (!t) return undefined;
  sent++;
  const id = t.nextId++;
  const job: CompressJob = { id, codec, body, ends };
  t.worker.postMessage(job, [body.buffer as ArrayBuffer]);
  return { thread: t, id };
}

/** The compressed pages of a ticket: undefined while not done, unless `wait`, which blocks until they are. */
export function collectPages(ticket: CompressTicket, wait: boolean): { body: Uint8Array; ends: readonly number[] } | undefined {
  const t = ticket.thread;
  for (;;) {
    const seen = Atomics.load(t.signal, 0);
    for (let m = receiveMessageOnPort(t.port); m !== undefined; m = receiveMessageOnPort(t.port)) {
      const r = m.message as CompressResult;
      t.done.set(r.id, r);
    }
    const r = t.done.get(ticket.id);
    if (r !== undefined) {
      t.done.delete(ticket.id);
      if (r.error !== undefined) throw new Error(`Compressing Parquet pages failed: ${r.error}`);
      return r;
    }
    if (!wait) return undefined;
    if (Atomics.wait(t.signal, 0, seen, ANSWER_MS) === 'timed-out' && Atomics.load(t.signal, 0) === seen) {
      throw new Error(`The Parquet page compressor thread did not answer in ${ANSWER_MS / 1000} s.`);
    }
  }
}

/**
 * For tests: starts the thread and resolves once it listens (false if it cannot start), and how
 * many row groups it has been sent so far.
 */
export async function compressorThreadListening(): Promise<boolean> {
  for (;;) {
    const t = readyThread();
    if (t !== undefined) return t !== null;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function rowGroupsSentToThread(): number {
  return sent;
}
