/**
 * Parquet through the LocalFile connector, proven against another implementation: DuckDB
 * (@duckdb/node-api) reads what Tideway writes, with the same rows and types, and Tideway reads
 * what DuckDB writes.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import type { FileAggregatedCommitInfo, FileCommitInfo, FileSplit } from '@tideway/connector-file-common';
import type { Row, SinkAggregatedCommitter } from '@tideway/api';
import { readAll, sinkOf, sourceOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-parquet-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return await (await c.run(sql)).getRowObjectsJS();
  } finally {
    c.closeSync();
  }
}

const COLUMNS: [string, string][] = [
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
const ROW1 = [
  9007199254740993n,
  'héllo',
  true,
  -8,
  300,
  70000,
  1.5,
  1e7,
  '-12345678901234567890.123456789012345678',
  Buffer.from('bytes!'),
  '2024-02-29',
  '2024-01-02T03:04:05.123456',
  [1, 2, 3],
  new Map([['k1', 'v1']]),
  [7, 'seven'],
];
const ROW2 = [2n, ...new Array(COLUMNS.length - 1).fill(null)];

async function writeParquet(dir: string, options: Record<string, unknown> = {}): Promise<string[]> {
  const table = tableOf(COLUMNS);
  const sink = sinkOf({ path: dir, tmp_path: join(root, 'tmp'), file_format_type: 'parquet', ...options }, table);
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  const rows: Row[] = [ROW1, ROW2].map((fields) => ({ kind: '+I', tableId: 'db.t', fields }));
  await writer.write(rows);
  const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
  await writer.close();
  const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
  expect(await committer.commit([committer.combine([info])])).toEqual([]);
  return readdirSync(dir).map((f) => join(dir, f));
}

describe('LocalFile parquet', () => {
  for (const codec of ['none', 'snappy', 'gzip', 'brotli']) {
    it(`writes a file DuckDB reads with the same rows and types (compress_codec ${codec})`, async () => {
      const dir = join(root, `out-${codec}`);
      const files = await writeParquet(dir, { compress_codec: codec });
      expect(files).toEqual([expect.stringMatching(/\.parquet$/)]);
      const types = await duck(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${files[0]}'))`);
      expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).toEqual({
        id: 'BIGINT',
        s: 'VARCHAR',
        b: 'BOOLEAN',
        ti: 'TINYINT',
        si: 'SMALLINT',
        i: 'INTEGER',
        f: 'FLOAT',
        d: 'DOUBLE',
        dec: 'DECIMAL(38,18)',
        by: 'BLOB',
        dt: 'DATE',
        ts: 'TIMESTAMP',
        arr: 'INTEGER[]',
        m: 'MAP(VARCHAR, VARCHAR)',
        r: 'STRUCT(a INTEGER, b VARCHAR)',
      });
      const rows = await duck(
        `SELECT id::VARCHAR AS id, s, b, ti, si, i, f, d, dec::VARCHAR AS dec, "by"::VARCHAR AS "by", dt::VARCHAR AS dt, ts::VARCHAR AS ts, arr::VARCHAR AS arr, m::VARCHAR AS m, r::VARCHAR AS r FROM read_parquet('${files[0]}') ORDER BY id DESC`,
      );
      expect(rows).toEqual([
        {
          id: '9007199254740993',
          s: 'héllo',
          b: true,
          ti: -8,
          si: 300,
          i: 70000,
          f: 1.5,
          d: 1e7,
          dec: '-12345678901234567890.123456789012345678',
          by: 'bytes!',
          dt: '2024-02-29',
          ts: '2024-01-02 03:04:05.123456',
          arr: '[1, 2, 3]',
          m: '{k1=v1}',
          r: "{'a': 7, 'b': seven}",
        },
        {
          id: '2',
          s: null,
          b: null,
          ti: null,
          si: null,
          i: null,
          f: null,
          d: null,
          dec: null,
          by: null,
          dt: null,
          ts: null,
          arr: null,
          m: null,
          r: null,
        },
      ]);
    });
  }

  it('reads back what it wrote, every type, with read_columns', async () => {
    const dir = join(root, 'roundtrip');
    await writeParquet(dir);
    const { rows, table } = await readAll({ path: dir, file_format_type: 'parquet' });
    expect(table.columns.map((c) => `${c.name} ${c.type.kind}`)).toEqual(COLUMNS.map(([n, t]) => `${n} ${t.replace(/[(<].*$/, '')}`));
    expect(rows.map((r) => r.fields)).toEqual([ROW1, ROW2]);
    const projected = await readAll({ path: dir, file_format_type: 'parquet', read_columns: ['ts', 'id'] });
    expect(projected.table.columns.map((c) => c.name)).toEqual(['ts', 'id']);
    expect(projected.rows.map((r) => r.fields)).toEqual([
      [ROW1[11], ROW1[0]],
      [null, 2n],
    ]);
  });

  it('reads a file DuckDB wrote, one split per row group', async () => {
    const dir = join(root, 'from-duckdb');
    const file = join(dir, 'part.parquet');
    mkdirSync(dir, { recursive: true });
    await duck(`COPY (SELECT g::BIGINT AS id, 'n' || g AS name, (g / 100.0)::DECIMAL(10,2) AS amount, DATE '2024-01-01' + g::INT AS day,
      TIMESTAMP '2024-01-01 00:00:00' + to_microseconds(g) AS at, [g, g + 1] AS pair, {'k': g::INT} AS st, CASE WHEN g % 2 = 0 THEN NULL ELSE g::INT END AS odd
      FROM range(0, 2500) t(g)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 1000, COMPRESSION zstd)`);
    const source = sourceOf({ path: dir, file_format_type: 'parquet' });
    await source.prepare!();
    const splits: FileSplit[] = [];
    source
      .createEnumerator({
        parallelism: 1,
        registeredReaders: () => [0],
        assignSplits: (_s, sp) => splits.push(...(sp as FileSplit[])),
        signalNoMoreSplits: () => {},
      })
      .run();
    const [{ groups }] = (await duck(`SELECT count(DISTINCT row_group_id)::INT AS groups FROM parquet_metadata('${file}')`)) as [
      { groups: number },
    ];
    expect(groups).toBeGreaterThan(1);
    expect(splits.map((s) => s.splitId)).toEqual(Array.from({ length: groups }, (_, i) => `${file}#${i}`));
    const { rows, table } = await readAll({ path: dir, file_format_type: 'parquet' });
    expect(table.columns.map((c) => `${c.name} ${c.type.kind}`)).toEqual([
      'id bigint',
      'name string',
      'amount decimal',
      'day date',
      'at timestamp',
      'pair array',
      'st row',
      'odd int',
    ]);
    expect(rows).toHaveLength(2500);
    expect(rows[1001].fields).toEqual([1001n, 'n1001', '10.01', '2026-09-28', '2024-01-01T00:00:00.001001', [1001n, 1002n], [1001], 1001]);
    expect(rows[2].fields.at(-1)).toBeNull();
  });
});
