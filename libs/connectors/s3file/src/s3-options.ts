import type { OptionDef, PluginOptions } from '@tideway/api';

/** Hadoop's static-key provider: access_key / secret_key. */
export const SIMPLE_PROVIDER = 'org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider';
/** SeaTunnel's default provider; Tideway maps it (and the other chain providers) to the AWS SDK's default chain. */
export const INSTANCE_PROFILE_PROVIDER = 'com.amazonaws.auth.InstanceProfileCredentialsProvider';
const CHAIN_PROVIDERS = new Set([
  INSTANCE_PROFILE_PROVIDER,
  'org.apache.hadoop.fs.s3a.InstanceProfileCredentialsProvider',
  'com.amazonaws.auth.DefaultAWSCredentialsProviderChain',
  'com.amazonaws.auth.EnvironmentVariableCredentialsProvider',
  'software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider',
]);

/** Options S3File adds to the shared file options (SeaTunnel's S3FileBaseOptions). */
export const S3_OPTIONS: readonly OptionDef[] = [
  {
    name: 'bucket',
    type: 'string',
    required: true,
    description: 'The bucket, e.g. s3a://my-bucket (s3n:// and s3:// are accepted too); path and tmp_path are keys inside it.',
  },
  {
    name: 'fs.s3a.endpoint',
    type: 'string',
    required: true,
    description:
      'The S3 endpoint, e.g. s3.us-west-2.amazonaws.com or http://127.0.0.1:9000 (https unless fs.s3a.connection.ssl.enabled is false or the URL says http).',
  },
  {
    name: 'fs.s3a.aws.credentials.provider',
    type: 'string',
    default: INSTANCE_PROFILE_PROVIDER,
    description: `${SIMPLE_PROVIDER} uses access_key/secret_key; ${INSTANCE_PROFILE_PROVIDER} (the default) and the other AWS chain providers use the AWS SDK's default credential chain (environment, profile, container, instance metadata).`,
  },
  { name: 'access_key', type: 'string', description: `Access key id, used with ${SIMPLE_PROVIDER}.` },
  { name: 'secret_key', type: 'string', fallbackNames: ['access_secret'], description: `Secret access key, used with ${SIMPLE_PROVIDER}.` },
  {
    name: 'hadoop_s3_properties',
    type: 'map',
    description:
      'Hadoop S3A properties. Implemented: fs.s3a.path.style.access, fs.s3a.endpoint.region, fs.s3a.connection.ssl.enabled, fs.s3a.access.key, fs.s3a.secret.key, fs.s3a.session.token, fs.s3a.attempts.maximum, fs.s3a.connection.timeout, fs.s3a.connection.establish.timeout, fs.s3a.multipart.size. Accepted without effect (Tideway buffers upload parts in memory): fs.s3a.fast.upload, fs.s3a.fast.upload.buffer, fs.s3a.buffer.dir. Any other key is refused.',
  },
];

/** Upload-buffering keys from SeaTunnel's own examples; Tideway's uploads always buffer one part in memory. */
const BUFFERING_KEYS = new Set(['fs.s3a.fast.upload', 'fs.s3a.fast.upload.buffer', 'fs.s3a.buffer.dir']);
const IMPLEMENTED_KEYS = new Set([
  'fs.s3a.path.style.access',
  'fs.s3a.endpoint.region',
  'fs.s3a.connection.ssl.enabled',
  'fs.s3a.access.key',
  'fs.s3a.secret.key',
  'fs.s3a.session.token',
  'fs.s3a.attempts.maximum',
  'fs.s3a.connection.timeout',
  'fs.s3a.connection.establish.timeout',
  'fs.s3a.multipart.size',
]);

const MIN_PART_SIZE = 5 * 1024 * 1024;
/** Hadoop's default fs.s3a.multipart.size (64M). */
const DEFAULT_PART_SIZE = 64 * 1024 * 1024;

/** Everything needed to reach the bucket, resolved from the options. */
export interface S3Connection {
  readonly bucket: string;
  /** With scheme, e.g. `http://127.0.0.1:9000`. */
  readonly endpoint: string;
  readonly region: string;
  /** Static credentials; the SDK's default chain when absent. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
  readonly forcePathStyle: boolean;
  /** SDK attempts per request (first try included). */
  readonly maxAttempts?: number;
  readonly connectionTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /** Bytes per multipart upload part; smaller files go up in one PutObject. */
  readonly partSize: number;
}

/** An option problem, as one sentence naming the option. */
export class S3OptionError extends Error {
  override readonly name = 'S3OptionError';
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}

function fail(option: string, message: string): never {
  throw new S3OptionError(option, `Option '${option}' ${message}`);
}

function boolOf(key: string, v: string): boolean {
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  return fail(`hadoop_s3_properties.${key}`, `must be true or false, got '${v}'.`);
}

/** Hadoop durations: plain numbers are milliseconds; ms, s, m, h suffixes are accepted. */
function millisOf(key: string, v: string): number {
  const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/i.exec(v);
  if (!m) fail(`hadoop_s3_properties.${key}`, `must be a duration such as 5000, 5s or 2m, got '${v}'.`);
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'ms').toLowerCase() as 'ms'];
  return Number(m[1]) * scale;
}

/** Hadoop sizes: plain bytes or K, M, G suffixes (binary). */
function bytesOf(key: string, v: string): number {
  const m = /^\s*(\d+)\s*([kmg])?b?\s*$/i.exec(v);
  if (!m) fail(`hadoop_s3_properties.${key}`, `must be a size such as 67108864, 64M or 1G, got '${v}'.`);
  const scale = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as 'k'] ?? 1;
  return Number(m[1]) * scale;
}

