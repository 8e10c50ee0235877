import type { Collector, Row, SourceReader, SourceReaderContext } from '@tideway/api';
import type { FakeTableConfig } from './fake-config.js';
import { RowProducer } from './row-producer.js';
import type { FakeSplit } from './splits.js';

/** Rows emitted per pollNext call: large enough to amortise the call, small enough for barriers. */
export const FAKE_BATCH_ROWS = 4096;

/**
 * Emits its splits one after another, in batches of FAKE_BATCH_ROWS. As in SeaTunnel, a new
 * split starts only when `split.read-interval` ms have passed since the previous one started
 * (the smallest interval among the tables). BOUNDED: once no more splits will come and all are
 * done, it signals the end. UNBOUNDED (STREAMING): it then idles, as SeaTunnel's does.
 */
export class FakeSourceReader implements SourceReader<FakeSplit> {
  private readonly splits: FakeSplit[] = [];
  private readonly producers: Map<string, RowProducer>;
  private readonly readInterval: number;
  private noMoreSplits = false;
  private ended = false;
  private currentStarted = false;
  private lastSplitStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: SourceReaderContext,
    tables: readonly FakeTableConfig[],
    producers: readonly RowProducer[] = tables.map((t) => new RowProducer(t)),
    private readonly now: () => number = Date.now,
  ) {
    this.producers = new Map(producers.map((p) => [p.tableId, p]));
    this.readInterval = Math.min(...tables.map((t) => t.splitReadInterval));
  }

  open(): void {}

  pollNext(output: Collector): void {
    const split = this.splits[0];
    if (!split) {
      this.maybeEnd();
      return;
    }
    if (!this.currentStarted) {
      const t = this.now();
      if (t - this.lastSplitStart < this.readInterval) return;
      this.lastSplitStart = t;
      this.currentStarted = true;
    }
    const producer = this.producers.get(split.tableId);
    if (!producer) throw new Error(`FakeSource reader got split ${split.splitId} of unknown table ${split.tableId}`);
    const total = producer.rowsInSplit(split.rowNum);
    const n = Math.min(FAKE_BATCH_ROWS, total - split.emitted);
    if (n > 0) {
      const rows: Row[] = [];
      producer.produce(split.emitted, n, rows);
      output.collectBatch(rows);
      split.emitted += n;
    }
    if (split.emitted >= total) {
      this.splits.shift();
      this.currentStarted = false;
      if (this.splits.length === 0) this.maybeEnd();
    }
  }

  addSplits(splits: FakeSplit[]): void {
    // Copies: the reader advances `emitted`, and the caller's objects may be shared.
    for (const s of splits) this.splits.push({ ...s });
  }

  handleNoMoreSplits(): void {
    this.noMoreSplits = true;
  }

  snapshotState(_checkpointId: number): FakeSplit[] {
    return this.splits.map((s) => ({ ...s }));
  }

  close(): void {}

  private maybeEnd(): void {
    if (this.noMoreSplits && !this.ended && this.splits.length === 0 && this.ctx.boundedness === 'BOUNDED') {
      this.ended = true;
      this.ctx.signalNoMoreElement();
    }
  }
}
