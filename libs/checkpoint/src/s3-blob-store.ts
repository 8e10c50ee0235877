import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from './blob-store.js';

/** How to reach the bucket. */
export interface S3Location {
  readonly bucket: string;
  /** Key prefix inside the bucket ('' or ending in '/'). */
  readonly prefix: string;
  /** e.g. `http://127.0.0.1:9000`; the AWS endpoint for `region` when absent. */
  readonly endpoint?: string;
  readonly region: string;
  /** Static credentials; the SDK's default provider chain when absent. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Path-style URLs (http://host/bucket/key): MinIO, s3rver and most S3 look-alikes need it. */
  readonly forcePathStyle: boolean;
}

/** Builds an S3 client; checksums only where the API requires them (see stack.md). */
export function createS3Client(loc: S3Location): S3Client {
  return new S3Client({
    region: loc.region,
    endpoint: loc.endpoint,
    forcePathStyle: loc.forcePathStyle,
    credentials: loc.credentials,
    // The default (WHEN_SUPPORTED) stores aws-chunked framing in objects on S3 look-alikes.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Objects in an S3 bucket under a prefix. */
export class S3BlobStore implements BlobStore {
  readonly description: string;
  private readonly client: S3Client;

  constructor(
    private readonly loc: S3Location,
    client?: S3Client,
  ) {
    this.client = client ?? createS3Client(loc);
    this.description = `s3://${loc.bucket}/${loc.prefix}`;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + key, Body: bytes }));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + key }));
      return out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.loc.bucket, Prefix: this.loc.prefix + prefix, ContinuationToken: token }),
      );
      for (const obj of out.Contents ?? []) if (obj.Key) keys.push(obj.Key.slice(this.loc.prefix.length));
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async delete(keys: readonly string[]): Promise<void> {
    // One DeleteObject per key, a few at a time: DeleteObjects needs a Content-MD5 that S3
    // look-alikes handle unevenly, and deleting is rare (pruning, job cancel).
    const queue = [...keys];
    const worker = async (): Promise<void> => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.loc.bucket, Key: this.loc.prefix + key }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
  }

  async deletePrefix(prefix: string): Promise<void> {
    await this.delete(await this.list(prefix));
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
