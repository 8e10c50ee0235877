import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_READ_BATCH_ROWS } from '@tideway/connector-file-common';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import { createS3Client } from './index.js';
import { ListCollector, putText, readAll, readerContext, s3OptionsOf, sinkOf, splitsOf, tableOf } from './test-harness.js';

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

describe('S3File source', () => {
  it('resumes a restored split at its checkpointed line offset', async () => {
    const total = FILE_READ_BATCH_ROWS * 2 + 17;
    await putText(client, 'resume/data.csv', 'id,name\n' + Array.from({ length: total }, (_, i) => `${i},n${i}`).join('\r\n') + '\n');
    const options = {
      ...conn,
      path: '/resume',
      file_format_type: 'csv',
      skip_header_row_number: 1,
      schema: { fields: { id: 'int', name: 'string' } },
    };
    const { source, splits } = await splitsOf(options);
    expect(splits).toEqual([{ splitId: '/resume/data.csv', path: '/resume/data.csv', offset: 0, partitionKeys: [] }]);

    const first = source.createReader(readerContext());
    first.addSplits(splits);
    const seen = new ListCollector();
    await first.pollNext(seen);
    const state = first.snapshotState(1);
    expect(state).toEqual([{ ...splits[0], offset: FILE_READ_BATCH_ROWS }]);
    await first.close();

    let done = false;
    const second = source.createReader(readerContext(() => (done = true)));
    second.addSplits(state);
    second.handleNoMoreSplits();
    for (let i = 0; !done && i < 100; i++) await second.pollNext(seen);
    expect(done).toBe(true);
    expect(seen.rows.map((r) => r.fields[0])).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  it('lists more objects than one page (continuation tokens): one split per object', async () => {
    const count = 1_050; // s3rver, like S3, pages at 1000 keys
    for (let i = 0; i < count; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => putText(client, `many/f${String(i + j).padStart(5, '0')}.txt`, `${i + j}\n`)));
    }
    const { splits } = await splitsOf({ ...conn, path: '/many', file_format_type: 'text', schema: { fields: { v: 'int' } } });
    expect(splits).toHaveLength(count);
    const { rows } = await readAll({ ...conn, path: '/many', file_format_type: 'text', schema: { fields: { v: 'int' } } });
    expect(rows.map((r) => r.fields[0])).toEqual(Array.from({ length: count }, (_, i) => i));
  }, 60_000);

  it('reads a single object named by path, and skips folder markers, hidden and empty objects', async () => {
    await putText(client, 'single/a.txt', 'one\ntwo');
    await putText(client, 'single/.hidden', 'no');
    await putText(client, 'single/empty.txt', '');
    await putText(client, 'single/sub/', '');
    expect((await readAll({ ...conn, path: '/single/a.txt', file_format_type: 'text' })).rows.map((r) => r.fields)).toEqual([
      ['one'],
      ['two'],
    ]);
    expect((await readAll({ ...conn, path: 'single', file_format_type: 'text' })).rows.map((r) => r.fields)).toEqual([['one'], ['two']]);
  });

  it('reads nothing from a missing prefix', async () => {
    expect((await readAll({ ...conn, path: '/nothing/here', file_format_type: 'text' })).rows).toEqual([]);
  });

  it('writes ORC to S3 and reads it back by stripe through range GETs', async () => {
    const table = tableOf([
      ['id', 'bigint'],
      ['name', 'string'],
      ['at', 'timestamp'],
    ]);
    const sink = sinkOf({ ...conn, path: '/orc', tmp_path: '/tmp-orc', file_format_type: 'orc', compress_codec: 'zstd' }, table);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const at = (i: number) => `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(4, '0')}1`;
    await writer.write(
      Array.from({ length: 3000 }, (_, i) => ({
        kind: '+I' as const,
        tableId: 'db.t',
        fields: [BigInt(i), i % 9 === 0 ? null : `n${i}`, at(i)],
      })),
    );
    const info = await writer.prepareCommit!(1);
    await writer.close();
    const committer = sink.createAggregatedCommitter!();
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'tideway', Prefix: 'orc/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual([expect.stringMatching(/^orc\/.*\.zstd\.orc$/)]);
    const { rows, table: read } = await readAll({ ...conn, path: '/orc', file_format_type: 'orc', read_columns: ['at', 'name'] });
    expect(read.columns.map((c) => c.name)).toEqual(['at', 'name']);
    expect(rows.map((r) => r.fields)).toEqual(Array.from({ length: 3000 }, (_, i) => [at(i), i % 9 === 0 ? null : `n${i}`]));
  });

  it('writes Parquet to S3 and reads it back by row group through range GETs; reads a zip archive the zip tool made', async () => {
    const table = tableOf([
      ['id', 'bigint'],
      ['name', 'string'],
    ]);
    const sink = sinkOf({ ...conn, path: '/pq', tmp_path: '/tmp-pq', file_format_type: 'parquet', compress_codec: 'gzip' }, table);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write(Array.from({ length: 3000 }, (_, i) => ({ kind: '+I' as const, tableId: 'db.t', fields: [BigInt(i), `n${i}`] })));
    const info = await writer.prepareCommit!(1);
    await writer.close();
    const committer = sink.createAggregatedCommitter!();
    expect(await committer.commit([committer.combine([info])])).toEqual([]);
    const { rows, table: read } = await readAll({ ...conn, path: '/pq', file_format_type: 'parquet', read_columns: ['name'] });
    expect(read.columns.map((c) => c.name)).toEqual(['name']);
    expect(rows.map((r) => r.fields[0])).toEqual(Array.from({ length: 3000 }, (_, i) => `n${i}`));

    const work = mkdtempSync(join(tmpdir(), 'tideway-s3zip-'));
    try {
      writeFileSync(join(work, 'a.txt'), '1\n2\n');
      writeFileSync(join(work, 'b.txt'), '3\n');
      execFileSync('zip', ['-q', 'x.zip', 'a.txt', 'b.txt'], { cwd: work });
      await client.send(new PutObjectCommand({ Bucket: 'tideway', Key: 'zips/x.zip', Body: readFileSync(join(work, 'x.zip')) }));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const zipped = await readAll({
      ...conn,
      path: '/zips',
      file_format_type: 'text',
      archive_compress_codec: 'zip',
      schema: { fields: { v: 'int' } },
    });
    expect(zipped.rows.map((r) => r.fields[0])).toEqual([1, 2, 3]);
  });
});
