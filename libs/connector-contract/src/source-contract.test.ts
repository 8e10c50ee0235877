/**
 * The source contract on a small in-memory source: with its reader's progress in its split it
 * passes; with a reader that checkpoints its splits without their progress (a restore reads them
 * from the start again) it fails, naming the rows read twice.
 */
import { describe, expect, it } from 'vitest';
import type {
  Collector,
  Row,
  Source,
  SourceFactory,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '@tideway/api';
import { SOURCE_CHECK_FUNCTIONS, sourceContract, type SourceSubject } from './index.js';

interface NumberSplit {
  readonly splitId: string;
  readonly from: number;
  /** The next row to read, from `from` to `to` (exclusive). */
  readonly next: number;
  readonly to: number;
}

class Reader implements SourceReader<NumberSplit> {
  private splits: NumberSplit[] = [];
  private noMore = false;
  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly forgetProgress: boolean,
  ) {}
  open(): void {}
  pollNext(out: Collector): void {
    const s = this.splits[0];
    if (!s) {
      if (this.noMore) this.ctx.signalNoMoreElement();
      return;
    }
    const end = Math.min(s.to, s.next + 3);
    const rows: Row[] = [];
    for (let i = s.next; i < end; i++) rows.push({ kind: '+I', tableId: 'contract.items', fields: [i, `items-${i}`] });
    out.collectBatch(rows);
    this.splits[0] = { ...s, next: end };
    if (end >= s.to) this.splits.shift();
  }
  addSplits(splits: NumberSplit[]): void {
    this.splits.push(...splits);
  }
  handleNoMoreSplits(): void {
    this.noMore = true;
  }
  snapshotState(): NumberSplit[] {
    // Planted: the splits as they were assigned, without the rows read since.
    return this.forgetProgress ? this.splits.map((s) => ({ ...s, next: s.from })) : [...this.splits];
  }
  close(): void {}
}

class Enumerator implements SplitEnumerator<NumberSplit, NumberSplit[]> {
  private pending: NumberSplit[];
  constructor(
    private readonly ctx: SplitEnumeratorContext<NumberSplit>,
    restored?: NumberSplit[],
  ) {
    this.pending = restored ?? [0, 1, 2, 3].map((i) => ({ splitId: `s${i}`, from: 1 + i * 10, next: 1 + i * 10, to: 11 + i * 10 }));
  }
  open(): void {}
  run(): void {}
  registerReader(subtask: number): void {
    const mine = this.pending.filter((s) => Number(s.splitId.slice(1)) % this.ctx.parallelism === subtask);
    this.pending = this.pending.filter((s) => !mine.includes(s));
    this.ctx.assignSplits(subtask, mine);
    this.ctx.signalNoMoreSplits(subtask);
  }
  handleSplitRequest(): void {}
  addSplitsBack(splits: NumberSplit[]): void {
    this.pending.push(...splits);
  }
  snapshotState(): NumberSplit[] {
    return [...this.pending];
  }
  close(): void {}
}

const factory = (name: string, forgetProgress: boolean): SourceFactory => ({
  type: 'source',
  name,
  description: 'Numbers 1 to 40 in four splits (the contract suite own test).',
  spec: { options: [] },
  create: (): Source<NumberSplit, NumberSplit[]> => ({
    boundedness: () => 'BOUNDED',
    catalogTables: () => [],
    createEnumerator: (ctx, restored) => new Enumerator(ctx, restored),
    createReader: (ctx) => new Reader(ctx, forgetProgress),
  }),
});

const subject = (name: string, forgetProgress: boolean): SourceSubject => ({
  name,
  factory: factory(name, forgetProgress),
  target: () => ({ options: {}, expected: Array.from({ length: 40 }, (_, i) => ['items', i + 1, `items-${i + 1}`]) }),
  notApplicable: { 'multi-table': 'the numbers source has one table' },
});

sourceContract(subject('Numbers (correct)', false));

describe('a source whose reader checkpoints its splits without their progress', () => {
  it('fails exactly-once through a restore, naming the rows read twice', async () => {
    await expect(SOURCE_CHECK_FUNCTIONS['exactly-once-restore'](subject('Numbers (forgetful)', true))).rejects.toThrow(
      /Numbers \(forgetful\), a failure after checkpoint \d+, then a restore from it: expected 40 rows exactly once, got \d+: missing none; more than once items\|/,
    );
  });
});
