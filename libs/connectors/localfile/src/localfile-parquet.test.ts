/**
 * Parquet through the LocalFile connector, proven against another implementation: DuckDB
 * (@duckdb/node-api) reads what Tideway writes, with the same rows and types, and Tideway reads
 * what DuckDB writes.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileAggregatedCommitInfo, FileCommitInfo, FileSplit } from '@tideway/connector-file-common';
import { optionsOf, type Row, type SinkAggregatedCommitter } from '@tideway/api';
import { localFileSinkFactory } from './index.js';
import { ALL_TYPES, duck, readAll, sinkOf, sourceOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-parquet-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Row groups of a Parquet file, as DuckDB counts them. */
async function rowGroupsOf(file: string): Promise<number> {
  const [{ groups }] = (await duck(`SELECT count(DISTINCT row_group_id)::INT AS groups FROM parquet_metadata('${file}')`)) as [
    { groups: number },
  ];
  return groups;
}

const COLUMNS = ALL_TYPES;
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
const ROW2 = [2n, ...new Array<null>(COLUMNS.length - 1).fill(null)];

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
  for (const codec of ['none', 'snappy', 'gzip', 'brotli', 'zstd', 'lz4']) {
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
    await source
      .createEnumerator({
        parallelism: 1,
        registeredReaders: () => [0],
        assignSplits: (_s, sp) => splits.push(...(sp as FileSplit[])),
        signalNoMoreSplits: () => {},
      })
      .run();
    const groups = await rowGroupsOf(file);
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
    // schema names the table only, as SeaTunnel's multi-table configs do; columns in it are refused
    const named = await readAll({ path: dir, file_format_type: 'parquet', schema: { table: 'db.parts' } });
    expect(named.table.tableId).toBe('db.parts');
    expect(named.table.columns).toEqual(table.columns);
    expect(named.rows[1001].fields).toEqual(rows[1001].fields);
    const { localFileSourceFactory } = await import('./index.js');
    const { optionsOf } = await import('@tideway/api');
    const check = (schema: Record<string, unknown>) =>
      localFileSourceFactory.spec.validate!(optionsOf({ path: dir, file_format_type: 'parquet', schema }, localFileSourceFactory.spec));
    expect(check({ table: 'db.parts' })).toBeUndefined();
    expect(check({ table: 'db.parts', fields: { id: 'bigint' } })).toMatch(/'schema' names only the table with parquet/);
  });
});

describe('LocalFile parquet, flat files of another writer (page by page, parquet-flat-reader.ts)', () => {
  const ROWS = 5000;
  /** Row g as Tideway reads it, computed here from the SQL's formulas below. */
  const expected = (g: number) => {
    const us = g * 1001;
    const frac = String((us % 1_000_000) + 1_000_000)
      .slice(1)
      .replace(/0+$/, '');
    const at = new Date(Date.UTC(2024, 0, 1) + Math.floor(us / 1000)).toISOString().slice(0, 19) + (frac ? `.${frac}` : '');
    return [
      BigInt(g),
      g % 3 === 0 ? null : `v${g % 7}`,
      `row-${g}`,
      `${Math.floor(g / 100)}.${String(g % 100).padStart(2, '0')}`,
      g * 1.5,
      g % 2 === 0,
      g % 5 === 0 ? null : new Date(Date.UTC(2024, 0, 1) + (g % 400) * 86_400_000).toISOString().slice(0, 10),
      at,
    ];
  };
  for (const version of ['V1', 'V2']) {
    it(`reads a file DuckDB wrote as PARQUET_VERSION ${version} (data pages v1; V2 adds the DELTA encodings): nulls, dictionaries, several row groups`, async () => {
      const dir = join(root, `flat-duckdb-${version}`);
      const file = join(dir, 'part.parquet');
      mkdirSync(dir, { recursive: true });
      await duck(`COPY (SELECT g::BIGINT AS id, CASE WHEN g % 3 = 0 THEN NULL ELSE 'v' || (g % 7) END AS tag, 'row-' || g AS name,
        (g / 100.0)::DECIMAL(10,2) AS amount, g * 1.5::DOUBLE AS x, g % 2 = 0 AS even,
        CASE WHEN g % 5 = 0 THEN NULL ELSE DATE '2024-01-01' + (g % 400)::INT END AS day, TIMESTAMP '2024-01-01 00:00:00' + to_microseconds(g * 1001) AS at
        FROM range(0, ${ROWS}) t(g)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048, PARQUET_VERSION ${version}, COMPRESSION snappy)`);
      const groups = await rowGroupsOf(file);
      expect(groups).toBeGreaterThan(1);
      const { rows, table } = await readAll({ path: dir, file_format_type: 'parquet' });
      expect(table.columns.map((c) => `${c.name} ${c.type.kind}`)).toEqual([
        'id bigint',
        'tag string',
        'name string',
        'amount decimal',
        'x double',
        'even boolean',
        'day date',
        'at timestamp',
      ]);
      expect(rows.map((r) => r.fields)).toEqual(Array.from({ length: ROWS }, (_, g) => expected(g)));
      const projected = await readAll({ path: dir, file_format_type: 'parquet', read_columns: ['day', 'tag'] });
      expect(projected.rows.map((r) => r.fields)).toEqual(Array.from({ length: ROWS }, (_, g) => [expected(g)[6], expected(g)[1]]));
    });
  }
});