/** The region an AWS endpoint names (s3.eu-west-1.amazonaws.com, s3-eu-west-1..., s3.cn-north-1.amazonaws.com.cn). */
function regionOfEndpoint(host: string): string | undefined {
  return /(?:^|\.)s3[.-]([a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com(?:\.cn)?$/i.exec(host)?.[1];
}

/** Checks the S3 options and resolves them; throws S3OptionError with one sentence. */
export function resolveS3Connection(o: PluginOptions): S3Connection {
  const bucketText = String(o.get('bucket'));
  const m = /^(?:s3[an]?:\/\/)?([^/]+)\/?$/i.exec(bucketText);
  if (!m) fail('bucket', `must be a bucket such as s3a://my-bucket (folders go in path), got '${bucketText}'.`);
  const bucket = m[1];

  const props: Record<string, string> = {};
  const raw = o.get<Record<string, unknown> | undefined>('hadoop_s3_properties') ?? {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'fs.s3a.endpoint' || key === 'fs.s3a.aws.credentials.provider') {
      fail(`hadoop_s3_properties.${key}`, `is a top-level S3File option; set ${key} outside hadoop_s3_properties.`);
    }
    if (!IMPLEMENTED_KEYS.has(key) && !BUFFERING_KEYS.has(key)) {
      fail(`hadoop_s3_properties.${key}`, `is not supported by Tideway; it implements ${[...IMPLEMENTED_KEYS].join(', ')}.`);
    }
    props[key] = String(value);
  }

  const ssl =
    props['fs.s3a.connection.ssl.enabled'] === undefined
      ? true
      : boolOf('fs.s3a.connection.ssl.enabled', props['fs.s3a.connection.ssl.enabled']);
  const endpointText = String(o.get('fs.s3a.endpoint')).trim();
  const endpoint = /^https?:\/\//i.test(endpointText) ? endpointText : `${ssl ? 'https' : 'http'}://${endpointText}`;
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    return fail('fs.s3a.endpoint', `must be a host name or URL, got '${endpointText}'.`);
  }
  if (host === '') fail('fs.s3a.endpoint', `must be a host name or URL, got '${endpointText}'.`);

  const provider = String(o.get('fs.s3a.aws.credentials.provider'));
  let credentials: S3Connection['credentials'];
  if (provider === SIMPLE_PROVIDER) {
    const accessKeyId = o.has('access_key') ? String(o.get('access_key')) : props['fs.s3a.access.key'];
    const secretAccessKey = o.has('secret_key') ? String(o.get('secret_key')) : props['fs.s3a.secret.key'];
    if (!accessKeyId || !secretAccessKey) fail('fs.s3a.aws.credentials.provider', `${SIMPLE_PROVIDER} needs access_key and secret_key.`);
    credentials = { accessKeyId, secretAccessKey, sessionToken: props['fs.s3a.session.token'] };
  } else if (CHAIN_PROVIDERS.has(provider)) {
    if (o.has('access_key') || o.has('secret_key')) {
      fail(
        'access_key',
        `and secret_key are only used with fs.s3a.aws.credentials.provider = ${SIMPLE_PROVIDER}, but the provider is ${provider}.`,
      );
    }
  } else {
    fail('fs.s3a.aws.credentials.provider', `'${provider}' is not supported; use ${SIMPLE_PROVIDER} or ${INSTANCE_PROFILE_PROVIDER}.`);
  }

  let maxAttempts: number | undefined;
  if (props['fs.s3a.attempts.maximum'] !== undefined) {
    const n = Number(props['fs.s3a.attempts.maximum']);
    if (!Number.isInteger(n) || n < 0)
      fail('hadoop_s3_properties.fs.s3a.attempts.maximum', `must be a whole number of retries, got '${props['fs.s3a.attempts.maximum']}'.`);
    maxAttempts = n + 1; // Hadoop counts retries, the SDK counts attempts
  }
  const partSize =
    props['fs.s3a.multipart.size'] === undefined ? DEFAULT_PART_SIZE : bytesOf('fs.s3a.multipart.size', props['fs.s3a.multipart.size']);
  if (partSize < MIN_PART_SIZE)
    fail(
      'hadoop_s3_properties.fs.s3a.multipart.size',
      `must be at least 5M (S3's smallest multipart part), got '${props['fs.s3a.multipart.size']}'.`,
    );

  return {
    bucket,
    endpoint,
    region: props['fs.s3a.endpoint.region'] ?? regionOfEndpoint(host) ?? 'us-east-1',
    credentials,
    forcePathStyle:
      props['fs.s3a.path.style.access'] === undefined ? false : boolOf('fs.s3a.path.style.access', props['fs.s3a.path.style.access']),
    maxAttempts,
    connectionTimeoutMs:
      props['fs.s3a.connection.establish.timeout'] === undefined
        ? undefined
        : millisOf('fs.s3a.connection.establish.timeout', props['fs.s3a.connection.establish.timeout']),
    requestTimeoutMs:
      props['fs.s3a.connection.timeout'] === undefined
        ? undefined
        : millisOf('fs.s3a.connection.timeout', props['fs.s3a.connection.timeout']),
    partSize,
  };
}

/** The spec's cross-option rule: the S3 options resolve. */
export function validateS3Options(o: PluginOptions): string | undefined {
  try {
    resolveS3Connection(o);
    return undefined;
  } catch (err) {
    if (err instanceof S3OptionError) return err.message;
    throw err;
  }
}
