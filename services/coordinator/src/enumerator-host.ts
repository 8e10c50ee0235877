import type { Source, SourceSplit, SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';

interface ReaderMailbox {
  splits: SourceSplit[];
  noMoreSplits: boolean;
  registered: boolean;
}

/**
 * Hosts one source's SplitEnumerator on the coordinator. Assignments are kept in a mailbox per
 * reader subtask; readers collect them through RequestSplits (which also registers them and
 * asks for more). Calls into the enumerator are serialized.
 */
export class EnumeratorHost {
  private enumerator!: SplitEnumerator<SourceSplit>;
  private readonly mailboxes = new Map<number, ReaderMailbox>();
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * While a checkpoint is in flight, assignments stay in the mailboxes: a split handed to a
   * reader after the enumerator's snapshot but before the reader's would be in neither.
   */
  private frozen = false;

  /** @param onCheckpointRequest what SplitEnumeratorContext.requestCheckpoint does (triggers a checkpoint). */
  constructor(
    private readonly source: Source,
    private readonly parallelism: number,
    private readonly onCheckpointRequest?: () => void,
  ) {}

  private mailbox(subtask: number): ReaderMailbox {
    let m = this.mailboxes.get(subtask);
    if (!m) {
      m = { splits: [], noMoreSplits: false, registered: false };
      this.mailboxes.set(subtask, m);
    }
    return m;
  }

  async open(restoredState?: unknown): Promise<void> {
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
    this.enumerator = this.source.createEnumerator(ctx, restoredState);
    await this.enumerator.open();
    await this.enumerator.run();
  }

  private serialize<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Hands over the reader's events, registers and/or asks for work, then drains what the reader has been assigned. */
  request(
    subtask: number,
    register: boolean,
    request: boolean,
    events: unknown[] = [],
  ): Promise<{ splits: SourceSplit[]; noMoreSplits: boolean }> {
    return this.serialize(async () => {
      const m = this.mailbox(subtask);
      for (const e of events) await this.enumerator.handleSourceEvent?.(subtask, e);
      if (register) {
        m.registered = true;
        this.enumerator.registerReader(subtask);
      }
      if (request) this.enumerator.handleSplitRequest(subtask);
      if (this.frozen) return { splits: [], noMoreSplits: false };
      const splits = m.splits.splice(0, m.splits.length);
      return { splits, noMoreSplits: m.noMoreSplits && m.splits.length === 0 };
    });
  }

  /** Splits of a reader that failed come back to be assigned again. */
  addSplitsBack(splits: SourceSplit[], subtask: number): Promise<void> {
    return this.serialize(() => this.enumerator.addSplitsBack(splits, subtask));
  }

  /**
   * Snapshots the enumerator and the splits assigned but not yet delivered (they belong to
   * their reader's restored state), then holds deliveries until `thaw()`.
   */
  snapshot(checkpointId: number): Promise<{ state: unknown; undelivered: Record<number, SourceSplit[]> }> {
    return this.serialize(async () => {
      this.frozen = true;
      const state = await this.enumerator.snapshotState(checkpointId);
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
      await this.enumerator.notifyCheckpointComplete?.(checkpointId);
    });
  }

  close(): Promise<void> {
    return this.serialize(async () => {
      await this.enumerator?.close();
    });
  }
}
