/**
 * Which plugin call a task-group thread is in, and since when, in memory its worker's main
 * thread can read while the task thread is busy: a plugin that spins in a loop or never settles
 * its promise cannot answer messages, so the main thread watches this clock and ends the thread
 * once a call has run past its kind's limit (tideway.plugin-call-timeout).
 */

/** The plugin calls with a time limit, by what they do. */
export const CALL_KINDS = ['open', 'read', 'transform', 'write', 'checkpoint', 'commit', 'close', 'enumerate'] as const;
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
  enumerate: 'SplitEnumerator',
};

/**
 * The coordinator-side plugin calls (planning at submit, split enumerators, sinks' aggregated
 * committers), named in the message of one past its limit; each also has the kind whose limit
 * applies.
 */
export const NAMED_CALLS = {
  'SourceFactory.create': 'open',
  'Source.prepare': 'open',
  'Source.catalogTables': 'open',
  'TransformFactory.create': 'open',
  'Transform.outputTables': 'open',
  'SinkFactory.create': 'open',
  'Source.createEnumerator': 'enumerate',
  'SplitEnumerator.open': 'enumerate',
  'SplitEnumerator.run': 'enumerate',
  'SplitEnumerator.registerReader': 'enumerate',
  'SplitEnumerator.handleSplitRequest': 'enumerate',
  'SplitEnumerator.handleSourceEvent': 'enumerate',
  'SplitEnumerator.addSplitsBack': 'enumerate',
  'SplitEnumerator.snapshotState': 'checkpoint',
  'SplitEnumerator.notifyCheckpointComplete': 'commit',
  'SplitEnumerator.close': 'close',
  'Sink.prepare': 'open',
  'Sink.createAggregatedCommitter': 'open',
  'Sink.abandon': 'close',
  'SinkAggregatedCommitter.combine': 'commit',
  'SinkAggregatedCommitter.commit': 'commit',
  'SinkAggregatedCommitter.close': 'close',
} as const satisfies Record<string, CallKind>;
export type NamedCall = keyof typeof NAMED_CALLS;
const NAMES = Object.keys(NAMED_CALLS) as NamedCall[];

/**
 * Layout: Int32 [0] kind (index + 1, 0 when in no call), [1] vertex id, [2] named call (index + 1,
 * 0 for none); Float64 [2] start (ms since epoch).
 */
const BYTES = 24;

export interface CallInProgress {
  kind: CallKind;
  vertexId: number;
  startedAt: number;
  /** The method, when the caller named it. */
  method?: NamedCall;
}

interface ActiveCall {
  readonly kind: number;
  readonly vertexId: number;
  readonly method: number;
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
    this.ints = new Int32Array(buffer, 0, 3);
    this.times = new Float64Array(buffer, 16, 1);
  }

  /** Runs a plugin call under the clock (sync or async; the clock stops when it returns or settles). */
  run<T>(kind: CallKind, vertexId: number, call: () => T): T {
    return this.start({ kind: CALL_KINDS.indexOf(kind) + 1, vertexId, method: 0, startedAt: Date.now() }, call);
  }

  /** Runs a named plugin call under the clock, with its kind's limit. */
  runNamed<T>(method: NamedCall, vertexId: number, call: () => T): T {
    const kind = CALL_KINDS.indexOf(NAMED_CALLS[method]) + 1;
    return this.start({ kind, vertexId, method: NAMES.indexOf(method) + 1, startedAt: Date.now() }, call);
  }

  private start<T>(entry: ActiveCall, call: () => T): T {
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
    this.ints[2] = call.method;
    Atomics.store(this.ints, 0, call.kind);
  }

  /** The oldest call in progress (read from the main thread), or undefined. */
  current(): CallInProgress | undefined {
    const kind = Atomics.load(this.ints, 0);
    if (kind === 0) return undefined;
    const method = this.ints[2];
    return {
      kind: CALL_KINDS[kind - 1],
      vertexId: this.ints[1],
      startedAt: this.times[0],
      ...(method > 0 ? { method: NAMES[method - 1] } : {}),
    };
  }
}

/** Milliseconds a plugin call of each kind may run before its task fails (tideway.plugin-call-timeout); 0: no limit. */
export type CallLimits = Readonly<Partial<Record<CallKind, number>>>;

/** `source Name (job.conf:3)`: a plugin as the messages of calls past their limit name it. */
export function pluginPlace(plugin: { type: string; name: string; file: string; line: number }): string {
  return `${plugin.type} ${plugin.name} (${plugin.file}:${plugin.line})`;
}

/**
 * The sentence for a call past its kind's limit (naming the plugin, its place, the call and the
 * setting), or undefined while it is within it.
 */
export function overdueCall(
  call: CallInProgress,
  limits: CallLimits,
  plugin?: { type: string; name: string; file: string; line: number },
): string | undefined {
  const limit = limits[call.kind] ?? 0;
  if (limit <= 0 || Date.now() - call.startedAt <= limit) return undefined;
  const which = plugin ? pluginPlace(plugin) : `vertex ${call.vertexId}`;
  return `${which}: its ${call.method ?? CALL_KIND_METHODS[call.kind]} call did not return within ${limit / 1000} s (tideway.plugin-call-timeout.${call.kind})`;
}
