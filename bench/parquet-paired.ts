/**
 * The Parquet sink as bench/parquet.ts times it: rows of orders made in batches as a sink receives
 * them, Tideway's LocalFile parquet sink writing them, and the "paired" timing of the writer.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Row, SinkWriter } from '@tideway/api';
import { COLUMNS, copyRows, orderRow } from './orders-rows.js';

export const ROWS = Number(process.env.BENCH_ROWS ?? 2_000_000);
/**
 * Rows a sink's write gets at a time: the PostgreSQL source's default fetch_size (the rows of one
 * poll, which the task hands its sink in one call). The bench used 4096 until 2026-12-04; in
 * alternating processes the writer took the same time with either.
 */
export const BATCH = 1024;
/**
 * Batches in a block of the paired phase (65,536 rows): long enough that what a block of writes
 * costs the making of the next rows mostly lands in its own block, short enough (about 0.3 s) that
 * the machine's speed is the same for a block made only and the block made and written after it.
 */
const PAIRED_BATCHES = 65536 / BATCH;
/** DuckDB's COPY runs this many times; the median is its rate. */
export const DUCKDB_COPIES = 3;
/** The paired writer runs as many times, in one process, for the same reason: the median is its rate. */
export const PAIRED_RUNS = DUCKDB_COPIES;

/** Milliseconds spent inside the writer's (or the encoder's) calls in this thread. */
export const calls = { ms: 0 };

/** `f`'s result, its time added to calls.ms. */
export async function timed<T>(f: () => T | Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await f();
  } finally {
    calls.ms += performance.now() - t0;
  }
}

/**
 * Starts the Parquet row-group thread before a phase's clock, as modules are loaded before it: a
 * once-a-process start, which through tsx (compiling the thread's TypeScript) takes about 0.3 s
 * against 0.1-0.15 s for the built JavaScript; meanwhile row groups are encoded on the
 * writer's own thread.
 */
export async function rowGroupThread(): Promise<void> {
  const { rowGroupThreadListening } = await import('@tideway/connector-file-common');
  if (!(await rowGroupThreadListening())) throw new Error('the Parquet row-group thread did not start');
}

/** Tideway's LocalFile sink of the orders table writing `format` (parquet unless said) under `path`, snappy, and its writer. */
export async function sinkWriter(path: string, format = 'parquet') {
  const { localFileSinkFactory } = await import('@tideway/connector-localfile');
  const { optionsOf, parseDataType } = await import('@tideway/api');
  const table = {
    tableId: 'db.orders',
    path: { database: 'db', table: 'orders' },
    columns: COLUMNS.map(([n, t]) => ({ name: n, type: parseDataType(t), nullable: true })),
  };
  const options = optionsOf(
    { path, tmp_path: `${path}-tmp`, file_format_type: format, compress_codec: 'snappy', batch_size: ROWS },
    localFileSinkFactory.spec,
  );
  const sink = localFileSinkFactory.create({ jobId: 'bench', jobMode: 'BATCH', parallelism: 1, options, inputTables: [table] });
  return { sink, writer: sink.createWriter({ subtaskIndex: 0, parallelism: 1 }) };
}

/** Ends the file `writer` wrote: prepares the commit, closes the writer and commits, as a job's last checkpoint does. */
export async function commitFile(sink: Awaited<ReturnType<typeof sinkWriter>>['sink'], writer: SinkWriter): Promise<void> {
  const info = await writer.prepareCommit!(1);
  await writer.close();
  const committer = sink.createAggregatedCommitter!();
  await committer.commit([committer.combine([info])]);
}

/**
 * Where the rows' fields come from: PostgreSQL's COPY text parsed by Tideway's PostgreSQL source
 * (`copyRows`, the bench's rows since 2026-12-04), or each row made on its own by `orderRow` (the
 * bench's rows before; one phase still times the writer on them, for comparison).
 */
export const rowsFrom = { made: false };

/** The fields of rows g .. g + n - 1. */
function fieldsOf(g: number, n: number): unknown[][] {
  if (!rowsFrom.made) return copyRows(g, n);
  const out: unknown[][] = [];
  for (let i = g; i < g + n; i++) out.push(orderRow(i));
  return out;
}

/** Rows g.. of one batch, as a source hands them to a sink. */
export function batchOf(g: number): Row[] {
  return fieldsOf(g, Math.min(BATCH, ROWS + 1 - g)).map((fields) => ({ kind: '+I', tableId: 'db.orders', fields }));
}

/**
 * Makes the batch of rows g.. and has `writer` write it, the writer's call timed. A function of
 * its own, so the batch is let go when it returns: a `const batch` in the phase's loop stays alive
 * in the async phase's frame while the next batch is made, and the two batches alive together are
 * promoted to the old generation by the scavenges of the making (2.5 MB a scavenge, about 1.4 s of
 * garbage collection on 2M rows measured with --trace-gc-nvp, and as much with no writer at all):
 * a cost of the bench's loop, which no source hands a sink.
 */
export async function writeBatch(writer: Pick<SinkWriter, 'write'>, g: number): Promise<void> {
  const batch = batchOf(g);
  await timed(() => writer.write(batch));
}

