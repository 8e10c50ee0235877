import type { S3Client } from '@aws-sdk/client-s3';
import { CopyObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row, SinkAggregatedCommitter } from '@tideway/api';
import type { FileAggregatedCommitInfo, FileCommitInfo } from '@tideway/connector-file-common';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import { createS3Client, keyOf } from './index.js';
import { S3Upload } from './s3-upload.js';
import { getText, keysUnder, readAll, s3OptionsOf, sinkOf, tableOf } from './test-harness.js';

let s3: TestS3Server;
let client: S3Client;
let conn: Record<string, unknown>;
beforeAll(async () => {
  s3 = await startS3rver(['tideway']);
  client = createS3Client({
    bucket: 'tideway',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    partSize: 5 << 20,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  conn = s3OptionsOf(s3);
}, 30_000);
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

let n = 0;
const fresh = (): { out: string; tmp: string } => {
  n++;
  return { out: `/out${n}`, tmp: `/tmp${n}` };
};

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
const rowsOf = (...fields: unknown[][]): Row[] => fields.map((f) => ({ kind: '+I', tableId: 'db.t', fields: f }));
const table = tableOf([
  ['id', 'int'],
  ['name', 'string'],
]);
const some = rowsOf([1, 'a'], [2, 'b']);
type Committer = SinkAggregatedCommitter<FileCommitInfo, FileAggregatedCommitInfo>;

async function writeAndCommit(options: Record<string, unknown>, rows: Row[], t = tableOf(ALL_TYPES)) {
  const sink = sinkOf({ ...conn, ...options }, t);
  await sink.prepare?.();
  const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
  await writer.write(rows);
  const info = (await writer.prepareCommit!(1)) as FileCommitInfo | undefined;
  await writer.close();
  const committer = sink.createAggregatedCommitter!() as Committer;
  if (info) expect(await committer.commit([committer.combine([info])])).toEqual([]);
  return { sink, info, committer };
}

describe('S3File sink and source: formats', () => {
  for (const format of ['text', 'csv', 'json']) {
    it(`writes every type as ${format} and the source reads it back`, async () => {
      const { out, tmp } = fresh();
      const common = {
        ...conn,
        path: out,
        file_format_type: format,
        datetime_format: 'yyyy-MM-dd HH:mm:ss.SSSSSS',
        time_format: 'HH:mm:ss.SSS',
      };
      await writeAndCommit({ ...common, tmp_path: tmp }, rowsOf(FULL, NULLS));
      const keys = (await keysUnder(client, `${keyOf(out)}/`)).filter((k) => !k.endsWith('/'));
      expect(keys).toEqual([
        expect.stringMatching(new RegExp(`^out${n}/T_job1_[0-9a-f]{10}_0_1_0\\.${format === 'text' ? 'txt' : format}$`)),
      ]);
      expect(await keysUnder(client, `${keyOf(tmp)}/`)).toEqual([]);
      const { rows } = await readAll({ ...common, schema: { fields: Object.fromEntries(ALL_TYPES) } });
      expect(rows.map((r) => r.fields)).toEqual([FULL, NULLS]);
    });
  }

  it('writes partition folders; the source reads them back as columns', async () => {
    const { out, tmp } = fresh();
    const t = tableOf([
      ['name', 'string'],
      ['age', 'int'],
    ]);
    await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'text', have_partition: true, partition_by: ['age'] },
      rowsOf(['a', 20], ['b', 30], ['c', 20]),
      t,
    );
    const keys = (await keysUnder(client, `${keyOf(out)}/`)).filter((k) => !k.endsWith('/'));
    expect(keys.map((k) => k.split('/')[1])).toEqual(['age=20', 'age=30']);
    const { rows, table: read } = await readAll({ ...conn, path: out, file_format_type: 'text', schema: { fields: { name: 'string' } } });
    expect(read.columns.map((c) => c.name)).toEqual(['name', 'age']);
    expect(rows.map((r) => r.fields)).toEqual([
      ['a', '20'],
      ['c', '20'],
      ['b', '30'],
    ]);
  });

  it('uploads a file larger than fs.s3a.multipart.size in parts', async () => {
    const counting = createS3Client({
      bucket: 'tideway',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      partSize: 5 << 20,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    const commands: string[] = [];
    counting.middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    const line = `${'x'.repeat(1023)}\n`;
    const upload = new S3Upload(counting, 'tideway', 'big/file.txt', 5 << 20, (err) => err as Error);
    for (let i = 0; i < 12 * 1024; i++) await upload.write(Buffer.from(line));
    await upload.close();
    counting.destroy();
    expect(commands).toEqual([
      'CreateMultipartUploadCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'CompleteMultipartUploadCommand',
    ]);
    const text = await getText(client, 'big/file.txt');
    expect(text).toBe(line.repeat(12 * 1024));
  }, 60_000);
});

// Commit, replayed commits, abort, restores at every checkpoint, failures in every method and
// leftovers in tmp_path: the connector contract suite (test/contract/). What stays here is this
// sink's own: file names, partial commits, abandon, options.
describe('S3File sink: two-phase commit (copy + delete)', () => {
  it('a commit that died between copy and delete is completed by the replay', async () => {
    const { out, tmp } = fresh();
    const sink = sinkOf({ ...conn, path: out, tmp_path: tmp, file_format_type: 'text' }, table);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write(some);
    const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
    const [temp, final] = info.moves[0].map(keyOf);
    await client.send(new CopyObjectCommand({ Bucket: 'tideway', Key: final, CopySource: `tideway/${temp}` })); // the copy happened, then the committer died
    const committer = sink.createAggregatedCommitter!() as Committer;
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    expect(await keysUnder(client, `${keyOf(out)}/`)).toEqual([final]);
    expect(await getText(client, final)).toBe('1\u0001a\n2\u0001b');
    expect(await keysUnder(client, `${keyOf(tmp)}/`)).toEqual([]);
    await writer.close();
  });

  it('without transactions writes straight into path', async () => {
    const { out, tmp } = fresh();
    const { info } = await writeAndCommit(
      { path: out, tmp_path: tmp, file_format_type: 'json', is_enable_transaction: false, file_name_expression: 'part_${uuid}' },
      some,
      table,
    );
    expect(info).toBeUndefined();
    const keys = await keysUnder(client, `${keyOf(out)}/`);
    expect(keys.filter((k) => !k.endsWith('/'))).toEqual([expect.stringMatching(/\/part_[0-9a-f-]{36}_0\.json$/)]);
    expect(await getText(client, keys.find((k) => !k.endsWith('/'))!)).toBe('{"id":1,"name":"a"}\n{"id":2,"name":"b"}');
  });

  it('applies schema_save_mode and data_save_mode to the key prefix', async () => {
    const { out, tmp } = fresh();
    await expect(writeAndCommit({ path: out, tmp_path: tmp, schema_save_mode: 'ERROR_WHEN_SCHEMA_NOT_EXIST' }, [], table)).rejects.toThrow(
      /does not exist/,
    );
    await writeAndCommit({ path: out, tmp_path: tmp }, some, table);
    expect(await keysUnder(client, `${keyOf(out)}/`)).toHaveLength(2); // the folder marker and the file
    await expect(writeAndCommit({ path: out, tmp_path: tmp, data_save_mode: 'ERROR_WHEN_DATA_EXISTS' }, [], table)).rejects.toThrow(
      /already holds 1 file\(s\)/,
    );
    await writeAndCommit({ path: out, tmp_path: tmp, data_save_mode: 'DROP_DATA' }, rowsOf([3, 'c']), table);
    const keys = (await keysUnder(client, `${keyOf(out)}/`)).filter((k) => !k.endsWith('/'));
    expect(keys).toHaveLength(1);
    expect(await getText(client, keys[0])).toBe('3,c');
    await writeAndCommit({ path: out, tmp_path: tmp, schema_save_mode: 'RECREATE_SCHEMA' }, [], table);
    expect(await keysUnder(client, `${keyOf(out)}/`)).toEqual([`${keyOf(out)}/`]);
  });
});

describe('S3File sink: row errors (issue 33, item 6)', () => {
  const wide = tableOf([
    ['id', 'int'],
    ['amount', 'decimal(5, 2)'],
  ]);

  it('a decimal wider than its Parquet column is rejected naming the column, the other rows uploaded', async () => {
    const { out, tmp } = fresh();
    const sink = sinkOf({ ...conn, path: out, tmp_path: tmp, file_format_type: 'parquet' }, wide);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const rejected: Row[] = [];
    writer.handleRowErrors!((r, err) => {
      rejected.push(r);
      expect(err.message).toMatch(/Column 'amount': The decimal 123456\.78 has more digits than DECIMAL\(5, 2\) holds/);
    });
    await writer.write(rowsOf([1, '1.50'], [2, '123456.78'], [3, '2.25']));
    const info = (await writer.prepareCommit!(1)) as FileCommitInfo;
    await writer.close();
    const committer = sink.createAggregatedCommitter!() as Committer;
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    expect(rejected.map((r) => r.fields[0])).toEqual([2]);
    const { rows } = await readAll({ ...conn, path: out, file_format_type: 'parquet' });
    expect(rows.map((r) => r.fields)).toEqual([
      [1, '1.50'],
      [3, '2.25'],
    ]);
  });

  it('a bucket that does not exist is no row error: the upload fails, nothing is rejected', async () => {
    const { out, tmp } = fresh();
    const sink = sinkOf({ ...conn, bucket: 's3a://no-such-bucket', path: out, tmp_path: tmp, file_format_type: 'csv' }, wide);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const rejected: Row[] = [];
    writer.handleRowErrors!((r) => rejected.push(r));
    await expect(
      (async () => {
        await writer.write(rowsOf([1, '1.50']));
        await writer.prepareCommit!(1);
      })(),
    ).rejects.toThrow(/no-such-bucket|NoSuchBucket|bucket/i);
    expect(rejected).toEqual([]);
    // the abort cannot list the missing bucket either: it fails as well, and that is no row's error
    await expect(Promise.resolve(writer.abortPrepare?.())).rejects.toThrow(/no-such-bucket/);
  });
});
