/**
 * Nested Parquet columns (row, array, map) read by Tideway's own assembly of their leaves' levels
 * (file-common parquet-nested-reader.ts), against files DuckDB wrote, whose own to_json of each
 * row is the expectation. The older list shapes and reads from inside a row group are in
 * file-common's parquet-nested-reader.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DataType, SinkAggregatedCommitter } from '@tideway/api';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import { duck, readAll, sinkOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-parquet-nested-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A Tideway value of `type` as JSON would hold it (rows as objects by field name, maps as objects), for comparing with DuckDB's to_json. */
function asJson(v: unknown, type: DataType): unknown {
  if (v === null) return null;
  switch (type.kind) {
    case 'row':
      return Object.fromEntries(type.fields.map((f, i) => [f.name, asJson((v as unknown[])[i], f.type)]));
    case 'array':
      return (v as unknown[]).map((e) => asJson(e, type.element));
    case 'map':
      return Object.fromEntries([...(v as Map<unknown, unknown>)].map(([k, e]) => [String(k), asJson(e, type.value)]));
    case 'bigint':
      return Number(v);
    default:
      return v;
  }
}

const ROWS = 30_000;
const SELECT = `SELECT g::BIGINT AS id,
  CASE g % 5 WHEN 0 THEN NULL WHEN 1 THEN [] WHEN 2 THEN [NULL, g::INT] ELSE [g::INT, g::INT + 1, g::INT + 2] END AS li,
  CASE g % 4 WHEN 0 THEN NULL WHEN 1 THEN [[], NULL, [g::INT]] WHEN 2 THEN [[g::INT, NULL]] ELSE [] END AS lli,
  CASE g % 6 WHEN 0 THEN NULL WHEN 1 THEN {'a': NULL, 'b': NULL, 'c': NULL}
    ELSE {'a': g::INT, 'b': CASE WHEN g % 3 = 0 THEN [] ELSE ['x' || g, NULL] END, 'c': CASE WHEN g % 7 = 0 THEN NULL ELSE {'d': g / 4} END} END AS st,
  CASE g % 3 WHEN 0 THEN [NULL, {'x': g::INT, 'y': 'y' || g}] WHEN 1 THEN [{'x': NULL, 'y': NULL}] ELSE NULL END AS ls,
  CASE g % 4 WHEN 0 THEN NULL WHEN 1 THEN MAP {} WHEN 2 THEN MAP {'k' || g: [g::INT], 'n': NULL} ELSE MAP {'e': []} END AS m,
  repeat('w', (g % 50)::INT) AS name
  FROM range(0, ${ROWS}) t(g)`;

describe('LocalFile parquet, nested columns (parquet-nested-reader.ts)', () => {
  for (const version of ['V1', 'V2']) {
    it(`reads what DuckDB wrote (PARQUET_VERSION ${version}): null, empty and nested lists, structs, lists of structs, maps of lists, as DuckDB reads them`, async () => {
      const dir = join(root, `duckdb-${version}`);
      const file = join(dir, 'part.parquet');
      mkdirSync(dir, { recursive: true });
      await duck(`COPY (${SELECT}) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 10000, PARQUET_VERSION ${version}, COMPRESSION zstd)`);
      const expected = (await duck(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet('${file}') t ORDER BY id`)).map(
        (r) => JSON.parse(r.j as string) as unknown,
      );
      const { rows, table } = await readAll({ path: dir, file_format_type: 'parquet' });
      expect(table.columns.map((c) => c.name)).toEqual(['id', 'li', 'lli', 'st', 'ls', 'm', 'name']);
      const rowType: DataType = { kind: 'row', fields: table.columns.map((c) => ({ name: c.name, type: c.type })) };
      expect(rows).toHaveLength(ROWS);
      expect(rows.map((r) => asJson(r.fields, rowType))).toEqual(expected);
      // the same rows with only some columns read
      const projected = await readAll({ path: dir, file_format_type: 'parquet', read_columns: ['m', 'id', 'lli'] });
      expect(projected.rows.map((r) => r.fields)).toEqual(rows.map((r) => [r.fields[5], r.fields[0], r.fields[2]]));
    });
  }

  it("writes those rows through Tideway's own writer (parquet-nested-shredder.ts) as a file DuckDB reads as the same JSON", async () => {
    const source = join(root, 'duckdb-source');
    mkdirSync(source, { recursive: true });
    await duck(`COPY (${SELECT}) TO '${join(source, 'part.parquet')}' (FORMAT parquet)`);
    const expected = (await duck(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet('${source}/part.parquet') t ORDER BY id`)).map(
      (r) => r.j as string,
    );
    const { rows, table } = await readAll({ path: source, file_format_type: 'parquet' });
    const dir = join(root, 'tideway-written');
    const sink = sinkOf({ path: dir, tmp_path: join(root, 'tmp'), file_format_type: 'parquet', compress_codec: 'zstd' }, table);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write(rows);
    const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
    await writer.close();
    const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    const written = (await duck(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet('${dir}/*.parquet') t ORDER BY id`)).map(
      (r) => r.j as string,
    );
    expect(written).toHaveLength(ROWS);
    expect(written).toEqual(expected);
    // and Tideway reads its own file as it read DuckDB's
    expect((await readAll({ path: dir, file_format_type: 'parquet' })).rows.map((r) => r.fields)).toEqual(rows.map((r) => r.fields));
  });
});
