/**
 * The Iceberg sink classifies its errors (issue 33, item 6): with handleRowErrors, a row whose
 * value its field cannot hold in the data file (a decimal wider than its precision, a timestamp
 * text that does not parse, an int out of range), in Parquet, ORC and Avro, or whose key its
 * equality delete file cannot hold, is rejected naming the column while the other rows are
 * committed and read back by Tideway's own source (hadoop catalog, local warehouse); a catalog
 * error still fails the write. Through `tideway run`, the refused row reaches a LocalFile
 * dead-letter folder (env.sink_error_handler ROUTE).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CatalogTable, newCatalogTable, type Row, type Sink, Types } from '@tideway/api';
import { hadoop, validated } from './iceberg-options.js';
import { readToEnd } from '@tideway/connector-contract';
import { icebergSinkFactory, icebergSourceFactory } from '@tideway/connector-iceberg';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { routed, routedRowsJob } from '../e2e/dead-letter-files.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-row-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const table = newCatalogTable({ database: 'db', table: 't' }, [
  { name: 'id', type: Types.BIGINT, nullable: false },
  { name: 'day', type: Types.DATE, nullable: false },
  { name: 'amount', type: Types.decimal(5, 2), nullable: true },
  { name: 'at', type: Types.TIMESTAMP, nullable: true },
  { name: 'n', type: Types.INT, nullable: true },
]);

const row = (kind: Row['kind'], fields: unknown[]): Row => ({ kind, tableId: table.tableId, fields });

let jobs = 0;

/** Writes `rows` in one checkpoint (a job of its own) and commits it; returns the rows the writer rejected, each with its error. */
async function write(t: CatalogTable, options: Record<string, unknown>, rows: Row[]): Promise<Array<[Row, Error]>> {
  const sink: Sink = icebergSinkFactory.create({
    jobId: `rows-${++jobs}`,
    jobMode: 'BATCH',
    parallelism: 1,
    options: validated(icebergSinkFactory, 'sink', options),
    inputTables: [t],
  });
  await sink.prepare?.();
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  const rejected: Array<[Row, Error]> = [];
  writer.handleRowErrors!((r, err) => rejected.push([r, err]));
  try {
    await writer.write(rows);
    const info = await writer.prepareCommit!(1);
    const committer = sink.createAggregatedCommitter!();
    if (info !== undefined) await committer.commit([committer.combine([info])]);
    await committer.close?.();
  } finally {
    await writer.close();
  }
  return rejected;
}

async function readIds(options: Record<string, unknown>): Promise<unknown[][]> {
  const rows = await readToEnd(icebergSourceFactory, options, { parallelism: 1 });
  return rows.map((r) => [r.fields[0], r.fields[2]]).sort((a, b) => Number(a[0]) - Number(b[0]));
}

