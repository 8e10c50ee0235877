import type { Collector, SourceReader, SourceReaderContext } from '@tideway/api';
import type { FileSplit } from './file-split-enumerator.js';

/**
 * The reader of a file source with several tables (`tables_configs`): one reader per table,
 * each split routed by its `table`; the source has emitted everything when every reader has.
 */
export class MultiTableFileReader implements SourceReader<FileSplit> {
  private readonly readers: SourceReader<FileSplit>[];
  private readonly done = new Set<number>();
  private signalled = false;

  constructor(
    count: number,
    make: (table: number, ctx: SourceReaderContext) => SourceReader<FileSplit>,
    private readonly ctx: SourceReaderContext,
  ) {
    this.readers = Array.from({ length: count }, (_, i) => make(i, { ...ctx, signalNoMoreElement: () => this.finished(i) }));
  }

  private finished(i: number): void {
    this.done.add(i);
    if (!this.signalled && this.done.size === this.readers.length) {
      this.signalled = true;
      this.ctx.signalNoMoreElement();
    }
  }

  async open(): Promise<void> {
    for (const r of this.readers) await r.open();
  }

  addSplits(splits: FileSplit[]): void {
    for (let i = 0; i < this.readers.length; i++) {
      const mine = splits.filter((s) => (s.table ?? 0) === i);
      if (mine.length > 0) this.readers[i].addSplits(mine);
    }
  }

  handleNoMoreSplits(): void {
    for (const r of this.readers) r.handleNoMoreSplits();
  }

  async pollNext(output: Collector): Promise<void> {
    // One table at a time, in order: a finished reader returns at once.
    for (let i = 0; i < this.readers.length; i++) {
      if (this.done.has(i)) continue;
      await this.readers[i].pollNext(output);
      return;
    }
  }

  snapshotState(checkpointId: number): FileSplit[] {
    return this.readers.flatMap((r) => r.snapshotState(checkpointId));
  }

  async close(): Promise<void> {
    for (const r of this.readers) await r.close();
  }
}
