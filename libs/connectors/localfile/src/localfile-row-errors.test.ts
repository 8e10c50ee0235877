/**
 * The file sinks classify their errors (issue 33, item 6; LocalFile and S3File share the writer,
 * file-common): with handleRowErrors, a row no file of its format can hold (a decimal wider than
 * its column, a null map key in Parquet, a null partition field) is rejected with its column
 * named, the rows around it are written whole, and the file reads back (DuckDB for Parquet, the
 * LocalFile source for the others). Without it, the same row fails the write, as any error does.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Row, SinkAggregatedCommitter, SinkWriter } from '@tideway/api';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import { afterAll, describe, expect, it } from 'vitest';
import { duck, readAll, sinkOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-file-row-errors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COLUMNS: [string, string][] = [
  ['id', 'int'],
  ['region', 'string'],
  ['amount', 'decimal(5, 2)'],
];
const row = (fields: unknown[]): Row => ({ kind: '+I', tableId: 'db.t', fields });

/** Writes `rows` through one writer with a reject handler, commits, and returns what it rejected. */
async function writeRejecting(dir: string, rows: Row[], options: Record<string, unknown>, columns = COLUMNS) {
  const sink = sinkOf({ path: dir, tmp_path: join(root, 'tmp'), ...options }, tableOf(columns));
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 }) as SinkWriter<FileCommitInfo>;
  const rejected: [Row, Error][] = [];
  writer.handleRowErrors!((r, err) => rejected.push([r, err]));
  await writer.write(rows);
  const info = await writer.prepareCommit!(1);
  await writer.close();
  const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileAggregatedCommitInfo, FileAggregatedCommitInfo>;
  if (info) expect(await committer.commit([committer.combine([info as unknown as FileAggregatedCommitInfo])])).toEqual([]);
  return rejected;
}

const GOOD1 = [1, 'eu', '12.50'];
const WIDE = [2, 'eu', '123456.78'];
const GOOD2 = [3, 'us', '-999.99'];

describe('LocalFile sink: rows no file can hold', () => {
  for (const format of ['parquet', 'orc']) {
    it(`${format}: a decimal wider than its column is rejected naming the column, the others written`, async () => {
      const dir = join(root, `wide-${format}`);
      const rejected = await writeRejecting(dir, [row(GOOD1), row(WIDE), row(GOOD2)], {
        file_format_type: format,
        is_enable_transaction: true,
      });
      expect(rejected.map(([r]) => r.fields)).toEqual([WIDE]);
      expect(rejected[0][1].message).toBe(
        `LocalFile: a row of db.t cannot be written to a ${format} file: Column 'amount': The decimal 123456.78 has more digits than DECIMAL(5, 2) holds.`,
      );
      const back = await readAll({ path: dir, file_format_type: format });
      expect(back.rows.map((r) => r.fields)).toEqual([GOOD1, GOOD2]);
      if (format === 'parquet') {
        const [file] = readdirSync(dir);
        expect(await duck(`SELECT id, CAST(amount AS VARCHAR) AS a FROM '${join(dir, file)}' ORDER BY id`)).toEqual([
          { id: 1, a: '12.50' },
          { id: 3, a: '-999.99' },
        ]);
      }
    });
  }

  it('parquet: a map with a null key is rejected, and the nested column of the rows around it stays whole', async () => {
    const dir = join(root, 'map-key');
    const columns: [string, string][] = [
      ['id', 'int'],
      ['m', 'map<string, int>'],
    ];
    const good1 = [1, new Map([['a', 1]])];
    const bad = [
      2,
      new Map<string | null, number>([
        ['b', 2],
        [null, 3],
      ]),
    ];
    const good2 = [3, new Map([['c', 4]])];
    const rejected = await writeRejecting(dir, [row(good1), row(bad), row(good2)], { file_format_type: 'parquet' }, columns);
    expect(rejected.map(([r]) => r.fields[0])).toEqual([2]);
    expect(rejected[0][1].message).toMatch(/Column 'm': A map key in column m is null/);
    const [file] = readdirSync(dir);
    expect(await duck(`SELECT id, CAST(m AS VARCHAR) AS m FROM '${join(dir, file)}' ORDER BY id`)).toEqual([
      { id: 1, m: '{a=1}' },
      { id: 3, m: '{c=4}' },
    ]);
  });

  for (const format of ['csv', 'json', 'text', 'excel', 'xml']) {
    it(`${format}: a row whose partition field is null is rejected, the others written in their partitions`, async () => {
      const dir = join(root, `partition-${format}`);
      const options: Record<string, unknown> = { file_format_type: format, partition_by: ['region'] };
      if (format === 'xml') options.xml_use_attr_format = false;
      const rejected = await writeRejecting(dir, [row(GOOD1), row([4, null, '1.00']), row(GOOD2)], options);
      expect(rejected.map(([r]) => r.fields[0])).toEqual([4]);
      expect(rejected[0][1].message).toMatch(/partition field 'region' is null in a row of db\.t/);
      expect(readdirSync(dir).sort()).toEqual(['region=eu', 'region=us']);
    });
  }

  it('without a handler the same row fails the write, as before', async () => {
    const sink = sinkOf({ path: join(root, 'no-handler'), file_format_type: 'parquet' }, tableOf(COLUMNS));
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await expect(writer.write([row(GOOD1), row(WIDE)])).rejects.toThrow(/123456\.78 has more digits than DECIMAL\(5, 2\)/);
    await writer.abortPrepare?.();
  });

  it('a file that cannot be created is no row error: the write fails, nothing is rejected', async () => {
    // the temp folder lies under a file: creating a file there fails with ENOTDIR, even as root
    const blocked = join(root, 'blocked');
    await writeRejecting(blocked, [row(GOOD1)], { file_format_type: 'csv' });
    const [file] = readdirSync(blocked);
    const below = join(blocked, file, 'below');
    const sink = sinkOf({ path: below, tmp_path: below, file_format_type: 'csv' }, tableOf(COLUMNS));
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const rejected: Row[] = [];
    writer.handleRowErrors!((r) => rejected.push(r));
    await expect(
      (async () => {
        await writer.write([row(GOOD1)]);
        await writer.prepareCommit!(1);
      })(),
    ).rejects.toThrow(/ENOTDIR|not a directory/);
    expect(rejected).toEqual([]);
    await writer.abortPrepare?.();
  });
});
