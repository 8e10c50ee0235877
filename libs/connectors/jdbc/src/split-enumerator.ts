import type { SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';
import type { JdbcConnection } from './jdbc-connection.js';
import type { JdbcSplit } from './jdbc-split.js';

/** What the enumerator checkpoints: whether splits were planned, and those not yet handed out. */
export interface JdbcEnumeratorState {
  readonly planned: boolean;
  /** Splits waiting for their reader, by subtask index. */
  readonly pending: Record<number, JdbcSplit[]>;
}

/**
 * Plans every split once (at run), gives split i to reader i % parallelism as readers register,
 * then tells each reader no more splits will come. Splits a failed reader gives back go to the
 * same subtask when it registers again.
 */
export class JdbcSplitEnumerator implements SplitEnumerator<JdbcSplit, JdbcEnumeratorState> {
  private planned: boolean;
  private readonly pending = new Map<number, JdbcSplit[]>();
  private readonly registered = new Set<number>();

  constructor(
    private readonly ctx: SplitEnumeratorContext<JdbcSplit>,
    private readonly connect: () => Promise<JdbcConnection>,
    private readonly plan: (conn: JdbcConnection) => Promise<JdbcSplit[]>,
    restored?: JdbcEnumeratorState,
  ) {
    this.planned = restored?.planned ?? false;
    for (const [k, v] of Object.entries(restored?.pending ?? {})) this.pending.set(Number(k), [...v]);
  }

  open(): void {}

  async run(): Promise<void> {
    if (!this.planned) {
      const conn = await this.connect();
      try {
        const splits = await this.plan(conn);
        splits.forEach((s, i) => this.queue(i % this.ctx.parallelism, [s]));
      } finally {
        await conn.close();
      }
      this.planned = true;
    }
    for (const r of new Set([...this.registered, ...this.ctx.registeredReaders()])) this.assign(r);
  }

  registerReader(subtask: number): void {
    this.registered.add(subtask);
    if (this.planned) this.assign(subtask);
  }

  handleSplitRequest(subtask: number): void {
    if (this.planned) this.assign(subtask);
  }

  addSplitsBack(splits: JdbcSplit[], subtask: number): void {
    this.queue(subtask, splits);
  }

  snapshotState(): JdbcEnumeratorState {
    const pending: Record<number, JdbcSplit[]> = {};
    for (const [k, v] of this.pending) if (v.length > 0) pending[k] = v.map((s) => ({ ...s }));
    return { planned: this.planned, pending };
  }

  close(): void {}

  private queue(subtask: number, splits: JdbcSplit[]): void {
    const list = this.pending.get(subtask) ?? [];
    list.push(...splits);
    this.pending.set(subtask, list);
  }

  private assign(subtask: number): void {
    const splits = this.pending.get(subtask) ?? [];
    this.pending.delete(subtask);
    if (splits.length > 0) this.ctx.assignSplits(subtask, splits);
    this.ctx.signalNoMoreSplits(subtask);
  }
}
