import type { SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';
import type { FakeTableConfig } from './fake-config.js';
import type { FakeSplit } from './splits.js';
import { discoverSplits, splitOwner } from './splits.js';

/** What the enumerator checkpoints: the ids of splits already handed to readers. */
export interface FakeEnumeratorState {
  assigned: string[];
}

/**
 * Computes every split up front and hands each reader its own (by split index), then tells it
 * no more will come. Splits already assigned before a restore are not handed out again: the
 * readers' checkpointed state carries them with their progress.
 */
export class FakeSplitEnumerator implements SplitEnumerator<FakeSplit, FakeEnumeratorState> {
  private readonly pending = new Map<number, FakeSplit[]>();
  private readonly assigned: Set<string>;
  private started = false;

  constructor(
    private readonly ctx: SplitEnumeratorContext<FakeSplit>,
    private readonly tables: readonly FakeTableConfig[],
    restored?: FakeEnumeratorState,
  ) {
    this.assigned = new Set(restored?.assigned ?? []);
  }

  open(): void {}

  run(): void {
    this.started = true;
    this.addPending(discoverSplits(this.tables, this.ctx.parallelism).filter((s) => !this.assigned.has(s.splitId)));
    for (const reader of this.ctx.registeredReaders()) this.assignTo(reader);
  }

  registerReader(subtask: number): void {
    // Readers that register after run() (or come back after a failure) get their splits now.
    if (this.started) this.assignTo(subtask);
  }

  handleSplitRequest(_subtask: number): void {
    // Every split is pushed to its owner; there is nothing to hand out on request.
  }

  addSplitsBack(splits: FakeSplit[], _subtask: number): void {
    for (const s of splits) this.assigned.delete(s.splitId);
    this.addPending(splits);
  }

  snapshotState(_checkpointId: number): FakeEnumeratorState {
    return { assigned: [...this.assigned] };
  }

  close(): void {}

  private addPending(splits: readonly FakeSplit[]): void {
    for (const s of splits) {
      const owner = splitOwner(s, this.ctx.parallelism);
      const list = this.pending.get(owner);
      if (list) list.push(s);
      else this.pending.set(owner, [s]);
    }
  }

  private assignTo(reader: number): void {
    const splits = this.pending.get(reader);
    this.pending.delete(reader);
    if (splits && splits.length > 0) {
      for (const s of splits) this.assigned.add(s.splitId);
      this.ctx.assignSplits(reader, splits);
    }
    this.ctx.signalNoMoreSplits(reader);
  }
}
