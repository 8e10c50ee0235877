import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { FileOutput } from '@tideway/connector-file-common';

/**
 * A key as a CopySource value, URL-encoded as S3 requires. encodeURI keeps `=` (partition
 * folders), `:` and the like as they are, which S3 accepts and which S3 look-alikes that decode
 * with decodeURI (s3rver) need; `?` and `#` would end the key, so they are escaped too.
 */
export function copySourceOf(bucket: string, key: string): string {
  return `${bucket}/${encodeURI(key).replace(/\?/g, '%3F').replace(/#/g, '%23')}`;
}

/** S3's limit for a single CopyObject (5 GiB); larger objects are copied part by part. */
export const MAX_SINGLE_COPY_BYTES = 5 * 1024 ** 3;

/**
 * An object being written. Chunks collect in memory up to the part size: a small file goes up
 * in one PutObject at close; a larger one becomes a multipart upload, one part per full buffer,
 * so memory stays at one part whatever the file size. The object appears only when close()
 * completes (S3 has no partial objects); a failed upload is aborted so no parts linger.
 */
export class S3Upload implements FileOutput {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private uploadId: string | undefined;
  private readonly parts: CompletedPart[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly partSize: number,
    private readonly failure: (err: unknown, what: string) => Error,
  ) {}

  async write(chunk: Uint8Array): Promise<void> {
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
    if (this.buffered >= this.partSize) await this.guard(() => this.uploadPart());
  }

  async close(): Promise<void> {
    await this.guard(async () => {
      if (this.uploadId === undefined) {
        const body = this.take();
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentLength: body.byteLength }));
        return;
      }
      if (this.buffered > 0 || this.parts.length === 0) await this.uploadPart();
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          MultipartUpload: { Parts: this.parts },
        }),
      );
      this.uploadId = undefined;
    });
  }

  private take(): Buffer {
    const body = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [];
    this.buffered = 0;
    return body;
  }

  private async uploadPart(): Promise<void> {
    if (this.uploadId === undefined) {
      const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }));
      this.uploadId = created.UploadId;
    }
    const body = this.take();
    const PartNumber = this.parts.length + 1;
    const out = await this.client.send(
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: this.uploadId,
        PartNumber,
        Body: body,
        ContentLength: body.byteLength,
      }),
    );
    this.parts.push({ ETag: out.ETag, PartNumber });
  }

  private async guard(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      const uploadId = this.uploadId;
      this.uploadId = undefined;
      if (uploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw this.failure(err, `write s3a://${this.bucket}/${this.key}`);
    }
  }
}

/** Copies an object larger than a single CopyObject allows, `partSize` bytes per UploadPartCopy. */
export async function copyLargeObject(
  client: S3Client,
  bucket: string,
  from: string,
  to: string,
  size: number,
  partSize: number,
): Promise<void> {
  const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: to }));
  const uploadId = created.UploadId;
  const source = copySourceOf(bucket, from);
  // S3 allows 10,000 parts: grow the part size for very large objects.
  const step = Math.max(partSize, Math.ceil(size / 10_000));
  const parts: CompletedPart[] = [];
  try {
    for (let start = 0, n = 1; start < size; start += step, n++) {
      const end = Math.min(size, start + step) - 1;
      const out = await client.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: to,
          UploadId: uploadId,
          PartNumber: n,
          CopySource: source,
          CopySourceRange: `bytes=${start}-${end}`,
        }),
      );
      parts.push({ ETag: out.CopyPartResult?.ETag, PartNumber: n });
    }
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key: to, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
    );
  } catch (err) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: to, UploadId: uploadId })).catch(() => undefined);
    throw err;
  }
}
