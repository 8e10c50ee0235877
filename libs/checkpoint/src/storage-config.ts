import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import type { CheckpointStorage } from './checkpoint-storage.js';
import type { S3Location } from './s3-blob-store.js';
import { DEFAULT_MAX_RETAINED, LocalFileCheckpointStorage, S3CheckpointStorage } from './storages.js';

/**
 * The `seatunnel.engine.checkpoint.storage` block of seatunnel.yaml, as SeaTunnel documents it
 * (docs/en/seatunnel-engine/checkpoint-storage.md):
 *
 * ```yaml
 * storage:
 *   type: hdfs            # or localfile (the default); Tideway also takes `s3`
 *   max-retained: 3
 *   plugin-config:
 *     namespace: /tmp/seatunnel/checkpoint/
 *     storage.type: s3    # with type hdfs: s3, or hdfs with fs.defaultFS file:///
 *     s3.bucket: s3a://my-bucket
 *     fs.s3a.endpoint: http://127.0.0.1:9000
 *     fs.s3a.access.key: ...
 *     fs.s3a.secret.key: ...
 *     fs.s3a.path.style.access: true
 * ```
 */
export interface CheckpointStorageBlock {
  readonly type?: string;
  readonly 'max-retained'?: number | string;
  readonly 'plugin-config'?: Readonly<Record<string, unknown>>;
}

/** The storage a block resolves to, before anything is opened. */
export type ResolvedCheckpointStorage =
  | { readonly kind: 'localfile'; readonly directory: string; readonly maxRetained: number }
  | ({ readonly kind: 's3'; readonly maxRetained: number } & S3Location);

const LOCALFILE_DEFAULT_NAMESPACE = '/tmp/seatunnel/checkpoint/';
const HDFS_DEFAULT_NAMESPACE = '/seatunnel/checkpoint/';

/** plugin-config keys Tideway reads. `disable.cache` is accepted: Tideway never caches file systems. */
const KNOWN_KEYS = new Set([
  'namespace',
  'storage.type',
  'fs.defaultFS',
  's3.bucket',
  'fs.s3a.endpoint',
  'fs.s3a.endpoint.region',
  'fs.s3a.access.key',
  'fs.s3a.secret.key',
  'fs.s3a.path.style.access',
  'fs.s3a.connection.ssl.enabled',
  'fs.s3a.aws.credentials.provider',
  'disable.cache',
]);

/** Credential providers whose meaning Tideway reproduces. */
const STATIC_PROVIDER = 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider';
const CHAIN_PROVIDERS = new Set([
  'org.apache.hadoop.fs.s3a.InstanceProfileCredentialsProvider',
  'com.amazonaws.auth.InstanceProfileCredentialsProvider',
  'com.amazonaws.auth.DefaultAWSCredentialsProviderChain',
  'com.amazonaws.auth.EnvironmentVariableCredentialsProvider',
]);

function fail(key: string, message: string): never {
  throw new ConfigError(ErrorCode.ENGINE_CONFIG, `seatunnel.yaml checkpoint.storage ${key}: ${message}`);
}

function text(cfg: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const v = cfg[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'object') fail(`plugin-config.${key}`, 'expected a single value, not a list or map.');
  return textOf(v);
}

function bool(cfg: Readonly<Record<string, unknown>>, key: string, dflt: boolean): boolean {
  const v = text(cfg, key);
  if (v === undefined) return dflt;
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  return fail(`plugin-config.${key}`, `expected true or false, got '${v}'.`);
}

/** A namespace as a key prefix inside a bucket: no leading '/', ends in '/' unless empty. */
function keyPrefix(...parts: string[]): string {
  const joined = parts
    .join('/')
    .split('/')
    .filter((s) => s !== '')
    .join('/');
  return joined === '' ? '' : `${joined}/`;
}

