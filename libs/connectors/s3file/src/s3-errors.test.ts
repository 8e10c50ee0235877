import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionsOf } from '@tideway/api';
import { parseJobConfig, validatePluginOptions } from '@tideway/config';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import { s3FileSinkFactory, s3FileSourceFactory, resolveS3Connection } from './index.js';
import { s3OptionsOf, sinkOf, sourceOf, tableOf } from './test-harness.js';

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3rver(['tideway']);
}, 30_000);
afterAll(async () => s3?.stop());

const table = tableOf([['id', 'int']]);
const source = (o: Record<string, unknown>) => sourceOf({ ...s3OptionsOf(s3), path: '/x', file_format_type: 'text', ...o });

describe('S3File: reaching the bucket', () => {
  it('a refused endpoint fails in one sentence naming fs.s3a.endpoint', async () => {
    const err = await source({
      'fs.s3a.endpoint': 'http://127.0.0.1:1',
      hadoop_s3_properties: { 'fs.s3a.path.style.access': 'true', 'fs.s3a.attempts.maximum': '0' },
    }).prepare!().catch((e: Error) => e);
    expect((err as Error).message).toContain(
      "S3File: cannot open bucket 'tideway': the S3 endpoint http://127.0.0.1:1 is unreachable (ECONNREFUSED); check fs.s3a.endpoint.",
    );
  });

  it('wrong credentials fail in one sentence naming the keys', async () => {
    const sink = sinkOf({ ...s3OptionsOf(s3), path: '/x', access_key: 'WRONG' }, table);
    await expect(sink.prepare!()).rejects.toThrow(
      new RegExp(
        `S3File: cannot open bucket 'tideway': ${s3.endpoint.replace(/\./g, '\\.')} rejected the credentials \\(\\w+\\); check access_key, secret_key and fs.s3a.aws.credentials.provider\\.$`,
      ),
    );
  });

  it('a missing bucket fails in one sentence naming it', async () => {
    await expect(source({ bucket: 's3a://nope' }).prepare!()).rejects.toThrow(
      "S3File: cannot open bucket 'nope': bucket 'nope' does not exist at",
    );
  });
});

describe('S3File options', () => {
  const resolve = (o: Record<string, unknown>) =>
    resolveS3Connection(optionsOf({ path: '/p', file_format_type: 'csv', ...o }, s3FileSourceFactory.spec));

  it('maps SeaTunnel options and implemented hadoop_s3_properties to the client', () => {
    expect(
      resolve({
        bucket: 's3a://b',
        'fs.s3a.endpoint': 's3.eu-west-1.amazonaws.com',
        'fs.s3a.aws.credentials.provider': 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider',
        access_key: 'AK',
        secret_key: 'SK',
        hadoop_s3_properties: {
          'fs.s3a.path.style.access': 'true',
          'fs.s3a.attempts.maximum': '2',
          'fs.s3a.connection.timeout': '30s',
          'fs.s3a.multipart.size': '16M',
          'fs.s3a.buffer.dir': '/tmp/x',
        },
      }),
    ).toEqual({
      bucket: 'b',
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: undefined },
      forcePathStyle: true,
      maxAttempts: 3,
      connectionTimeoutMs: undefined,
      requestTimeoutMs: 30_000,
      partSize: 16 << 20,
    });
  });

  it('uses the default credential chain with the instance-profile provider (the default)', () => {
    const c = resolve({
      bucket: 's3n://b',
      'fs.s3a.endpoint': 'minio:9000',
      hadoop_s3_properties: { 'fs.s3a.connection.ssl.enabled': 'false', 'fs.s3a.endpoint.region': 'eu-central-1' },
    });
    expect(c).toMatchObject({
      bucket: 'b',
      endpoint: 'http://minio:9000',
      region: 'eu-central-1',
      credentials: undefined,
      forcePathStyle: false,
    });
  });

  const opts = (o: Record<string, unknown>) => () => {
    const message = s3FileSinkFactory.spec.validate!(
      optionsOf({ path: '/p', bucket: 's3a://b', 'fs.s3a.endpoint': 'http://h:1', ...o }, s3FileSinkFactory.spec),
    );
    if (message) throw new Error(message);
  };
  it('rejects what it cannot honour, in one sentence naming the option', () => {
    expect(opts({ hadoop_s3_properties: { 'fs.s3a.committer.name': 'magic' } })).toThrow(
      /Option 'hadoop_s3_properties.fs.s3a.committer.name' is not supported by Tideway; it implements fs.s3a.path.style.access/,
    );
    expect(opts({ 'fs.s3a.aws.credentials.provider': 'com.example.Custom' })).toThrow(
      /'com.example.Custom' is not supported; use org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider/,
    );
    expect(opts({ 'fs.s3a.aws.credentials.provider': 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider' })).toThrow(
      /needs access_key and secret_key/,
    );
    expect(opts({ access_key: 'a', secret_key: 'b' })).toThrow(
      /only used with fs.s3a.aws.credentials.provider = org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider/,
    );
    expect(opts({ bucket: 's3a://b/folder' })).toThrow(/Option 'bucket' must be a bucket such as s3a:\/\/my-bucket/);
    expect(opts({ hadoop_s3_properties: { 'fs.s3a.multipart.size': '1M' } })).toThrow(/must be at least 5M/);
    expect(opts({ hadoop_s3_properties: { 'fs.s3a.path.style.access': 'yes' } })).toThrow(/must be true or false, got 'yes'/);
    expect(opts({ file_format_type: 'orc', compress_codec: 'gzip' })).toThrow(
      /orc writer implements none, zlib, snappy, lz4 and zstd, got 'gzip'/,
    );
    expect(opts({ hadoop_s3_properties: { 'fs.s3a.fast.upload.buffer': 'disk' } })).not.toThrow();
  });

  it('reads a job config block with dotted keys, quoted or not', () => {
    const job = parseJobConfig(
      `source { Fake {} }\nsink {\n  S3File {\n    bucket = "s3a://b"\n    path = "/p"\n    fs.s3a.endpoint = "http://h:9000"\n    fs.s3a.aws.credentials.provider = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"\n    access_key = "a"\n    secret_key = "s"\n    hadoop_s3_properties {\n      fs.s3a.path.style.access = true\n      "fs.s3a.endpoint.region" = "eu-west-3"\n    }\n  }\n}`,
      { file: 'job.conf', env: {} },
    );
    const options = validatePluginOptions(s3FileSinkFactory.spec, job.sinks[0]);
    expect(resolveS3Connection(options)).toMatchObject({
      endpoint: 'http://h:9000',
      forcePathStyle: true,
      region: 'eu-west-3',
      credentials: { accessKeyId: 'a', secretAccessKey: 's' },
    });
    const bad = parseJobConfig(
      `source { Fake {} }\nsink {\n  S3File {\n    bucket = "s3a://b"\n    path = "/p"\n    fs.s3a.endpoint = "h"\n    hadoop_s3_properties { fs.s3a.committer.name = magic }\n  }\n}`,
      { file: 'job.conf', env: {} },
    );
    expect(() => validatePluginOptions(s3FileSinkFactory.spec, bad.sinks[0])).toThrow(
      /hadoop_s3_properties.fs.s3a.committer.name' is not supported by Tideway/,
    );
  });
});
