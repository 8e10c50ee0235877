import type { SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';
import type { CdcSplit } from './cdc-splits.js';

/** What the enumerator checkpoints: whether it planned, and the splits not yet handed out. */
export interface CdcEnumeratorState {
  readonly planned: boolean;
  readonly pending: CdcSplit[];
}

/**
 * Plans once (snapshot chunks, then the stream split) and gives every split to reader 0: one
 * change stream cannot be shared, and the stream must know every chunk's watermark, so one
 * reader reads the chunks and then streams. Other readers get nothing and stay idle.
 */
export class CdcSplitEnumerator implements SplitEnumerator<CdcSplit, CdcEnumeratorState> {
  private planned: boolean;
  private pending: CdcSplit[];
  private readonly registered = new Set<number>();

  constructor(
    private readonly ctx: SplitEnumeratorContext<CdcSplit>,
    private readonly plan: () => Promise<CdcSplit[]>,
    restored?: CdcEnumeratorState,
  ) {
    this.planned = restored?.planned ?? false;
    this.pending = [...(restored?.pending ?? [])];
  }

  open(): void {}

  async run(): Promise<void> {
    if (!this.planned) {
      this.pending.push(...(await this.plan()));
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

  addSplitsBack(splits: CdcSplit[]): void {
    this.pending.push(...splits);
  }

  snapshotState(): CdcEnumeratorState {
    return { planned: this.planned, pending: this.pending.map((s) => ({ ...s })) };
  }

  close(): void {}

  private assign(subtask: number): void {
    if (subtask === 0 && this.pending.length > 0) {
      const splits = this.pending;
      this.pending = [];
      this.ctx.assignSplits(0, splits);
    }
    this.ctx.signalNoMoreSplits(subtask);
  }
}