/** Checks a storage block and applies SeaTunnel's defaults; opens nothing. */
export function resolveCheckpointStorage(block: CheckpointStorageBlock | undefined): ResolvedCheckpointStorage {
  const type = (block?.type ?? 'localfile').toLowerCase();
  const retainedRaw = block?.['max-retained'] ?? DEFAULT_MAX_RETAINED;
  const maxRetained = Number(retainedRaw);
  if (!Number.isInteger(maxRetained) || maxRetained < 1) fail('max-retained', `expected an integer of at least 1, got '${retainedRaw}'.`);
  const cfg = block?.['plugin-config'] ?? {};
  for (const key of Object.keys(cfg)) {
    if (!KNOWN_KEYS.has(key)) fail(`plugin-config.${key}`, `Tideway does not know this key; it reads ${[...KNOWN_KEYS].join(', ')}.`);
  }
  if (type === 'localfile') {
    return { kind: 'localfile', directory: text(cfg, 'namespace') ?? LOCALFILE_DEFAULT_NAMESPACE, maxRetained };
  }
  if (type === 's3') return resolveS3(cfg, maxRetained);
  if (type !== 'hdfs') fail('type', `expected localfile, hdfs or s3, got '${block?.type}'.`);
  const storageType = (text(cfg, 'storage.type') ?? 'hdfs').toLowerCase();
  if (storageType === 's3') return resolveS3(cfg, maxRetained);
  if (storageType !== 'hdfs')
    fail('plugin-config.storage.type', `Tideway stores checkpoints locally or in S3; '${storageType}' is not supported.`);
  const defaultFs = text(cfg, 'fs.defaultFS') ?? 'file:///';
  if (!defaultFs.startsWith('file:')) {
    fail('plugin-config.fs.defaultFS', `Tideway has no HDFS client; use file:/// or storage.type s3 instead of '${defaultFs}'.`);
  }
  return { kind: 'localfile', directory: text(cfg, 'namespace') ?? HDFS_DEFAULT_NAMESPACE, maxRetained };
}

function resolveS3(cfg: Readonly<Record<string, unknown>>, maxRetained: number): ResolvedCheckpointStorage {
  const bucketText = text(cfg, 's3.bucket') ?? fail('plugin-config.s3.bucket', 'is required for S3 checkpoint storage.');
  const withoutScheme = bucketText.replace(/^s3[an]?:\/\//i, '');
  const [bucket, ...bucketPath] = withoutScheme.split('/');
  if (!bucket) fail('plugin-config.s3.bucket', `'${bucketText}' names no bucket.`);
  const accessKey = text(cfg, 'fs.s3a.access.key');
  const secretKey = text(cfg, 'fs.s3a.secret.key');
  if ((accessKey === undefined) !== (secretKey === undefined)) {
    fail('plugin-config.fs.s3a.access.key', 'fs.s3a.access.key and fs.s3a.secret.key must be set together.');
  }
  const provider = text(cfg, 'fs.s3a.aws.credentials.provider');
  if (provider === STATIC_PROVIDER && accessKey === undefined) {
    fail('plugin-config.fs.s3a.aws.credentials.provider', `${STATIC_PROVIDER} needs fs.s3a.access.key and fs.s3a.secret.key.`);
  }
  if (provider !== undefined && provider !== STATIC_PROVIDER && !CHAIN_PROVIDERS.has(provider)) {
    fail(
      'plugin-config.fs.s3a.aws.credentials.provider',
      `'${provider}' is not supported; use ${STATIC_PROVIDER} or an instance-profile/default chain provider.`,
    );
  }
  let endpoint = text(cfg, 'fs.s3a.endpoint');
  if (endpoint !== undefined && !/^https?:\/\//i.test(endpoint)) {
    endpoint = `${bool(cfg, 'fs.s3a.connection.ssl.enabled', true) ? 'https' : 'http'}://${endpoint}`;
  }
  const useStatic = accessKey !== undefined && (provider === undefined || provider === STATIC_PROVIDER);
  return {
    kind: 's3',
    maxRetained,
    bucket,
    prefix: keyPrefix(...bucketPath, text(cfg, 'namespace') ?? HDFS_DEFAULT_NAMESPACE),
    endpoint,
    region: text(cfg, 'fs.s3a.endpoint.region') ?? 'us-east-1',
    credentials: useStatic ? { accessKeyId: accessKey, secretAccessKey: secretKey! } : undefined,
    forcePathStyle: bool(cfg, 'fs.s3a.path.style.access', false),
  };
}

/** Opens the checkpoint storage a seatunnel.yaml `checkpoint.storage` block describes. */
export function checkpointStorageFromConfig(block: CheckpointStorageBlock | undefined): CheckpointStorage {
  const resolved = resolveCheckpointStorage(block);
  if (resolved.kind === 'localfile') return new LocalFileCheckpointStorage(resolved);
  return new S3CheckpointStorage(resolved);
}
