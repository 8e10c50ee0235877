import { ListObjectsV2Command, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { optionsOf, parseDataType, type CatalogTable, type Collector, type Row, type SourceReaderContext } from '@tideway/api';
import type { FileSplit } from '@tideway/connector-file-common';
import { s3FileSinkFactory, s3FileSourceFactory } from './index.js';

/** Where a test's s3rver listens (startS3rver from @tideway/checkpoint/testing). */
export interface TestS3 {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** The S3File options that reach a test's s3rver bucket. */
export function s3OptionsOf(s3: TestS3, bucket = 'tideway'): Record<string, unknown> {
  return {
    bucket: `s3a://${bucket}`,
    'fs.s3a.endpoint': s3.endpoint,
    'fs.s3a.aws.credentials.provider': 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider',
    access_key: s3.accessKeyId,
    secret_key: s3.secretAccessKey,
    hadoop_s3_properties: { 'fs.s3a.path.style.access': 'true' },
  };
}

/** A table for tests, from `name type` pairs. */
export function tableOf(columns: [string, string][], name = 'db.t'): CatalogTable {
  const [database, table] = name.split('.');
  return {
    tableId: name,
    path: { database, table },
    columns: columns.map(([n, t]) => ({ name: n, type: parseDataType(t), nullable: true })),
  };
}

export function sinkOf(options: Record<string, unknown>, table: CatalogTable, jobId = 'job1') {
  return s3FileSinkFactory.create({
    jobId,
    jobMode: 'BATCH',
    parallelism: 1,
    options: optionsOf(options, s3FileSinkFactory.spec),
    inputTables: [table],
  });
}

export function sourceOf(options: Record<string, unknown>) {
  return s3FileSourceFactory.create({
    jobId: 'job1',
    jobMode: 'BATCH',
    parallelism: 1,
    options: optionsOf(options, s3FileSourceFactory.spec),
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

export const readerContext = (onDone: () => void = () => {}): SourceReaderContext => ({
  subtaskIndex: 0,
  parallelism: 1,
  boundedness: 'BOUNDED',
  signalNoMoreElement: onDone,
  sendSplitRequest: () => {},
});

/** Prepares a source and collects the splits its enumerator hands out. */
export async function splitsOf(options: Record<string, unknown>) {
  const source = sourceOf(options);
  await source.prepare!();
  const splits: FileSplit[] = [];
  const enumerator = source.createEnumerator({
    parallelism: 1,
    registeredReaders: () => [0],
    assignSplits: (_s, sp) => splits.push(...(sp as FileSplit[])),
    signalNoMoreSplits: () => {},
  });
  await enumerator.open();
  await enumerator.run();
  return { source, splits };
}

/** Runs a source's enumerator and one reader to the end; returns the rows. */
export async function readAll(options: Record<string, unknown>): Promise<{ rows: Row[]; table: CatalogTable }> {
  const { source, splits } = await splitsOf(options);
  let done = false;
  const reader = source.createReader(readerContext(() => (done = true)));
  reader.addSplits(splits);
  reader.handleNoMoreSplits();
  const out = new ListCollector();
  for (let i = 0; !done && i < 100_000; i++) await reader.pollNext(out);
  await reader.close();
  return { rows: out.rows, table: source.catalogTables()[0] };
}

/** Every key under a prefix, sorted. */
export async function keysUnder(client: S3Client, prefix: string, bucket = 'tideway'): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) keys.push(o.Key!);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

export async function getText(client: S3Client, key: string, bucket = 'tideway'): Promise<string> {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return out.Body!.transformToString();
}

export async function putText(client: S3Client, key: string, text: string, bucket = 'tideway'): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.from(text) }));
}
