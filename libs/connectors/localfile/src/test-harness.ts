import {
  optionsOf,
  parseDataType,
  type CatalogTable,
  type Collector,
  type PluginOptions,
  type Row,
  type SourceReaderContext,
} from '@tideway/api';
import { DuckDBInstance } from '@duckdb/node-api';
import type { FileSplit } from '@tideway/connector-file-common';
import { localFileSinkFactory, localFileSourceFactory } from './index.js';

/** A column of every SeaTunnel type a file format holds (the Parquet and ORC tests' table). */
export const ALL_TYPES: [string, string][] = [
  ['id', 'bigint'],
  ['s', 'string'],
  ['b', 'boolean'],
  ['ti', 'tinyint'],
  ['si', 'smallint'],
  ['i', 'int'],
  ['f', 'float'],
  ['d', 'double'],
  ['dec', 'decimal(38, 18)'],
  ['by', 'bytes'],
  ['dt', 'date'],
  ['ts', 'timestamp'],
  ['arr', 'array<int>'],
  ['m', 'map<string, string>'],
  ['r', 'row<a int, b string>'],
];

/** A table for tests, from `name type` pairs. */
export function tableOf(columns: [string, string][], name = 'db.t'): CatalogTable {
  const [database, table] = name.split('.');
  return {
    tableId: name,
    path: { database, table },
    columns: columns.map(([n, t]) => ({ name: n, type: parseDataType(t), nullable: true })),
  };
}

export function sinkOf(options: Record<string, unknown> | PluginOptions, table: CatalogTable, jobId = 'job1') {
  const opts = 'get' in options ? (options as PluginOptions) : optionsOf(options, localFileSinkFactory.spec);
  return localFileSinkFactory.create({ jobId, jobMode: 'BATCH', parallelism: 1, options: opts, inputTables: [table] });
}

export function sourceOf(options: Record<string, unknown>) {
  return localFileSourceFactory.create({
    jobId: 'job1',
    jobMode: 'BATCH',
    parallelism: 1,
    options: optionsOf(options, localFileSourceFactory.spec),
    inputTables: [],
  });
}

/** Collects emitted rows. */
export class ListCollector implements Collector {
  readonly rows: Row[] = [];
  collect(row: Row): void {
    this.rows.push(row);
  }
  collectBatch(rows: readonly Row[]): void {
    this.rows.push(...rows);
  }
}

/** Prepares a source and runs its enumerator: the splits it hands its one reader, and whether it said no more would come. */
export async function splitsOf(
  options: Record<string, unknown>,
): Promise<{ source: ReturnType<typeof sourceOf>; splits: FileSplit[]; noMore: boolean }> {
  const source = sourceOf(options);
  await source.prepare!();
  const found = { source, splits: [] as FileSplit[], noMore: false };
  const enumerator = source.createEnumerator({
    parallelism: 1,
    registeredReaders: () => [0],
    assignSplits: (_s, sp) => found.splits.push(...(sp as FileSplit[])),
    signalNoMoreSplits: () => {
      found.noMore = true;
    },
  });
  await enumerator.open();
  await enumerator.run();
  return found;
}

/** Runs a source's enumerator and one reader to the end; returns the rows. */
export async function readAll(options: Record<string, unknown>): Promise<{ rows: Row[]; table: CatalogTable }> {
  const { source, splits, noMore } = await splitsOf(options);
  let done = false;
  const ctx: SourceReaderContext = {
    subtaskIndex: 0,
    parallelism: 1,
    boundedness: 'BOUNDED',
    signalNoMoreElement: () => (done = true),
    sendSplitRequest: () => {},
  };
  const reader = source.createReader(ctx);
  reader.addSplits(splits);
  if (noMore) reader.handleNoMoreSplits();
  const out = new ListCollector();
  for (let i = 0; !done && i < 100_000; i++) await reader.pollNext(out);
  await reader.close();
  return { rows: out.rows, table: source.catalogTables()[0] };
}

/** The rows of `sql` as DuckDB (another Parquet implementation) gives them, from an in-memory database of its own. */
export async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return await (await c.run(sql)).getRowObjectsJS();
  } finally {
    c.closeSync();
  }
}
