/**
 * The sink contract (libs/connector-contract) on the S3File sink (json), against a private
 * s3rver: each scenario writes under its own prefix, `${table_name}` a folder per table; read
 * back with the AWS SDK's ListObjectsV2 and GetObject.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import { createS3Client, s3FileSinkFactory, s3FileSourceFactory } from '@tideway/connector-s3file';
import { sinkContract, sourceContract, type ExpectedRow, type ReadRow, type SinkSubject } from '@tideway/connector-contract';
import { FILE_NOT_APPLICABLE, S3_SOURCE_NOT_APPLICABLE } from './contract-table.js';

let s3: TestS3Server;
let client: S3Client;

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
}, 30_000);
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: 'tideway', Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) keys.push(o.Key!);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

async function jsonRows(key: string): Promise<ReadRow[]> {
  const out = await client.send(new GetObjectCommand({ Bucket: 'tideway', Key: key }));
  const text = await out.Body!.transformToString();
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ReadRow);
}

const connection = () => ({
  bucket: 's3a://tideway',
  'fs.s3a.endpoint': s3.endpoint,
  'fs.s3a.aws.credentials.provider': 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider',
  access_key: s3.accessKeyId,
  secret_key: s3.secretAccessKey,
  hadoop_s3_properties: { 'fs.s3a.path.style.access': 'true' },
});

const s3file: SinkSubject = {
  name: 'S3File (json)',
  factory: s3FileSinkFactory,
  delivery: 'exactly-once',
  // Every scenario makes a few dozen S3 requests per checkpoint: the first call of each method is enough.
  failureCalls: 'first-call',
  target: (id) => ({
    options: {
      ...connection(),
      path: `/${id}/\${table_name}`,
      tmp_path: `/${id}-tmp`,
      file_format_type: 'json',
    },
    readBack: async (table) => (await Promise.all((await keysUnder(`${id}/${table.path.table}/`)).map(jsonRows))).flat(),
    drop: async () => {
      const left = await keysUnder(`${id}-tmp/`);
      if (left.length > 0) throw new Error(`S3File left ${left.length} object(s) under tmp_path: ${left[0]}`);
    },
  }),
  notApplicable: FILE_NOT_APPLICABLE,
  badOptions: [
    { options: { file_format_type: 'avro' }, option: 'file_format_type' },
    { options: { compress_codec: 'no-such-codec' }, option: 'compress_codec' },
  ],
};

sinkContract(s3file);

// The source: json objects under a prefix, one object a split.
sourceContract({
  name: 'S3File (json)',
  factory: s3FileSourceFactory,
  target: async (id) => {
    const expected: ExpectedRow[] = [];
    for (let f = 0; f < 4; f++) {
      const rows = Array.from({ length: 10 }, (_, i) => f * 10 + i + 1).map((i) => ['items', i, `items-${i}`] as const);
      expected.push(...rows);
      const body = rows.map(([, i, n]) => JSON.stringify({ id: i, name: n })).join('\n');
      await client.send(new PutObjectCommand({ Bucket: 'tideway', Key: `${id}/part-${f}.json`, Body: Buffer.from(body) }));
    }
    return {
      options: {
        ...connection(),
        path: `/${id}`,
        file_format_type: 'json',
        schema: { table: 'contract.items', fields: { id: 'int', name: 'string' } },
      },
      expected,
    };
  },
  notApplicable: S3_SOURCE_NOT_APPLICABLE,
  badOptions: [{ options: { file_format_type: 'avro' }, option: 'file_format_type' }],
});
