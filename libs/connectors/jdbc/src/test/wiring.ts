/**
 * Unit-level wiring of the Jdbc connector for tests, standing in for the engine: creates the
 * source's enumerator and readers and the sink's writers and committer through the factories.
 */
import {
  optionsOf,
  type CatalogTable,
  type Row,
  type RowEncodingOffer,
  type SourceReaderContext,
  type SplitEnumeratorContext,
} from '@tideway/api';
import { jdbcSinkFactory, JdbcSink } from '../jdbc-sink.js';
import { jdbcSourceFactory, JdbcSource } from '../jdbc-source.js';
import type { JdbcSplit } from '../jdbc-split.js';
import type { JdbcCommitInfo } from '../xa-transactions.js';
import type { JdbcWriterState } from '../sink-writer.js';

export async function makeSource(options: Record<string, unknown>, parallelism = 1): Promise<JdbcSource> {
  const source = jdbcSourceFactory.create({
    jobId: 'test-job',
    jobMode: 'BATCH',
    parallelism,
    options: optionsOf(options, jdbcSourceFactory.spec),
    inputTables: [],
  }) as unknown as JdbcSource;
  await source.prepare();
  return source;
}

/** Plans splits as the enumerator hands them to each subtask. */
export async function assignedSplits(source: JdbcSource, parallelism: number): Promise<Map<number, JdbcSplit[]>> {
  const assigned = new Map<number, JdbcSplit[]>();
  const done = new Set<number>();
  const ctx: SplitEnumeratorContext<JdbcSplit> = {
    parallelism,
    registeredReaders: () => [...Array(parallelism).keys()],
    assignSplits: (subtask, splits) => assigned.set(subtask, [...(assigned.get(subtask) ?? []), ...splits]),
    signalNoMoreSplits: (subtask) => done.add(subtask),
  };
  const enumerator = source.createEnumerator(ctx);
  await enumerator.open();
  await enumerator.run();
  await enumerator.close();
  for (let i = 0; i < parallelism; i++) if (!done.has(i)) throw new Error(`subtask ${i} was not told that no more splits come`);
  return assigned;
}

/** Runs one reader over its splits; `stopAfter` rows ends it early (for restore tests). */
export async function readSplits(
  source: JdbcSource,
  splits: JdbcSplit[],
  opts: {
    subtask?: number;
    parallelism?: number;
    stopAfterRows?: number;
    onRows?: (rowsSoFar: number) => Promise<void>;
    /** A sink's row encoding, offered to the reader before it opens (as the runtime does). */
    offer?: RowEncodingOffer;
  } = {},
): Promise<{ rows: Row[]; state: JdbcSplit[] }> {
  let finished = false;
  const ctx: SourceReaderContext = {
    subtaskIndex: opts.subtask ?? 0,
    parallelism: opts.parallelism ?? 1,
    boundedness: 'BOUNDED',
    signalNoMoreElement: () => (finished = true),
    sendSplitRequest: () => undefined,
  };
  const reader = source.createReader(ctx);
  if (opts.offer) reader.offerRowEncoding?.(opts.offer);
  await reader.open();
  reader.addSplits(splits);
  reader.handleNoMoreSplits();
  const rows: Row[] = [];
  const out = { collect: (r: Row) => rows.push(r), collectBatch: (b: readonly Row[]) => rows.push(...b) };
  try {
    while (!finished) {
      await reader.pollNext(out);
      await opts.onRows?.(rows.length);
      if (opts.stopAfterRows !== undefined && rows.length >= opts.stopAfterRows) break;
    }
    return { rows, state: reader.snapshotState(1) };
  } finally {
    await reader.close();
  }
}

/** Reads everything a source produces with `parallelism` readers. */
export async function readAll(
  options: Record<string, unknown>,
  parallelism = 1,
): Promise<{ source: JdbcSource; rows: Row[]; splits: number }> {
  const source = await makeSource(options, parallelism);
  const assigned = await assignedSplits(source, parallelism);
  const results = await Promise.all(
    [...Array(parallelism).keys()].map((i) => readSplits(source, assigned.get(i) ?? [], { subtask: i, parallelism })),
  );
  const splits = [...assigned.values()].reduce((n, s) => n + s.length, 0);
  return { source, rows: results.flatMap((r) => r.rows), splits };
}

export async function makeSink(options: Record<string, unknown>, inputTables: CatalogTable[], jobId = 'test-job'): Promise<JdbcSink> {
  const sink = jdbcSinkFactory.create({
    jobId,
    jobMode: 'BATCH',
    parallelism: 1,
    options: optionsOf(options, jdbcSinkFactory.spec),
    inputTables,
  }) as unknown as JdbcSink;
  await sink.prepare();
  return sink;
}

/** Writes rows with one writer, then a final checkpoint: prepareCommit, committer commit, close. */
export async function writeAll(sink: JdbcSink, rows: Row[], batch = 100): Promise<void> {
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  for (let i = 0; i < rows.length; i += batch) await writer.write(rows.slice(i, i + batch));
  const info = await writer.prepareCommit?.(1);
  if (info) await sink.createCommitter().commit([info]);
  await writer.close();
}

/**
 * Waits until a writer's full batches are written: the Jdbc writer writes them in the
 * background (their errors surface at the next write, flush, prepareCommit or close).
 */
export async function flushed(writer: unknown): Promise<void> {
  await (writer as { flush(): Promise<void> }).flush();
}

export type { JdbcCommitInfo, JdbcWriterState };
