import type {
  Collector,
  PluginContext,
  PluginSpec,
  Row,
  Source,
  SourceFactory,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
  CatalogTable,
} from '@tideway/api';
import { FaultBudget, ErrorCode, TidewayError } from '@tideway/common';

/**
 * A split of the sequence: the keys it owns and how many rows it has emitted. Row i of a
 * split is key keys[i % keys.length] with sequence number floor(i / keys.length).
 */
export interface SequenceSplit {
  splitId: string;
  keys: number[];
  emitted: number;
}

const BATCH = 1024;

export const sequenceSpec: PluginSpec = {
  options: [
    {
      name: 'keys',
      type: 'int',
      default: 8,
      min: 1,
      description: 'How many keys; each key gets its own counter 0, 1, 2, ... Keys are spread over the parallel readers.',
    },
    {
      name: 'rows.per.key',
      type: 'long',
      default: 1000,
      min: 0,
      description: 'Rows per key. BATCH ends after them; STREAMING with 0 never ends.',
    },
    { name: 'rows.per.second', type: 'int', default: 0, min: 0, description: 'Rows per second per reader (0: as fast as possible).' },
    { name: 'table', type: 'string', default: 'sequence', description: 'Table name of the rows.' },
    {
      name: 'fault.probability',
      type: 'double',
      default: 0,
      min: 0,
      max: 1,
      description: 'Chance, per batch, that the reader throws (a reader failure), while the fault budget lasts.',
    },
    {
      name: 'fault.max',
      type: 'int',
      default: 0,
      min: 0,
      description: 'Fault budget: at most this many reader faults in the whole run (shared through fault.dir).',
    },
    { name: 'fault.dir', type: 'string', description: 'Directory that holds the fault budget (required when fault.max > 0).' },
  ],
  validate: (o) =>
    o.get<number>('fault.max') > 0 && !o.get<string>('fault.dir') ? "option 'fault.dir' is required when fault.max > 0" : undefined,
};

function sequenceTable(name: string): CatalogTable {
  return {
    tableId: name,
    path: { table: name },
    columns: [
      { name: 'key', type: { kind: 'int' }, nullable: false },
      { name: 'seq', type: { kind: 'bigint' }, nullable: false },
      { name: 'payload', type: { kind: 'string' }, nullable: false },
    ],
    primaryKey: { name: 'pk', columns: ['key', 'seq'] },
  };
}

/**
 * The enumerator's state: the splits it created, the number of readers their keys were spread
 * over (absent in states written before restores could change parallelism: the job's own), and
 * splits given back and not yet handed out again.
 */
interface SequenceEnumState {
  assigned: string[];
  spread?: number;
  backlog?: Array<{ subtask: number; split: SequenceSplit }>;
}

class SequenceEnumerator implements SplitEnumerator<SequenceSplit, SequenceEnumState> {
  private readonly assigned: Set<string>;
  /** Keys are spread over this many splits (the parallelism of the run that created them). */
  private readonly spread: number;
  private readonly backlog: Array<{ subtask: number; split: SequenceSplit }>;
  private readonly registered = new Set<number>();

  constructor(
    private readonly ctx: SplitEnumeratorContext<SequenceSplit>,
    private readonly keys: number,
    restored?: SequenceEnumState,
  ) {
    this.assigned = new Set(restored?.assigned ?? []);
    this.spread = restored?.spread ?? ctx.parallelism;
    this.backlog = (restored?.backlog ?? []).map((b) => ({ subtask: b.subtask % ctx.parallelism, split: b.split }));
  }

  open(): void {}
  run(): void {}

  registerReader(subtask: number): void {
    this.registered.add(subtask);
    const id = `seq-${subtask}`;
    // A split is made once, for the spread of the first run: a restore at another parallelism
    // re-assigns the checkpointed splits (addSplitsBack) and creates none of them again.
    if (subtask < this.spread && !this.assigned.has(id)) {
      const keys: number[] = [];
      for (let k = subtask; k < this.keys; k += this.spread) keys.push(k);
      this.ctx.assignSplits(subtask, [{ splitId: id, keys, emitted: 0 }]);
      this.assigned.add(id);
    }
    this.handOut(subtask);
    this.ctx.signalNoMoreSplits(subtask);
  }

  handleSplitRequest(): void {}

  /** Splits with their progress, for `subtask` (a restore at another parallelism, or a failed reader's). */
  addSplitsBack(splits: SequenceSplit[], subtask: number): void {
    for (const split of splits) this.backlog.push({ subtask: subtask % this.ctx.parallelism, split });
    if (this.registered.has(subtask % this.ctx.parallelism)) this.handOut(subtask % this.ctx.parallelism);
  }