/**
 * A table of primitive columns only goes through Tideway's own flat Parquet writer
 * (file-common parquet-file-writer.ts): DuckDB must read every value back exactly, from
 * expectations computed here independently of the writer (Date.UTC, literal decimal texts).
 */
describe('LocalFile parquet, flat tables (Tideway writer)', () => {
  const FLAT: [string, string][] = [
    ...COLUMNS.slice(0, 8), // id bigint ... d double
    ['dec4', 'decimal(4, 1)'],
    ['dec12', 'decimal(12, 2)'],
    ['dec18', 'decimal(18, 6)'],
    ['dec38', 'decimal(38, 18)'],
    ['by', 'bytes'],
    ['dt', 'date'],
    ['tm', 'time'],
    ['ts', 'timestamp'],
  ];
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  /** [Tideway values, what DuckDB gives back by the query below] of row g. */
  function row(g: number): [unknown[], unknown[]] {
    // the first columns read back as written; date, time and timestamp as days and microseconds
    const low = [
      -9223372036854775808n,
      '',
      false,
      -128,
      -32768,
      -2147483648,
      -3.4028234663852886e38,
      -Number.MAX_VALUE,
      '-999.9',
      '-9999999999.99',
      '-999999999999.999999',
      '-99999999999999999999.999999999999999999',
      Buffer.alloc(0),
    ];
    const high = [
      9223372036854775807n,
      'héllo wörld ✓ 日本 🎉 \u{10FFFF}',
      true,
      127,
      32767,
      2147483647,
      Number.NaN,
      -0,
      '999.9',
      '9999999999.99',
      '999999999999.999999',
      '99999999999999999999.999999999999999999',
      Buffer.from([0, 255, 128, 1]),
    ];
    const specials: [unknown[], unknown[]][] = [
      // Date.UTC reads year 1 as 1901: 0001-01-01 is day -719162
      [
        [...low, '0001-01-01', '00:00:00', '0001-01-01T00:00:00'],
        [...low, -719_162, 0n, -62_135_596_800_000_000n],
      ],
      [
        [...high, '9999-12-31', '23:59:59.999999', '9999-12-31T23:59:59.999999'],
        [...high, Date.UTC(9999, 11, 31) / 86_400_000, 86_399_999_999n, BigInt(Date.UTC(9999, 11, 31, 23, 59, 59)) * 1000n + 999_999n],
      ],
    ];
    if (g < specials.length) return specials[g];
    const us = (g * 7919) % 1_000_000;
    const [y, mo, d, h, mi, s] = [1950 + (g % 120), g % 12, 1 + (g % 28), g % 24, (g * 7) % 60, (g * 13) % 60];
    const dec4 = `${g % 2 ? '-' : ''}${g % 1000}.${g % 10}`;
    const dec12 = `${Math.floor(g / 100)}.${pad(g % 100, 2)}`;
    const dec18 = `${g % 3 ? '-' : ''}${g}.${pad((g * 7) % 1_000_000, 6)}`;
    const dec38 = `${g % 5 ? '-' : ''}${g}${'9'.repeat(15)}.${pad(g, 18)}`;
    const text = `${['new', 'paid', 'shipped'][g % 3]}${g % 7 === 0 ? '-ü' : ''}`;
    const values = [
      BigInt(g) * 1_000_000_007n,
      text,
      g % 3 === 0,
      (g % 256) - 128,
      ((g * 31) % 65536) - 32768,
      g * 7919 - 1_000_000,
      g / 8,
      g * 1.000001,
      dec4,
      dec12,
      dec18,
      dec38,
      Buffer.from(`b${g}`),
      `${pad(y, 4)}-${pad(mo + 1, 2)}-${pad(d, 2)}`,
      `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(us, 6)}`,
      `${pad(y, 4)}-${pad(mo + 1, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(us, 6)}`,
    ];
    const duckValues = [
      ...values.slice(0, 6),
      Math.fround(g / 8),
      ...values.slice(7, 13), // double, the decimals' texts, bytes
      Date.UTC(y, mo, d) / 86_400_000,
      BigInt(((h * 60 + mi) * 60 + s) * 1_000_000 + us),
      BigInt(Date.UTC(y, mo, d, h, mi, s)) * 1000n + BigInt(us),
    ];
    // every column null on some rows
    const isNull = (i: number) => (g + i) % 13 === 0;
    return [values.map((v, i) => (isNull(i) && i > 0 ? null : v)), duckValues.map((v, i) => (isNull(i) && i > 0 ? null : v))];
  }

  it.each(['none', 'snappy', 'gzip', 'zstd', 'lz4'])(
    'writes every primitive type DuckDB reads back exactly (compress_codec %s)',
    async (codec) => {
      const dir = join(root, `flat-${codec}`);
      const table = tableOf(FLAT);
      const sink = sinkOf({ path: dir, tmp_path: join(root, 'tmp'), file_format_type: 'parquet', compress_codec: codec }, table);
      const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
      const rows = Array.from({ length: 1500 }, (_, g) => row(g));
      await writer.write(rows.map(([fields]) => ({ kind: '+I', tableId: 'db.t', fields })));
      const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
      await writer.close();
      const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
      expect(await committer.commit([committer.combine([info])])).toEqual([]);
      const file = join(dir, readdirSync(dir)[0]);
      const types = await duck(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`);
      expect(types.map((t) => t.column_type)).toEqual([
        'BIGINT',
        'VARCHAR',
        'BOOLEAN',
        'TINYINT',
        'SMALLINT',
        'INTEGER',
        'FLOAT',
        'DOUBLE',
        'DECIMAL(4,1)',
        'DECIMAL(12,2)',
        'DECIMAL(18,6)',
        'DECIMAL(38,18)',
        'BLOB',
        'DATE',
        'TIME',
        'TIMESTAMP',
      ]);
      const back = await duck(
        `SELECT id, s, b, ti, si, i, f, d, dec4::VARCHAR AS dec4, dec12::VARCHAR AS dec12, dec18::VARCHAR AS dec18, dec38::VARCHAR AS dec38, "by",
        (dt - DATE '1970-01-01')::INT AS dt, tm, epoch_us(ts) AS ts FROM read_parquet('${file}')`,
      );
      expect(back.map((r) => FLAT.map(([n]) => (r[n] instanceof Uint8Array ? Buffer.from(r[n]) : r[n])))).toEqual(rows.map(([, d]) => d));
      // and the statistics DuckDB trusts for pruning: a filter on min/max finds the extreme rows
      const [extremes] = await duck(
        `SELECT count(*)::INT AS n FROM read_parquet('${file}') WHERE id = 9223372036854775807 OR s = 'héllo wörld ✓ 日本 🎉 \u{10FFFF}' OR ts = TIMESTAMP '0001-01-01 00:00:00'`,
      );
      expect(extremes).toEqual({ n: 2 });
    },
  );

  it('writes rows of two tables that arrive interleaved, with sink_columns and batch_size cutting inside batches', async () => {
    const dir = join(root, 'two-tables');
    const cols: [string, string][] = [
      ['id', 'bigint'],
      ['name', 'string'],
      ['amount', 'decimal(12, 2)'],
    ];
    const tables = [tableOf(cols, 'db.a'), tableOf(cols, 'db.b')];
    const options = optionsOf(
      {
        path: `${dir}/\${table_name}`,
        tmp_path: join(root, 'tmp'),
        file_format_type: 'parquet',
        sink_columns: ['amount', 'id'],
        batch_size: 700,
      },
      localFileSinkFactory.spec,
    );
    const sink = localFileSinkFactory.create({ jobId: 'job1', jobMode: 'BATCH', parallelism: 1, options, inputTables: tables });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    // runs of 1 to 37 rows of one table, then of the other; written 512 rows at a time
    const rows: Row[] = [];
    for (let g = 0, t = 0; g < 3000; t = 1 - t)
      for (let n = 1 + ((g * 7) % 37); n > 0 && g < 3000; n--, g++)
        rows.push({ kind: '+I', tableId: tables[t].tableId, fields: [BigInt(g), `n${g}`, `${g}.${String(g % 100).padStart(2, '0')}`] });
    for (let i = 0; i < rows.length; i += 512) await writer.write(rows.slice(i, i + 512));
    const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
    await writer.close();
    const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    for (const t of ['a', 'b']) {
      const files = readdirSync(join(dir, t)).map((f) => join(dir, t, f));
      expect(files.length).toBeGreaterThan(1);
      const want = rows.filter((r) => r.tableId === `db.${t}`).map((r) => ({ amount: r.fields[2], id: String(r.fields[0]) }));
      const got = await duck(
        `SELECT amount::VARCHAR AS amount, id::VARCHAR AS id FROM read_parquet([${files.map((f) => `'${f}'`).join(', ')}]) ORDER BY id::BIGINT`,
      );
      expect(got).toEqual(want);
      const perFile = await duck(
        `SELECT count(*)::INT AS n FROM read_parquet([${files.map((f) => `'${f}'`).join(', ')}], filename = true) GROUP BY filename`,
      );
      expect(Math.max(...perFile.map((r) => r.n as number))).toBeLessThanOrEqual(700);
    }
  });
});
