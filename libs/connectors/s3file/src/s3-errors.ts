/**
 * Turns AWS SDK errors into one sentence a user can act on. The result is a plain Error on
 * purpose: the file committer treats a TidewayError as lost data (fatal) and any other error as
 * a transient I/O failure it may retry.
 */
export class S3AccessError extends Error {
  override readonly name = 'S3AccessError';
  constructor(
    message: string,
    /** The S3 error code (NoSuchBucket, InvalidAccessKeyId...) or the socket error code. */
    readonly code: string | undefined,
    options?: { cause?: unknown },
    /** The option the user should look at. */
    readonly option = 'fs.s3a.endpoint',
  ) {
    super(message, options);
  }
}

const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'InvalidToken', 'ExpiredToken']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'TimeoutError',
]);

/** The socket error code hidden in an SDK error (possibly inside an AggregateError). */
function networkCode(err: unknown): string | undefined {
  const e = err as { code?: string; name?: string; errors?: unknown[]; cause?: unknown };
  if (e.code && NETWORK_CODES.has(e.code)) return e.code;
  if (e.name && NETWORK_CODES.has(e.name)) return e.name;
  for (const inner of e.errors ?? []) {
    const c = networkCode(inner);
    if (c) return c;
  }
  return e.cause ? networkCode(e.cause) : undefined;
}

/** One sentence for a failed S3 request; `what` says what was attempted, e.g. `list s3://b/p`. */
export function describeS3Error(err: unknown, what: string, endpoint: string, bucket: string): S3AccessError {
  if (err instanceof S3AccessError) return err;
  const net = networkCode(err);
  if (net) {
    return new S3AccessError(`cannot ${what}: the S3 endpoint ${endpoint} is unreachable (${net}); check fs.s3a.endpoint.`, net, {
      cause: err,
    });
  }
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const code = e.name;
  if (code === 'CredentialsProviderError') {
    return new S3AccessError(
      `cannot ${what}: the AWS default credential chain found no credentials; set fs.s3a.aws.credentials.provider = org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider with access_key and secret_key, or provide AWS credentials to the process.`,
      code,
      { cause: err },
      'fs.s3a.aws.credentials.provider',
    );
  }
  if (code && CREDENTIAL_CODES.has(code)) {
    return new S3AccessError(
      `cannot ${what}: ${endpoint} rejected the credentials (${code}); check access_key, secret_key and fs.s3a.aws.credentials.provider.`,
      code,
      { cause: err },
      'access_key',
    );
  }
  if (code === 'NoSuchBucket') {
    return new S3AccessError(
      `cannot ${what}: bucket '${bucket}' does not exist at ${endpoint}; check the bucket option.`,
      code,
      { cause: err },
      'bucket',
    );
  }
  const status = e.$metadata?.httpStatusCode;
  const detail = e.message && e.message !== 'UnknownError' ? e.message : `HTTP ${status ?? '?'}`;
  return new S3AccessError(`cannot ${what} at ${endpoint}: ${code ?? 'error'}: ${detail}`, code, { cause: err });
}

/** Whether an SDK error says the object or key does not exist. */
export function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name !== 'NoSuchBucket' && (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404);
}