  private handOut(subtask: number): void {
    const mine = this.backlog.filter((b) => b.subtask === subtask);
    if (mine.length === 0) return;
    this.ctx.assignSplits(
      subtask,
      mine.map((b) => b.split),
    );
    for (const b of mine) this.backlog.splice(this.backlog.indexOf(b), 1);
  }

  snapshotState(): SequenceEnumState {
    return { assigned: [...this.assigned], spread: this.spread, backlog: this.backlog.map((b) => ({ ...b })) };
  }

  close(): void {}
}

class SequenceReader implements SourceReader<SequenceSplit> {
  private readonly splits: SequenceSplit[] = [];
  private noMore = false;
  private readonly budget?: FaultBudget;
  private slice = 0;
  private sliceRows = 0;

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly table: string,
    private readonly rowsPerKey: number,
    private readonly rowsPerSecond: number,
    private readonly faultProbability: number,
    faultMax: number,
    faultDir: string | undefined,
  ) {
    if (faultMax > 0 && faultDir) this.budget = new FaultBudget(faultDir, faultMax);
  }

  open(): void {}

  pollNext(output: Collector): void {
    if (this.budget && Math.random() < this.faultProbability && this.budget.claim()) {
      throw new TidewayError(ErrorCode.TASK_FAILED, `injected fault in the Sequence reader of subtask ${this.ctx.subtaskIndex}`, {
        retryable: true,
      });
    }
    const split = this.splits[0];
    if (!split) {
      if (this.noMore && this.ctx.boundedness === 'BOUNDED') this.ctx.signalNoMoreElement();
      return;
    }
    const total = this.rowsPerKey > 0 ? this.rowsPerKey * split.keys.length : Number.MAX_SAFE_INTEGER;
    let n = Math.min(BATCH, total - split.emitted);
    if (this.rowsPerSecond > 0) {
      // Throttle in 50 ms slices so rows flow evenly.
      const slice = Math.floor(Date.now() / 50);
      if (slice !== this.slice) {
        this.slice = slice;
        this.sliceRows = 0;
      }
      n = Math.min(n, Math.max(1, Math.ceil(this.rowsPerSecond / 20)) - this.sliceRows);
      if (n <= 0) return;
      this.sliceRows += n;
    }
    const rows = new Array<Row>(n);
    const k = split.keys.length;
    // Each key's payload prefix made once a poll: one concatenation a row instead of a template's three.
    const prefixes = split.keys.map((key) => `k${key}-s`);
    for (let i = 0; i < n; i++) {
      const idx = split.emitted + i;
      const at = idx % k;
      const seq = Math.floor(idx / k);
      rows[i] = { kind: '+I', tableId: this.table, fields: [split.keys[at], BigInt(seq), prefixes[at] + seq] };
    }
    output.collectBatch(rows);
    split.emitted += n;
    if (split.emitted >= total) this.splits.shift();
  }

  addSplits(splits: SequenceSplit[]): void {
    this.splits.push(...splits.map((s) => ({ ...s, keys: [...s.keys] })));
  }

  handleNoMoreSplits(): void {
    this.noMore = true;
  }

  snapshotState(): SequenceSplit[] {
    return this.splits.map((s) => ({ ...s, keys: [...s.keys] }));
  }

  close(): void {}
}

/**
 * Tideway's test source (not in SeaTunnel): per-key counters for exactly-once checks. Each key
 * k emits rows (k, 0), (k, 1), ...; a checker over the sink's output finds any lost or
 * duplicated row. Optional injected reader faults exercise failover.
 */
export const sequenceSourceFactory: SourceFactory = {
  type: 'source',
  name: 'Sequence',
  description:
    "Tideway's test source: per-key sequence numbers (key int, seq bigint, payload string) for checking that nothing is lost or duplicated; can inject reader faults from a shared budget.",
  spec: sequenceSpec,
  create(ctx: PluginContext): Source {
    const o = ctx.options;
    const table = o.get<string>('table');
    return {
      boundedness: () => (ctx.jobMode === 'BATCH' ? 'BOUNDED' : 'UNBOUNDED'),
      // Its splits carry their keys and progress; the enumerator re-assigns them to any readers.
      rescalable: true,
      catalogTables: () => [sequenceTable(table)],
      createEnumerator: (ectx, restored) => new SequenceEnumerator(ectx, o.get<number>('keys'), restored as SequenceEnumState | undefined),
      createReader: (rctx) =>
        new SequenceReader(
          rctx,
          table,
          o.get<number>('rows.per.key'),
          o.get<number>('rows.per.second'),
          o.get<number>('fault.probability'),
          o.get<number>('fault.max'),
          o.get<string>('fault.dir'),
        ),
    };
  },
};
