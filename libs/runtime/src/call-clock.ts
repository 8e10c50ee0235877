/**
 * Which plugin call a task-group thread is in, and since when, in memory its worker's main
 * thread can read while the task thread is busy: a plugin that spins in a loop or never settles
 * its promise cannot answer messages, so the main thread watches this clock and ends the thread
 * once a call has run past its kind's limit (tideway.plugin-call-timeout).
 */

/** The plugin calls with a time limit, by what they do. */
export const CALL_KINDS = ['open', 'read', 'transform', 'write', 'checkpoint', 'commit', 'close'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

/** What each kind covers, for messages and docs. */
export const CALL_KIND_METHODS: Readonly<Record<CallKind, string>> = {
  open: 'SourceReader.open',
  read: 'SourceReader.pollNext',
  transform: 'Transform.transform',
  write: 'SinkWriter.write',
  checkpoint: 'snapshotState / prepareCommit',
  commit: 'SinkCommitter.commit / notifyCheckpointComplete',
  close: 'close',
};

/** Layout: Int32 [0] kind (index + 1, 0 when in no call), [1] vertex id; Float64 [1] start (ms since epoch). */
const BYTES = 16;

export interface CallInProgress {
  kind: CallKind;
  vertexId: number;
  startedAt: number;
}

interface ActiveCall {
  readonly kind: number;
  readonly vertexId: number;
  readonly startedAt: number;
}

export class CallClock {
  readonly buffer: SharedArrayBuffer;
  private readonly ints: Int32Array;
  private readonly times: Float64Array;
  /**
   * The calls under way, oldest first: several while one awaits (a commit runs while a write
   * waits), and they may end in any order. The clock shows the oldest.
   */
  private readonly active: ActiveCall[] = [];

  constructor(buffer = new SharedArrayBuffer(BYTES)) {
    this.buffer = buffer;
    this.ints = new Int32Array(buffer, 0, 2);
    this.times = new Float64Array(buffer, 8, 1);
  }

  /** Runs a plugin call under the clock (sync or async; the clock stops when it returns or settles). */
  run<T>(kind: CallKind, vertexId: number, call: () => T): T {
    const entry: ActiveCall = { kind: CALL_KINDS.indexOf(kind) + 1, vertexId, startedAt: Date.now() };
    this.active.push(entry);
    if (this.active.length === 1) this.show(entry);
    let result: T;
    try {
      result = call();
    } catch (err) {
      this.end(entry);
      throw err;
    }
    if (result instanceof Promise) return result.finally(() => this.end(entry)) as T;
    this.end(entry);
    return result;
  }

  private end(entry: ActiveCall): void {
    const i = this.active.lastIndexOf(entry);
    if (i >= 0) this.active.splice(i, 1);
    if (i === 0) this.show(this.active[0]);
  }

  private show(call: ActiveCall | undefined): void {
    if (!call) {
      Atomics.store(this.ints, 0, 0);
      return;
    }
    this.times[0] = call.startedAt;
    this.ints[1] = call.vertexId;
    Atomics.store(this.ints, 0, call.kind);
  }

  /** The oldest call in progress (read from the main thread), or undefined. */
  current(): CallInProgress | undefined {
    const kind = Atomics.load(this.ints, 0);
    if (kind === 0) return undefined;
    return { kind: CALL_KINDS[kind - 1], vertexId: this.ints[1], startedAt: this.times[0] };
  }
}
