import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { FileEntry, FileOutput, FileSystemAdapter } from '@tideway/connector-file-common';
import { describeS3Error, isNotFound } from './s3-errors.js';
import type { S3Connection } from './s3-options.js';
import { copyLargeObject, copySourceOf, MAX_SINGLE_COPY_BYTES, S3Upload } from './s3-upload.js';

/** Deletes in flight at once: DeleteObjects needs Content-MD5, which S3 look-alikes handle unevenly. */
const DELETE_CONCURRENCY = 8;

/** Builds the SDK client; checksums only where the API requires them (stack.md: look-alikes store aws-chunked framing otherwise). */
export function createS3Client(conn: S3Connection): S3Client {
  return new S3Client({
    region: conn.region,
    endpoint: conn.endpoint,
    forcePathStyle: conn.forcePathStyle,
    credentials: conn.credentials,
    maxAttempts: conn.maxAttempts,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler:
      conn.connectionTimeoutMs !== undefined || conn.requestTimeoutMs !== undefined
        ? { connectionTimeout: conn.connectionTimeoutMs, requestTimeout: conn.requestTimeoutMs }
        : undefined,
  });
}

/** A path as an object key: no leading '/', single separators, no trailing '/'. */
export function keyOf(path: string): string {
  return path
    .split('/')
    .filter((s) => s !== '')
    .join('/');
}

/**
 * One S3 bucket as a FileSystemAdapter. Folders are key prefixes; `mkdirs` leaves an empty
 * `folder/` marker object as Hadoop's S3A does, so an empty target folder still exists.
 * S3 has no rename: `rename` copies, then deletes the source. The file committer relies on
 * that order: a commit interrupted between the two finds both objects and copies again
 * (same bytes), never deleting a final object.
 */
export class S3FileSystem implements FileSystemAdapter {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(private readonly conn: S3Connection) {
    this.client = createS3Client(conn);
    this.bucket = conn.bucket;
    this.description = `bucket s3a://${conn.bucket} at ${conn.endpoint}`;
  }

  private failure(err: unknown, what: string): Error {
    return describeS3Error(err, what, this.conn.endpoint, this.bucket);
  }

  private where(key: string): string {
    return `s3a://${this.bucket}/${key}`;
  }

  /** Checks that the endpoint answers, the credentials are accepted and the bucket exists. */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      // HeadBucket answers without a body: its 404/403 carry no S3 error code.
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) throw this.failure(Object.assign(new Error(''), { name: 'NoSuchBucket' }), `open bucket '${this.bucket}'`);
      if (status === 403) throw this.failure(Object.assign(new Error(''), { name: 'AccessDenied' }), `open bucket '${this.bucket}'`);
      throw this.failure(err, `open bucket '${this.bucket}'`);
    }
  }

  async create(path: string): Promise<FileOutput> {
    return new S3Upload(this.client, this.bucket, keyOf(path), this.conn.partSize, (err, what) => this.failure(err, what));
  }

  async rename(from: string, to: string): Promise<void> {
    const src = keyOf(from);
    const dst = keyOf(to);
    const what = `copy ${this.where(src)} to ${this.where(dst)}`;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: src }));
      if ((head.ContentLength ?? 0) > MAX_SINGLE_COPY_BYTES) {
        await copyLargeObject(this.client, this.bucket, src, dst, head.ContentLength ?? 0, this.conn.partSize);
      } else {
        await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: dst, CopySource: copySourceOf(this.bucket, src) }));
      }
    } catch (err) {
      throw this.failure(err, what);
    }
    await this.deleteKeys([src]);
  }

  async exists(path: string): Promise<boolean> {
    const key = keyOf(path);
    if (key === '') return true;
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      if (!isNotFound(err)) throw this.failure(err, `look up ${this.where(key)}`);
    }
    return (await this.listKeys(`${key}/`, 1)).length > 0;
  }

  async delete(path: string): Promise<void> {
    const key = keyOf(path);
    const under = await this.listKeys(key === '' ? '' : `${key}/`);
    await this.deleteKeys(key === '' ? under.map((o) => o.key) : [key, ...under.map((o) => o.key)]);
  }

  async children(path: string): Promise<string[]> {
    const key = keyOf(path);
    const prefix = key === '' ? '' : `${key}/`;
    const names = new Set<string>();
    for (const o of await this.listKeys(prefix)) {
      const name = o.key.slice(prefix.length).split('/')[0];
      if (name !== '') names.add(name);
    }
    return [...names].sort();
  }

  async deleteIfEmpty(path: string): Promise<void> {
    const key = keyOf(path);
    // Only a folder marker can make an "empty folder" here; delete it when nothing else is under it.
    if (key !== '' && (await this.listKeys(`${key}/`, 2)).every((o) => o.key === `${key}/`)) await this.deleteKeys([`${key}/`]);
  }

  async mkdirs(path: string): Promise<void> {
    const key = keyOf(path);
    if (key === '' || (await this.exists(path))) return;
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: `${key}/`, Body: new Uint8Array(0) }));
    } catch (err) {
      throw this.failure(err, `create folder ${this.where(key)}/`);
    }
  }

  async listFiles(path: string): Promise<FileEntry[]> {
    const key = keyOf(path);
    const lead = path.startsWith('/') ? '/' : '';
    if (key !== '') {
      try {
        const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
        return [{ path: lead + key, size: head.ContentLength ?? 0, modifiedMs: head.LastModified?.getTime() }];
      } catch (err) {
        if (!isNotFound(err)) throw this.failure(err, `look up ${this.where(key)}`);
      }
    }
    const objects = await this.listKeys(key === '' ? '' : `${key}/`);
    return objects
      .filter((o) => !o.key.endsWith('/')) // folder markers
      .map((o) => ({ path: lead + o.key, size: o.size, modifiedMs: o.modifiedMs }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async readRange(path: string, start: number, end: number): Promise<Uint8Array> {
    const key = keyOf(path);
    if (end <= start) return new Uint8Array(0);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end - 1}` }));
      return out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
    } catch (err) {
      throw this.failure(err, `read ${this.where(key)} bytes ${start}-${end - 1}`);
    }
  }

  async *read(path: string): AsyncIterable<Uint8Array> {
    const key = keyOf(path);
    let body: AsyncIterable<Uint8Array> | undefined;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      body = out.Body as AsyncIterable<Uint8Array> | undefined; // a Node Readable in Node
    } catch (err) {
      throw this.failure(err, `read ${this.where(key)}`);
    }
    if (!body) return;
    try {
      yield* body;
    } catch (err) {
      throw this.failure(err, `read ${this.where(key)}`);
    }
  }

  /** Every object under a prefix, following continuation tokens; at most `limit` when given. */
  private async listKeys(prefix: string, limit?: number): Promise<{ key: string; size: number; modifiedMs?: number }[]> {
    const out: { key: string; size: number; modifiedMs?: number }[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: limit }),
        );
        for (const obj of page.Contents ?? [])
          if (obj.Key !== undefined) out.push({ key: obj.Key, size: obj.Size ?? 0, modifiedMs: obj.LastModified?.getTime() });
        token = page.IsTruncated && (limit === undefined || out.length < limit) ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw this.failure(err, `list ${this.where(prefix)}`);
    }
    return out;
  }

  private async deleteKeys(keys: readonly string[]): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < keys.length) {
        const key = keys[next++];
        try {
          await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
        } catch (err) {
          if (!isNotFound(err)) throw this.failure(err, `delete ${this.where(key)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, keys.length) }, worker));
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
