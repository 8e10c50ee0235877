import type { Source, SourceSplit, SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';
import type { NamedCall } from '@tideway/runtime';

/** Runs one plugin call: under a plugin thread's call clock, or directly on the main thread. */
export type PluginCalls = <T>(method: NamedCall, call: () => T) => T;
export const directCalls: PluginCalls = (_method, call) => call();

/** What a pipeline asks of its source's split enumerator, hosted here or in a plugin thread. */
export interface SplitEnumeration {
  open(restoredState?: unknown): Promise<void>;
  request(
    subtask: number,
    register: boolean,
    request: boolean,
    events?: unknown[],
    answerBy?: number,
  ): Promise<{ splits: SourceSplit[]; noMoreSplits: boolean }>;
  addSplitsBack(splits: SourceSplit[], subtask: number): Promise<void>;
  snapshot(checkpointId: number): Promise<{ state: unknown; undelivered: Record<number, SourceSplit[]> }>;
  thaw(): void;
  notifyCheckpointComplete(checkpointId: number): Promise<void>;
  close(): Promise<void>;
}

interface ReaderMailbox {
  splits: SourceSplit[];
  noMoreSplits: boolean;
  registered: boolean;
}

/**
 * Hosts one source's SplitEnumerator: on the coordinator's main thread (a built-in source), or
 * in its pipeline's plugin thread (a plugin package's, plugin-thread.ts), each call then under
 * that thread's call clock (`calls`). Assignments are kept in a mailbox per reader subtask;
 * readers collect them through RequestSplits (which also registers them and asks for more).
 * Calls into the enumerator are serialized.
 */
export class EnumeratorHost implements SplitEnumeration {
  private enumerator!: SplitEnumerator<SourceSplit>;
  private readonly mailboxes = new Map<number, ReaderMailbox>();
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * While a checkpoint is in flight, assignments stay in the mailboxes: a split handed to a
   * reader after the enumerator's snapshot but before the reader's would be in neither.
   */
  private frozen = false;
  /** The error of open(), once it failed. */
  private openFailure: { err: unknown } | undefined;

  /** @param onCheckpointRequest what SplitEnumeratorContext.requestCheckpoint does (triggers a checkpoint). */
  constructor(
    private readonly source: Source,
    private readonly parallelism: number,
    private readonly onCheckpointRequest?: () => void,
    private readonly calls: PluginCalls = directCalls,
  ) {}

  private mailbox(subtask: number): ReaderMailbox {
    let m = this.mailboxes.get(subtask);
    if (!m) {
      m = { splits: [], noMoreSplits: false, registered: false };
      this.mailboxes.set(subtask, m);
    }
    return m;
  }

  /**
   * Creates and opens the enumerator and runs it (its split plan: a Jdbc source's bounds and
   * COUNT(*)), while the pipeline runs its save modes (docs/decisions/0096). Serialized like every
   * other call: one that comes first waits for it. After a failed open, requests get no splits
   * (the pipeline fails with the open's error) and snapshots fail with that error.
   */
  open(restoredState?: unknown): Promise<void> {
    const opened = this.serialize(() => this.openNow(restoredState));
    opened.catch((err: unknown) => {
      this.openFailure = { err };
    });
    return opened;
  }

  private async openNow(restoredState?: unknown): Promise<void> {
    this.frozen = false;
    const ctx: SplitEnumeratorContext<SourceSplit> = {
      parallelism: this.parallelism,
      registeredReaders: () => [...this.mailboxes].filter(([, m]) => m.registered).map(([s]) => s),
      assignSplits: (subtask, splits) => {
        if (subtask < 0 || subtask >= this.parallelism)
          throw new Error(`split assigned to reader ${subtask}, but the source has ${this.parallelism} reader(s)`);
        this.mailbox(subtask).splits.push(...splits);
      },
      signalNoMoreSplits: (subtask) => {
        this.mailbox(subtask).noMoreSplits = true;
      },
      requestCheckpoint: () => this.onCheckpointRequest?.(),
    };
    const enumerator = this.calls('Source.createEnumerator', () => this.source.createEnumerator(ctx, restoredState));
    this.enumerator = enumerator;
    await this.calls('SplitEnumerator.open', () => enumerator.open());
    await this.calls('SplitEnumerator.run', () => enumerator.run());
  }

  private serialize<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Hands over the reader's events, registers and/or asks for work, then drains what the reader
   * has been assigned. `answerBy` (ms since the epoch) is when the caller stops waiting (its call's
   * deadline, less the time the answer takes back): a request whose turn comes after it, having
   * waited behind a long split plan say, drains nothing. Its assignments stay for the reader's next
   * request instead of going into an answer nobody reads, which would leave the reader without
   * them and, told "no more splits" later, end it without their rows.
   */
  request(
    subtask: number,
    register: boolean,
    request: boolean,
    events: unknown[] = [],
    answerBy = Number.POSITIVE_INFINITY,
  ): Promise<{ splits: SourceSplit[]; noMoreSplits: boolean }> {
    return this.serialize(async () => {
      const m = this.mailbox(subtask);
      if (this.openFailure) return { splits: [], noMoreSplits: false };
      const enumerator = this.enumerator;
      for (const e of events) await this.calls('SplitEnumerator.handleSourceEvent', () => enumerator.handleSourceEvent?.(subtask, e));
      if (register) {
        m.registered = true;
        this.calls('SplitEnumerator.registerReader', () => enumerator.registerReader(subtask));
      }
      if (request) this.calls('SplitEnumerator.handleSplitRequest', () => enumerator.handleSplitRequest(subtask));
      if (this.frozen || Date.now() > answerBy) return { splits: [], noMoreSplits: false };
      const splits = m.splits.splice(0, m.splits.length);
      return { splits, noMoreSplits: m.noMoreSplits && m.splits.length === 0 };
    });
  }

  /** Splits of a reader that failed come back to be assigned again. */
  addSplitsBack(splits: SourceSplit[], subtask: number): Promise<void> {
    return this.serialize(() => {
      if (this.openFailure) throw this.openFailure.err;
      return this.calls('SplitEnumerator.addSplitsBack', () => this.enumerator.addSplitsBack(splits, subtask));
    });
  }

  /**
   * Snapshots the enumerator and the splits assigned but not yet delivered (they belong to
   * their reader's restored state), then holds deliveries until `thaw()`.
   */
  snapshot(checkpointId: number): Promise<{ state: unknown; undelivered: Record<number, SourceSplit[]> }> {
    return this.serialize(async () => {
      if (this.openFailure) throw this.openFailure.err;
      this.frozen = true;
      const state = await this.calls('SplitEnumerator.snapshotState', () => this.enumerator.snapshotState(checkpointId));
      const undelivered: Record<number, SourceSplit[]> = {};
      for (const [subtask, m] of this.mailboxes) if (m.splits.length > 0) undelivered[subtask] = [...m.splits];
      return { state, undelivered };
    });
  }

  /** The checkpoint completed or was aborted: deliveries resume. */
  thaw(): void {
    this.frozen = false;
  }

  notifyCheckpointComplete(checkpointId: number): Promise<void> {
    return this.serialize(async () => {
      if (this.openFailure) return;
      await this.calls('SplitEnumerator.notifyCheckpointComplete', () => this.enumerator.notifyCheckpointComplete?.(checkpointId));
    });
  }

  close(): Promise<void> {
    return this.serialize(async () => {
      const enumerator = this.enumerator as SplitEnumerator<SourceSplit> | undefined;
      if (enumerator) await this.calls('SplitEnumerator.close', () => enumerator.close());
    });
  }
}
