import { SHARE_ENV, Worker, type ResourceLimits } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { ErrorCode, TidewayError } from '@tideway/common';
import { CallClock, overdueCall, type CallLimits } from './call-clock.js';
import { chainNodes, type TaskGroupDescriptor } from './descriptor.js';
import type { FromTaskGroup, PluginRef, ToTaskGroup } from './protocol.js';

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
 * Starts a worker thread on an entry module: `entryTs` (a file URL) when running from the
 * TypeScript sources, through tsx's loader with the same conditions, else the built `entryJs`.
 * The entry finds `data` in its workerData. With `shareEnv` the thread sees this process's
 * environment as it changes (Node's SHARE_ENV) instead of a copy taken now.
 */
export function spawnThread(
  entry: { ts: string; js: string },
  data: Record<string, unknown>,
  name: string,
  resourceLimits?: ResourceLimits,
  shareEnv = false,
): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  return new Worker(fromSource ? bootstrap : entry.js, {
    execArgv: [...(fromSource ? ['--conditions=source'] : []), ...profiling],
    workerData: { ...data, entry: entry.ts },
    name,
    ...(resourceLimits ? { resourceLimits } : {}),
    ...(shareEnv ? { env: SHARE_ENV } : {}),
  });
}

/** Starts a task thread: it loads the runtime, then waits for its `start` message. */
function spawnTaskThread(clock: CallClock, name: string, shareEnv = false): Worker {
  return spawnThread(
    { ts: entryTs, js: entryJs },
    { clock: clock.buffer },
    name,
    { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    shareEnv,
  );
}

/** How long after a task thread ends its worker starts the next spare (SpareTaskThread.fillSoon). */
const REFILL_DELAY_MS = 500;

/**
 * One task thread started ahead of the task group it will run (docs/decisions/0079): a thread
 * takes a few hundred milliseconds to start and load the runtime (more from TypeScript
 * sources), and a deploy that finds one ready skips that wait. A worker fills it when it starts
 * and again shortly after a task thread ends (fillSoon); it never keeps more than one. A spare that dies before it
 * is taken (it failed to load) is dropped, and the deploy starts its own thread.
 */
export class SpareTaskThread {
  private spare: { worker: Worker; clock: CallClock; alive: boolean; release: () => void } | undefined;
  private closed = false;
  private refill?: NodeJS.Timeout;

  /**
   * @param shareEnv the threads see this process's environment as it changes, not a copy taken
   *   when each starts: `tideway run` starts its first spare before it has read its engine
   *   config, which sets variables the task threads read later (per-job logs, plugin folders,
   *   TLS files; docs/decisions/0096).
   */
  constructor(private readonly shareEnv = false) {}

  /**
   * Fills the spare in REFILL_DELAY_MS, when a task thread has ended: a `tideway run` whose job
   * just finished stops its worker within that time, and started a thread only to terminate it
   * (20-30 ms of CPU in every run). A restart comes after the job's retry interval (3 s by
   * default), by which time the spare is there again.
   */
  fillSoon(): void {
    if (this.closed || this.refill) return;
    this.refill = setTimeout(() => this.fill(), REFILL_DELAY_MS);
    this.refill.unref();
  }

  /** Starts a spare thread unless one is there (or this was closed). */
  fill(): void {
    clearTimeout(this.refill);
    this.refill = undefined;
    if (this.closed || this.spare?.alive) return;
    const clock = new CallClock();
    const worker = spawnTaskThread(clock, 'tg-spare', this.shareEnv);
    // A spare keeps no process alive; the task group that takes it does.
    worker.unref();
    const spare = { worker, clock, alive: true, release: () => {} };
    const ended = (): void => {
      spare.alive = false;
    };
    worker.on('error', ended);
    worker.on('exit', ended);
    spare.release = () => {
      worker.off('error', ended);
      worker.off('exit', ended);
    };
    this.spare = spare;
  }

  /**
   * Has the spare thread import these plugins' packages now (a local-mode job knows its plugins
   * before its services start): the task group that takes the thread then finds them loaded
   * instead of importing them after its deploy (docs/decisions/0090).
   */
  preload(plugins: PluginRef[]): void {
    if (this.spare?.alive && plugins.length) this.spare.worker.postMessage({ type: 'preload', plugins } satisfies ToTaskGroup);
  }

  /** The spare thread, started or still starting, if one is alive; the caller owns it from now on. */
  take(): { worker: Worker; clock: CallClock } | undefined {
    const spare = this.spare;
    this.spare = undefined;
    if (!spare?.alive) return undefined;
    spare.release();
    spare.worker.ref();
    return spare;
  }

  /** Stops the spare thread; no other starts. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refill);
    const spare = this.spare;
    this.spare = undefined;
    if (spare?.alive) await spare.worker.terminate();
  }
}

export type { CallLimits };

/** How often the main thread looks at a task thread's call clock. */
const CALL_WATCH_MS = 1000;

/**
 * The main-thread handle of a task group running in its own worker thread (one slot = one
 * thread, so parallelism N uses N cores). With call limits it watches the thread's call clock:
 * a plugin call past its limit (a busy loop, a promise that never settles) ends the thread, and
 * the task fails naming the plugin, the method and the limit; the job restarts as after any
 * task failure.
 */
export class TaskGroupThread {
  private readonly worker: Worker;
  private exited = false;
  private readonly clock: CallClock;
  private watch?: NodeJS.Timeout;

  private started = false;

  /**
   * Spawns the thread, or takes the spare one started ahead. With `start` false it boots but
   * waits for `start()` (a restored task group waits for its state: SeaTunnel's WAITING_RESTORE).
   */
  constructor(
    descriptor: TaskGroupDescriptor,
    onMessage: (msg: FromTaskGroup) => void,
    onExit: (code: number, error?: Error) => void,
    start = true,
    limits: CallLimits = {},
    spare?: SpareTaskThread,
  ) {
    const taken = spare?.take();
    this.clock = taken?.clock ?? new CallClock();
    this.worker =
      taken?.worker ?? spawnTaskThread(this.clock, `tg-${descriptor.jobId}-${descriptor.pipelineId}-${descriptor.taskGroupIndex}`);
    let lastError: Error | undefined;
    this.worker.on('message', onMessage);
    this.worker.on('error', (err) => {
      lastError = err;
    });
    this.worker.on('exit', (code) => {
      this.exited = true;
      clearInterval(this.watch);
      onExit(code, lastError);
    });
    if (Object.values(limits).some((ms) => ms > 0)) {
      this.watch = setInterval(() => {
        const overdue = this.overdueCall(descriptor, limits);
        if (!overdue) return;
        clearInterval(this.watch);
        lastError = overdue;
        this.terminate().catch(() => undefined);
      }, CALL_WATCH_MS);
      this.watch.unref();
    }
    if (start) this.start(descriptor);
  }

  /** The error of a plugin call past its limit, if one is. */
  private overdueCall(descriptor: TaskGroupDescriptor, limits: CallLimits): Error | undefined {
    const call = this.clock.current();
    if (!call) return undefined;
    const plugins = [...chainNodes(descriptor.root), ...(descriptor.deadLetter ? [descriptor.deadLetter] : [])];
    const sentence = overdueCall(call, limits, plugins.find((n) => n.vertexId === call.vertexId)?.plugin);
    if (!sentence) return undefined;
    return new TidewayError(ErrorCode.TASK_FAILED, `${sentence}; its task was stopped`, { retryable: true, jobId: descriptor.jobId });
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
