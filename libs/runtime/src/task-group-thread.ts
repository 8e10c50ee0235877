import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { TaskGroupDescriptor } from './descriptor.js';
import type { FromTaskGroup, ToTaskGroup } from './protocol.js';

const entryTs = new URL('./thread-entry.ts', import.meta.url).href;
const bootstrap = fileURLToPath(new URL('./thread-bootstrap.mjs', import.meta.url));
const entryJs = fileURLToPath(new URL('./thread-entry.js', import.meta.url));
/**
 * TIDEWAY_THREAD_CPU_PROF=dir writes a V8 CPU profile of every task-group thread into dir (the
 * threads run the data path; `node --cpu-prof` alone profiles only the main thread).
 */
const profileDir = process.env.TIDEWAY_THREAD_CPU_PROF;
const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];

/**
 * The young generation of a task-group thread, in MB (a third of it is each semi-space). A task
 * thread's rows live from the source's poll to the sink's write, tens of milliseconds: with V8's
 * default (about 48 MB) a scavenge came every 12 MB of garbage, copied the batches in flight each
 * time and promoted many of them. Twice the default halves the scavenges and their promotions:
 * jobs measured 2-25% faster, their peak RSS from 65 MB lower to 40 MB higher (docs/decisions/0037).
 */
const YOUNG_GENERATION_MB = 96;

/**
 * The main-thread handle of a task group running in its own worker thread (one slot = one
 * thread, so parallelism N uses N cores).
 */
export class TaskGroupThread {
  private readonly worker: Worker;
  private exited = false;

  private started = false;

  /**
   * Spawns the thread. With `start` false it boots but waits for `start()` (a restored task
   * group waits for its state: SeaTunnel's WAITING_RESTORE).
   */
  constructor(
    descriptor: TaskGroupDescriptor,
    onMessage: (msg: FromTaskGroup) => void,
    onExit: (code: number, error?: Error) => void,
    start = true,
  ) {
    const fromSource = import.meta.url.endsWith('.ts');
    // Running from sources (tsx), the thread needs the same loader and conditions.
    this.worker = new Worker(fromSource ? bootstrap : entryJs, {
      execArgv: [...(fromSource ? ['--conditions=source'] : []), ...profiling],
      workerData: { entry: entryTs },
      name: `tg-${descriptor.jobId}-${descriptor.pipelineId}-${descriptor.taskGroupIndex}`,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    let lastError: Error | undefined;
    this.worker.on('message', onMessage);
    this.worker.on('error', (err) => {
      lastError = err;
    });
    this.worker.on('exit', (code) => {
      this.exited = true;
      onExit(code, lastError);
    });
    if (start) this.start(descriptor);
  }

  /** Starts the task group (once); the descriptor may now carry its restored state. */
  start(descriptor: TaskGroupDescriptor): void {
    if (this.started) return;
    this.started = true;
    this.post({ type: 'start', descriptor });
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** Sends a message; buffers in `transfer` move to the thread without a copy. */
  post(msg: ToTaskGroup, transfer?: ArrayBuffer[]): void {
    if (!this.exited) this.worker.postMessage(msg, transfer);
  }

  get threadId(): number {
    return this.worker.threadId;
  }

  /** Kills the thread at once (used when a cancel does not end it in time). */
  async terminate(): Promise<void> {
    if (!this.exited) await this.worker.terminate();
  }
}