describe('the Iceberg sink hands on the rows no data file can hold', () => {
  it.each(['parquet', 'orc', 'avro'])(
    '%s: a too-wide decimal, a bad timestamp, an int out of range are rejected naming the column; the rest is committed',
    async (format) => {
      const options = {
        catalog_name: 'rows',
        'iceberg.catalog.config': hadoop(join(dir, format)),
        namespace: 'db',
        table: 't',
        'iceberg.table.partition-keys': 'day',
        'iceberg.table.write-props': { 'write.format.default': format },
      };
      const rejected = await write(table, options, [
        row('+I', [1n, '2024-01-01', '12.50', '2024-01-01 10:00:00', 1]),
        row('+I', [2n, '2024-01-01', '123456.78', '2024-01-01 10:00:00', 2]),
        row('+I', [3n, '2024-01-02', '1.00', 'not a time', 3]),
        row('+I', [4n, '2024-01-02', '-999.99', null, 2 ** 31]),
        row('+I', [5n, 'soon', '1.00', null, 5]), // the partition's source value
        row('+I', [6n, '2024-01-02', '2.00', null, null]),
      ]);
      expect(rejected.map(([r]) => r.fields[0])).toEqual([2n, 3n, 4n, 5n]);
      const messages = rejected.map(([, e]) => e.message);
      expect(messages[0]).toMatch(
        new RegExp(`Iceberg table db.t: a row cannot be written to its ${format.toUpperCase()} data file: Column 'amount'`),
      );
      expect(messages[1]).toContain("Column 'at'");
      expect(messages[2]).toContain("Column 'n'");
      expect(messages[3]).toContain("Column 'day'");
      const source = { catalog_name: 'rows', 'iceberg.catalog.config': hadoop(join(dir, format)), namespace: 'db', table: 't' };
      expect(await readIds(source)).toEqual([
        [1n, '12.50'],
        [6n, '2.00'],
      ]);
    },
  );

  it('CDC: an update whose new values no file holds (its -U with it) and a delete whose key its ORC delete file cannot hold change nothing; the others apply', async () => {
    const options = {
      catalog_name: 'rows',
      'iceberg.catalog.config': hadoop(join(dir, 'cdc')),
      namespace: 'db',
      table: 't',
      'iceberg.table.primary-keys': 'id,day',
      'iceberg.table.write-props': { 'write.delete.format.default': 'orc' },
    };
    expect(
      await write(table, options, [row('+I', [1n, '2024-01-01', '1.00', null, 1]), row('+I', [2n, '2024-01-01', '2.00', null, 2])]),
    ).toEqual([]);
    const rejected = await write(table, options, [
      row('-U', [1n, '2024-01-01', '1.00', null, 1]),
      row('+U', [1n, '2024-01-01', '100000.00', null, 1]),
      row('-D', [2n, 'yesterday', '2.00', null, 2]),
      row('+I', [3n, '2024-01-01', '3.00', null, 3]),
    ]);
    expect(rejected.map(([r]) => [r.kind, r.fields[0]])).toEqual([
      ['+U', 1n],
      ['-D', 2n],
    ]);
    expect(rejected[0][1].message).toContain("PARQUET data file: Column 'amount'");
    expect(rejected[1][1].message).toContain("ORC equality delete file: Column 'day'");
    const source = { catalog_name: 'rows', 'iceberg.catalog.config': hadoop(join(dir, 'cdc')), namespace: 'db', table: 't' };
    // row 1's update was refused whole: its old version stays
    expect(await readIds(source)).toEqual([
      [1n, '1.00'],
      [2n, '2.00'],
      [3n, '3.00'],
    ]);
  });

  it('a catalog error is not a row error: a table gone from the catalog fails the write', async () => {
    const wh = join(dir, 'gone');
    const options = { catalog_name: 'rows', 'iceberg.catalog.config': hadoop(wh), namespace: 'db', table: 't' };
    await write(table, options, []);
    rmSync(join(wh, 'db', 't'), { recursive: true });
    await expect(
      write(table, { ...options, schema_save_mode: 'ERROR_WHEN_SCHEMA_NOT_EXIST' }, [row('+I', [1n, '2024-01-01', '1.00', null, 1])]),
    ).rejects.toThrow(/does not exist/);
  });

  it('through tideway run: the refused row is routed to the dead-letter sink naming the column, the others committed', async () => {
    const wh = join(dir, 'cli');
    const dead = join(dir, 'dead');
    const job = routedRowsJob(
      join(dir, 'cli.conf'),
      dead,
      'id = "bigint", amount = "decimal(5, 2)"',
      [
        [1, '12.50'],
        [2, '123456.78'],
        [3, '-999.99'],
      ],
      `  Iceberg {
    catalog_name = "rows"
    iceberg.catalog.config = { type = "hadoop", warehouse = "file://${wh}" }
    namespace = "db"
    table = "cli"
  }`,
    );
    const res = await runCli(['run', '-c', job], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const bad = routed(dead);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ error_stage: 'SINK', plugin_name: 'Iceberg', original_data: '["2","123456.78"]' });
    expect(String(bad[0].error_message)).toMatch(
      /Iceberg table db\.cli: a row cannot be written to its PARQUET data file: Column 'amount'/,
    );
    const rows = await readToEnd(
      icebergSourceFactory,
      { catalog_name: 'rows', 'iceberg.catalog.config': hadoop(wh), namespace: 'db', table: 'cli' },
      { parallelism: 1 },
    );
    expect(rows.map((r) => r.fields).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [1n, '12.50'],
      [3n, '-999.99'],
    ]);
  }, 200_000);
});
