import { describe, expect, it } from 'vitest';
import { resolveCheckpointStorage } from './storage-config.js';

describe('resolveCheckpointStorage (seatunnel.yaml checkpoint.storage)', () => {
  it('defaults to localfile in /tmp/seatunnel/checkpoint/ keeping 20', () => {
    expect(resolveCheckpointStorage(undefined)).toEqual({ kind: 'localfile', directory: '/tmp/seatunnel/checkpoint/', maxRetained: 20 });
  });

  it('reads hdfs with file:/// as a local directory', () => {
    expect(
      resolveCheckpointStorage({
        type: 'hdfs',
        'max-retained': 3,
        'plugin-config': { namespace: '/tmp/seatunnel/checkpoint_snapshot/', 'storage.type': 'hdfs', 'fs.defaultFS': 'file:///' },
      }),
    ).toEqual({ kind: 'localfile', directory: '/tmp/seatunnel/checkpoint_snapshot/', maxRetained: 3 });
  });

  it("reads SeaTunnel's MinIO example as S3", () => {
    const r = resolveCheckpointStorage({
      type: 'hdfs',
      'max-retained': '3',
      'plugin-config': {
        'storage.type': 's3',
        'fs.s3a.access.key': 'ak',
        'fs.s3a.secret.key': 'sk',
        'fs.s3a.endpoint': 'http://127.0.0.1:9000',
        's3.bucket': 's3a://test',
        'fs.s3a.aws.credentials.provider': 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider',
        'fs.s3a.path.style.access': 'true',
      },
    });
    expect(r).toEqual({
      kind: 's3',
      maxRetained: 3,
      bucket: 'test',
      prefix: 'seatunnel/checkpoint/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      credentials: { accessKeyId: 'ak', secretAccessKey: 'sk' },
      forcePathStyle: true,
    });
  });

  it('takes type s3 directly, a namespace as key prefix, and the default credential chain', () => {
    const r = resolveCheckpointStorage({
      type: 's3',
      'plugin-config': {
        's3.bucket': 'b/base',
        namespace: '/ckpt',
        'fs.s3a.endpoint': 'minio:9000',
        'fs.s3a.connection.ssl.enabled': 'false',
        'fs.s3a.aws.credentials.provider': 'org.apache.hadoop.fs.s3a.InstanceProfileCredentialsProvider',
      },
    });
    expect(r).toMatchObject({
      kind: 's3',
      bucket: 'b',
      prefix: 'base/ckpt/',
      endpoint: 'http://minio:9000',
      credentials: undefined,
      forcePathStyle: false,
    });
  });

  it('rejects what it cannot honour, naming the key', () => {
    expect(() => resolveCheckpointStorage({ type: 'hdfs', 'plugin-config': { 'storage.type': 'oss' } })).toThrow(
      /plugin-config.storage.type: .*'oss' is not supported/,
    );
    expect(() => resolveCheckpointStorage({ type: 'hdfs', 'plugin-config': { 'fs.defaultFS': 'hdfs://nn:9000' } })).toThrow(
      /no HDFS client/,
    );
    expect(() => resolveCheckpointStorage({ type: 's3', 'plugin-config': {} })).toThrow(/s3.bucket: is required/);
    expect(() => resolveCheckpointStorage({ type: 'redis' })).toThrow(/type: expected localfile, hdfs or s3/);
    expect(() => resolveCheckpointStorage({ 'max-retained': 0 })).toThrow(/max-retained: expected an integer of at least 1/);
    expect(() => resolveCheckpointStorage({ type: 's3', 'plugin-config': { 's3.bucket': 'b', 'fs.s3a.access.key': 'x' } })).toThrow(
      /must be set together/,
    );
    expect(() => resolveCheckpointStorage({ 'plugin-config': { 'fs.s3a.acess.key': 'x' } })).toThrow(
      /plugin-config.fs.s3a.acess.key: Tideway does not know this key/,
    );
  });
});
