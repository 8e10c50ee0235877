import type { Collector, JobMode, PluginContext, Row, SourceReaderContext, SplitEnumeratorContext } from '@tideway/api';
import { optionsOf } from '@tideway/api';
import { FakeSource } from './source.js';
import { FAKE_SOURCE_SPEC } from './spec.js';
import type { FakeSplit } from './splits.js';

/**
 * In-process fakes of the engine's enumerator and reader contexts, for FakeSource's tests
 * (and anyone who wants to drive a FakeSource without the runtime).
 */
export function fakeSourceOf(options: Record<string, unknown>, parallelism = 1, jobMode: JobMode = 'BATCH'): FakeSource {
  const ctx: PluginContext = { jobId: 'test', jobMode, parallelism, options: optionsOf(options, FAKE_SOURCE_SPEC), inputTables: [] };
  return new FakeSource(ctx);
}

/** Records what an enumerator does. */
export class RecordingEnumeratorContext implements SplitEnumeratorContext<FakeSplit> {
  readonly assigned = new Map<number, FakeSplit[]>();
  readonly noMoreSplits = new Set<number>();
  constructor(
    readonly parallelism: number,
    private readonly readers: number[] = Array.from({ length: parallelism }, (_, i) => i),
  ) {}
  registeredReaders(): number[] {
    return this.readers;
  }
  assignSplits(subtask: number, splits: FakeSplit[]): void {
    this.assigned.set(subtask, [...(this.assigned.get(subtask) ?? []), ...splits]);
  }
  signalNoMoreSplits(subtask: number): void {
    this.noMoreSplits.add(subtask);
  }
}

/** A reader context that records the end signal. */
export class RecordingReaderContext implements SourceReaderContext {
  ended = false;
  constructor(
    readonly subtaskIndex: number,
    readonly parallelism: number,
    readonly boundedness: 'BOUNDED' | 'UNBOUNDED' = 'BOUNDED',
  ) {}
  signalNoMoreElement(): void {
    this.ended = true;
  }
  sendSplitRequest(): void {}
}

/** Collects emitted rows and counts batches. */
export class ListCollector implements Collector {
  readonly rows: Row[] = [];
  batches = 0;
  collect(row: Row): void {
    this.rows.push(row);
  }
  collectBatch(rows: readonly Row[]): void {
    this.batches++;
    for (const r of rows) this.rows.push(r);
  }
}

/** Runs a bounded source to the end (enumerator, then every reader), returning rows per reader. */
export function runBounded(source: FakeSource, parallelism: number, timeoutMs = 10_000): Row[][] {
  const ectx = new RecordingEnumeratorContext(parallelism);
  const en = source.createEnumerator(ectx);
  en.open();
  en.run();
  return Array.from({ length: parallelism }, (_, i) => {
    const rctx = new RecordingReaderContext(i, parallelism);
    const reader = source.createReader(rctx);
    reader.addSplits(ectx.assigned.get(i) ?? []);
    if (ectx.noMoreSplits.has(i)) reader.handleNoMoreSplits();
    const out = new ListCollector();
    const deadline = Date.now() + timeoutMs;
    while (!rctx.ended && Date.now() < deadline) reader.pollNext(out);
    if (!rctx.ended) throw new Error(`reader ${i} did not end within ${timeoutMs} ms`);
    return out.rows;
  });
}
