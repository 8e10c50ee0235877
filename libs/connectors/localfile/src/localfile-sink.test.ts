import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Row, SinkAggregatedCommitter } from '@tideway/api';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import { readAll, sinkOf, tableOf } from './test-harness.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-localfile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (): { out: string; tmp: string } => {
  n++;
  return { out: join(root, `out${n}`), tmp: join(root, `tmp${n}`) };
};

/** Every file under a folder, relative paths, sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name).slice(dir.length + 1))
    .sort();
}

const ALL_TYPES: [string, string][] = [
  ['id', 'int'],
  ['s', 'string'],
  ['b', 'boolean'],
  ['ti', 'tinyint'],
  ['si', 'smallint'],
  ['bi', 'bigint'],
  ['f', 'float'],
  ['d', 'double'],
  ['dec', 'decimal(10, 2)'],
  ['by', 'bytes'],
  ['dt', 'date'],
  ['tm', 'time'],
  ['ts', 'timestamp'],
  ['arr', 'array<int>'],
  ['m', 'map<string, int>'],
  ['r', 'row<a int, b string>'],
];
const FULL: unknown[] = [
  1,
  'héllo world',
  true,
  -8,
  300,
  9007199254740993n,
  1.5,
  1e7,
  '-12.50',
  Buffer.from('bytes!'),
  '2024-02-29',
  '10:11:12.123',
  '2024-01-02T03:04:05.123456',
  [1, 2, 3],
  new Map([
    ['k1', 1],
    ['k2', 2],
  ]),
  [7, 'seven'],
];
const NULLS: unknown[] = [2, ...new Array<null>(ALL_TYPES.length - 1).fill(null)];
const rowsOf = (tableId: string, ...fields: unknown[][]): Row[] => fields.map((f) => ({ kind: '+I', tableId, fields: f }));

async function writeAndCommit(options: Record<string, unknown>, rows: Row[], table = tableOf(ALL_TYPES)) {
  const sink = sinkOf(options, table);
  await sink.prepare?.();
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  await writer.write(rows);
  const info = (await writer.prepareCommit!(1)) as FileCommitInfo | undefined;
  await writer.close();
  const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
  if (info) expect(await committer.commit([committer.combine([info])])).toEqual([]);
  return { sink, info, committer };
}

describe('LocalFile sink: formats', () => {
  for (const format of ['text', 'csv', 'json']) {
    it(`writes every type as ${format} and the source reads it back`, async () => {
      const { out, tmp } = fresh();
      const common = { path: out, file_format_type: format, datetime_format: 'yyyy-MM-dd HH:mm:ss.SSSSSS', time_format: 'HH:mm:ss.SSS' };
      await writeAndCommit({ ...common, tmp_path: tmp }, rowsOf('db.t', FULL, NULLS));
      const files = filesUnder(out);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(new RegExp(`^T_job1_[0-9a-f]{10}_0_1_0\\.${format === 'text' ? 'txt' : format}$`));
      const schema = { fields: Object.fromEntries(ALL_TYPES) };
      const { rows } = await readAll({ ...common, schema });
      expect(rows.map((r) => r.fields)).toEqual([FULL, NULLS]);
    });
  }

  it('spells values as SeaTunnel does in text files', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit({ path: out, tmp_path: tmp, file_format_type: 'text', field_delimiter: '|' }, rowsOf('db.t', FULL, NULLS));
    const text = readFileSync(join(out, filesUnder(out)[0]), 'utf8');
    expect(text).toBe(
      '1|héllo world|true|-8|300|9007199254740993|1.5|1.0E7|-12.50|bytes!|2024-02-29|10:11:12|2024-01-02 03:04:05|1\u00022\u00023|k1\u00031\u0002k2\u00032|7\u0002seven' +
        '\n2' +
        '|'.repeat(ALL_TYPES.length - 1),
    );
  });

  it('spells values as SeaTunnel does in json files', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'json', sink_columns: ['ID', 'd', 'by', 'ts', 'm', 'r'] },
      rowsOf('db.t', FULL),
    );
    expect(readFileSync(join(out, filesUnder(out)[0]), 'utf8')).toBe(
      '{"id":1,"d":1.0E7,"by":"Ynl0ZXMh","ts":"2024-01-02T03:04:05.123456","m":{"k1":1,"k2":2},"r":{"a":7,"b":"seven"}}',
    );
  });

  it('writes a header, honours date formats and skip_header_row_number reads past it', async () => {
    const { out, tmp } = fresh();
    const table = tableOf([
      ['name', 'string'],
      ['day', 'date'],
    ]);
    await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'csv', enable_header_write: true, date_format: 'yyyy/MM/dd' },
      rowsOf('db.t', ['a', '2024-01-05'], ['b', '2024-12-31']),
      table,
    );
    expect(readFileSync(join(out, filesUnder(out)[0]), 'utf8')).toBe('name,day\na,2024/01/05\nb,2024/12/31');
    const { rows } = await readAll({
      path: out,
      file_format_type: 'csv',
      skip_header_row_number: 1,
      schema: { fields: { name: 'string', day: 'date' } },
    });
    expect(rows.map((r) => r.fields)).toEqual([
      ['a', '2024-01-05'],
      ['b', '2024-12-31'],
    ]);
  });
  it("writes ISO-8601 datetime_format (yyyy-MM-dd'T'HH:mm:ss.SSS) and the source reads it back under that option", async () => {
    const { out, tmp } = fresh();
    const table = tableOf([
      ['name', 'string'],
      ['ts', 'timestamp'],
    ]);
    const iso = { path: out, file_format_type: 'csv', datetime_format: "yyyy-MM-dd'T'HH:mm:ss.SSS" };
    await writeAndCommit(
      { ...iso, tmp_path: tmp },
      rowsOf('db.t', ['a', '2024-01-02T03:04:05.123456'], ['b', '2024-12-31T23:59:59']),
      table,
    );
    expect(readFileSync(join(out, filesUnder(out)[0]), 'utf8')).toBe('a,2024-01-02T03:04:05.123\nb,2024-12-31T23:59:59.000');
    const { rows } = await readAll({ ...iso, schema: { fields: { name: 'string', ts: 'timestamp' } } });
    expect(rows.map((r) => r.fields)).toEqual([
      ['a', '2024-01-02T03:04:05.123'],
      ['b', '2024-12-31T23:59:59.000'],
    ]);
  });
});

// Commit, replayed commits, abort, restores at every checkpoint, failures in every method and
// leftovers in tmp_path: the connector contract suite (test/contract/). What stays here is this
// sink's own: file names, partial commits, abandon, options.
describe('LocalFile sink: two-phase commit', () => {
  const table = tableOf([
    ['id', 'int'],
    ['name', 'string'],
  ]);
  const some = rowsOf('db.t', [1, 'a'], [2, 'b']);

  it('keeps files in tmp_path until commit, and a replayed commit changes nothing', async () => {
    const { out, tmp } = fresh();
    const sink = sinkOf({ path: out, tmp_path: tmp, file_format_type: 'text' }, table);
    const writer = sink.createWriter({ subtaskIndex: 3, parallelism: 4 });
    await writer.write(some);
    const info = (await writer.prepareCommit!(7)) as FileCommitInfo;
    expect(filesUnder(out)).toEqual([]);
    expect(info.moves).toHaveLength(1);
    expect(existsSync(info.moves[0][0])).toBe(true);
    expect(info.transactionDir).toMatch(new RegExp(`^${tmp}/seatunnel/job1/[0-9a-f]{10}/T_job1_[0-9a-f]{10}_3_1-[0-9a-f]{8}$`)); // the first transaction is 1; later ones follow the checkpoint ids; the folder ends in the writer's nonce
    const committer = sink.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
    const agg = committer.combine([info]);
    expect(await committer.commit([agg])).toEqual([]);
    const committed = filesUnder(out);
    expect(committed).toHaveLength(1);
    expect(readFileSync(join(out, committed[0]), 'utf8')).toBe('1\u0001a\n2\u0001b');
    expect(existsSync(info.transactionDir)).toBe(false);
    // replay after a restore: nothing moves, nothing fails, the content is unchanged
    expect(await committer.commit([agg])).toEqual([]);
    expect(filesUnder(out)).toEqual(committed);
    expect(readFileSync(join(out, committed[0]), 'utf8')).toBe('1\u0001a\n2\u0001b');
    await writer.close();
  });

  it("abandon drops only its own sink's prepared work: another pipeline of the job writes into the same job folder", async () => {
    const { out, tmp } = fresh();
    const other = tableOf(
      [
        ['id', 'int'],
        ['name', 'string'],
      ],
      'db.u',
    );
    const sinkA = sinkOf({ path: out, tmp_path: tmp, file_format_type: 'text' }, table);
    const sinkB = sinkOf({ path: out, tmp_path: tmp, file_format_type: 'text' }, other);
    const a = sinkA.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const b = sinkB.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await a.write(some);
    await b.write(rowsOf('db.u', [9, 'z']));
    const infoA = (await a.prepareCommit!(1)) as FileCommitInfo;
    const infoB = (await b.prepareCommit!(1)) as FileCommitInfo;
    await sinkA.abandon!();
    expect(existsSync(infoA.transactionDir)).toBe(false);
    expect(existsSync(infoB.moves[0][0])).toBe(true);
    const committer = sinkB.createAggregatedCommitter!() as SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;
    expect(await committer.commit([committer.combine([infoB])])).toEqual([]);
    await sinkB.abandon!();
    expect(existsSync(join(tmp, 'seatunnel', 'job1'))).toBe(false);
    expect(filesUnder(out).map((f) => readFileSync(join(out, f), 'utf8'))).toEqual(['9\u0001z']);
  });

  it('without transactions writes straight into path', async () => {
    const { out, tmp } = fresh();
    const { info } = await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'json', is_enable_transaction: false, file_name_expression: 'part_${uuid}' },
      some,
      table,
    );
    expect(info).toBeUndefined();
    const files = filesUnder(out);
    expect(files).toEqual([expect.stringMatching(/^part_[0-9a-f-]{36}_0\.json$/)]);
    expect(readFileSync(join(out, files[0]), 'utf8')).toBe('{"id":1,"name":"a"}\n{"id":2,"name":"b"}');
    expect(existsSync(tmp)).toBe(false);
  });

  it('writes GBK (encoding), which the WHATWG decoder and the source read back', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'json', encoding: 'GBK' },
      rowsOf('db.t', [1, '中文字符'], [2, 'ab']),
      table,
    );
    const [file] = filesUnder(out);
    const bytes = readFileSync(join(out, file));
    expect(bytes.includes(Buffer.from('中文', 'utf8'))).toBe(false);
    expect(new TextDecoder('gbk').decode(bytes)).toBe('{"id":1,"name":"中文字符"}\n{"id":2,"name":"ab"}');
    const { rows } = await readAll({
      path: out,
      file_format_type: 'json',
      encoding: 'GBK',
      schema: { fields: { id: 'int', name: 'string' } },
    });
    expect(rows.map((r) => r.fields)).toEqual([
      [1, '中文字符'],
      [2, 'ab'],
    ]);
  });

  it('compress_codec lzo writes lzop files named .lzo.txt that the source reads back', async () => {
    const { out, tmp } = fresh();
    const rows = Array.from({ length: 5000 }, (_, i) => [i, `name-${i % 97}`]);
    await writeAndCommit({ path: out, tmp_path: tmp, file_format_type: 'text', compress_codec: 'lzo' }, rowsOf('db.t', ...rows), table);
    const [file] = filesUnder(out);
    expect(file).toMatch(/\.lzo\.txt$/);
    const bytes = readFileSync(join(out, file));
    expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x4c, 0x5a, 0x4f]); // lzop magic
    const { rows: back } = await readAll({
      path: out,
      file_format_type: 'text',
      compress_codec: 'lzo',
      schema: { fields: { id: 'int', name: 'string' } },
    });
    expect(back.map((r) => r.fields)).toEqual(rows);
  });

  it('starts a new file every batch_size rows', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'csv', batch_size: 2 },
      rowsOf('db.t', [1, 'a'], [2, 'b'], [3, 'c'], [4, 'd'], [5, 'e']),
      table,
    );
    const files = filesUnder(out);
    expect(files.map((f) => f.replace(/^.*_(\d+)\.csv$/, '$1'))).toEqual(['0', '1', '2']);
    expect(files.map((f) => readFileSync(join(out, f), 'utf8'))).toEqual(['1,a\n2,b', '3,c\n4,d', '5,e']);
  });
});

describe('LocalFile sink: partitions, names and save modes', () => {
  const table = tableOf([
    ['name', 'string'],
    ['age', 'int'],
  ]);

  it('writes partition folders and the source reads them back as columns', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'text', have_partition: true, partition_by: ['age'] },
      rowsOf('db.t', ['a', 20], ['b', 30], ['c', 20]),
      table,
    );
    const files = filesUnder(out);
    expect(files.map((f) => f.split('/')[0])).toEqual(['age=20', 'age=30']);
    expect(readFileSync(join(out, files[0]), 'utf8')).toBe('a\nc');
    const { rows, table: read } = await readAll({ path: out, file_format_type: 'text', schema: { fields: { name: 'string' } } });
    expect(read.columns.map((c) => c.name)).toEqual(['name', 'age']);
    expect(rows.map((r) => r.fields)).toEqual([
      ['a', '20'],
      ['c', '20'],
      ['b', '30'],
    ]);
  });

  it('partitions by partition_by even without have_partition, as SeaTunnel does', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'text', partition_by: ['age'] },
      rowsOf('db.t', ['a', 20], ['b', 30]),
      table,
    );
    expect(filesUnder(out).map((f) => f.split('/')[0])).toEqual(['age=20', 'age=30']);
  });

  it('uses partition_dir_expression and keeps the field when is_partition_field_write_in_file', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit(
      {
        path: out,
        tmp_path: tmp,
        file_format_type: 'csv',
        have_partition: true,
        partition_by: ['age'],
        partition_dir_expression: '${k0}_is_${v0}',
        is_partition_field_write_in_file: true,
      },
      rowsOf('db.t', ['a', 20]),
      table,
    );
    const files = filesUnder(out);
    expect(files[0].split('/')[0]).toBe('age_is_20');
    expect(readFileSync(join(out, files[0]), 'utf8')).toBe('a,20');
  });

  it('replaces ${table_name} in path and ${now} with filename_time_format', async () => {
    const { out, tmp } = fresh();
    await writeAndCommit(
      {
        path: `${out}/\${database_name}/\${table_name}`,
        tmp_path: tmp,
        file_name_expression: '${transactionId}_${now}',
        filename_time_format: 'yyyy-MM-dd',
      },
      rowsOf('db.t', ['a', 1]),
      table,
    );
    const today = new Date();
    const stamp = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    expect(filesUnder(out)).toEqual([expect.stringMatching(new RegExp(`^db/t/T_job1_[0-9a-f]{10}_0_1_${stamp}_0\\.csv$`))]);
  });

  it('applies data_save_mode and schema_save_mode before writing', async () => {
    const { out, tmp } = fresh();
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'old.csv'), 'x');
    await expect(writeAndCommit({ path: out, tmp_path: tmp, data_save_mode: 'ERROR_WHEN_DATA_EXISTS' }, [], table)).rejects.toThrow(
      /already holds 1 file\(s\)/,
    );
    await writeAndCommit({ path: out, tmp_path: tmp, data_save_mode: 'DROP_DATA' }, rowsOf('db.t', ['a', 1]), table);
    expect(filesUnder(out)).toEqual([expect.stringMatching(/^T_.*\.csv$/)]);
    await expect(
      writeAndCommit({ path: join(out, 'missing'), tmp_path: tmp, schema_save_mode: 'ERROR_WHEN_SCHEMA_NOT_EXIST' }, [], table),
    ).rejects.toThrow(/does not exist/);
  });

  it('rejects options it cannot honour, naming them', async () => {
    const { localFileSinkFactory } = await import('./index.js');
    const { optionsOf } = await import('@tideway/api');
    const check = (o: Record<string, unknown>) =>
      localFileSinkFactory.spec.validate!(optionsOf({ path: '/x', ...o }, localFileSinkFactory.spec));
    expect(check({ file_format_type: 'orc', compress_codec: 'lzo' })).toMatch(
      /orc writer implements none, zlib, snappy, lz4 and zstd, got 'lzo'/,
    );
    expect(check({ file_format_type: 'orc', compress_codec: 'zlib' })).toBeUndefined();
    expect(check({ file_format_type: 'parquet', compress_codec: 'lzo' })).toMatch(
      /compress_codec.*zstd and lz4, got 'lzo' \(LZO pages .*DuckDB/,
    );
    expect(check({ file_format_type: 'parquet', compress_codec: 'zstd' })).toBeUndefined();
    expect(check({ compress_codec: 'lzo' })).toBeUndefined();
    expect(check({ compress_codec: 'gzip' })).toMatch(/compress_codec.*lzo or none/);
    expect(check({ file_name_expression: 'x_${now}' })).toMatch(/must contain \$\{transactionId\}/);
    expect(check({ file_name_expression: 'x_${now}', is_enable_transaction: false })).toBeUndefined();
    expect(check({ have_partition: true })).toMatch(/partition_by/);
    expect(check({ encoding: 'gbk' })).toBeUndefined();
    expect(check({ encoding: 'no-such-charset' })).toMatch(/'encoding': 'no-such-charset' is not a charset/);
    expect(() => sinkOf({ path: '/x', sink_columns: ['nope'] }, table)).toThrow(
      /Column 'nope' of option 'sink_columns' is not in table db.t/,
    );
  });
});