/** One paired run: the writer's cost (what the written blocks took more than the made-only ones) and its calls' own time, in seconds. */
export interface PairedRun {
  writerSecs: number;
  callSecs: number;
}

/**
 * `count` (PAIRED_RUNS) paired runs of one writer of `format` (parquet): blocks of PAIRED_BATCHES batches, made and thrown away,
 * and the same rows made again and written. The row-group thread encodes a row group while the
 * blocks after its submission run, so the order alternates (made only, written, written, made
 * only, ...): the thread's work falls on both kinds of block alike instead of always on the
 * made-only one after.
 */
export async function pairedRuns(dir: string, format = 'parquet', count = PAIRED_RUNS): Promise<PairedRun[]> {
  const runs: PairedRun[] = [];
  for (let run = 0; run < count; run++) {
    calls.ms = 0;
    const { writer } = await sinkWriter(join(dir, 'paired'), format);
    let makeOnly = 0;
    let makeAndWrite = 0;
    for (let b0 = 1, k = 0; b0 <= ROWS; b0 += PAIRED_BATCHES * BATCH, k++) {
      const b1 = Math.min(ROWS + 1, b0 + PAIRED_BATCHES * BATCH);
      for (const write of k % 2 === 0 ? [false, true] : [true, false]) {
        const t = performance.now();
        if (write) {
          for (let g = b0; g < b1; g += BATCH) await writeBatch(writer, g);
          makeAndWrite += performance.now() - t;
        } else {
          for (let g = b0; g < b1; g += BATCH) batchOf(g);
          makeOnly += performance.now() - t;
        }
      }
    }
    const t = performance.now();
    await timed(async () => {
      await writer.prepareCommit!(1);
      await writer.close();
    });
    makeAndWrite += performance.now() - t;
    for (const d of ['paired', 'paired-tmp']) rmSync(join(dir, d), { recursive: true, force: true });
    runs.push({ writerSecs: (makeAndWrite - makeOnly) / 1000, callSecs: calls.ms / 1000 });
  }
  return runs;
}

/** The median run of `runs` (by the writer's cost), with the first run's cost and the range. */
export function medianRun(runs: readonly PairedRun[]) {
  const sorted = [...runs].sort((a, b) => a.writerSecs - b.writerSecs);
  return {
    ...sorted[sorted.length >> 1],
    firstWriterSecs: runs[0].writerSecs,
    minWriterSecs: sorted[0].writerSecs,
    maxWriterSecs: sorted[sorted.length - 1].writerSecs,
  };
}

/**
 * The writer on rows already in memory, as DuckDB's COPY reads its table: all ROWS rows made
 * before the clock (a heap of about 1.2 GB for 2,000,000 rows), then written through the sink,
 * PAIRED_RUNS times in one process. Both of the writer's threads are then at work all the time, so
 * this counts the row-group thread's limit, which the paired runs (whose made-only blocks leave it
 * time) do not; the made rows are old by then, which a source's fresh rows are not.
 */
export async function fromMemoryRuns(dir: string): Promise<PairedRun[]> {
  const batches: Row[][] = [];
  for (let g = 1; g <= ROWS; g += BATCH) batches.push(batchOf(g));
  const runs: PairedRun[] = [];
  for (let run = 0; run < PAIRED_RUNS; run++) {
    const { sink, writer } = await sinkWriter(join(dir, 'memory'));
    const t0 = performance.now();
    for (const batch of batches) await writer.write(batch);
    await commitFile(sink, writer);
    // nothing but the writer's calls runs in the timed span: its time is theirs
    const secs = (performance.now() - t0) / 1000;
    runs.push({ writerSecs: secs, callSecs: secs });
    for (const d of ['memory', 'memory-tmp']) rmSync(join(dir, d), { recursive: true, force: true });
  }
  return runs;
}

/** Rows Tideway's LocalFile source reads from `path` (a file or folder of `format` files), with one reader, as a job's would. */
export async function sourceRowCount(path: string, format: string): Promise<number> {
  const { localFileSourceFactory } = await import('@tideway/connector-localfile');
  const { optionsOf } = await import('@tideway/api');
  const source = localFileSourceFactory.create({
    jobId: 'bench',
    jobMode: 'BATCH',
    parallelism: 1,
    options: optionsOf({ path, file_format_type: format }, localFileSourceFactory.spec),
    inputTables: [],
  });
  await source.prepare!();
  const splits: unknown[] = [];
  await source
    .createEnumerator({
      parallelism: 1,
      registeredReaders: () => [0],
      assignSplits: (_s, sp) => splits.push(...sp),
      signalNoMoreSplits: () => {},
    })
    .run();
  let done = false;
  let rows = 0;
  const reader = source.createReader({
    subtaskIndex: 0,
    parallelism: 1,
    boundedness: 'BOUNDED',
    signalNoMoreElement: () => (done = true),
    sendSplitRequest: () => {},
  });
  reader.addSplits(splits as never[]);
  reader.handleNoMoreSplits();
  const out = { collect: () => rows++, collectBatch: (b: readonly unknown[]) => (rows += b.length) };
  while (!done) await reader.pollNext(out);
  return rows;
}
