import type { BlobStore } from './blob-store.js';
import type { S3BlobStore, S3Location } from './s3-blob-store.js';

/**
 * An S3BlobStore that loads the AWS SDK on first use: the SDK takes a fifth of a second to
 * import, which every `tideway run` with a local checkpoint directory would otherwise pay.
 */
export class LazyS3BlobStore implements BlobStore {
  readonly description: string;
  private store: Promise<S3BlobStore> | undefined;

  constructor(private readonly loc: S3Location) {
    this.description = `s3://${loc.bucket}/${loc.prefix}`;
  }

  private s3(): Promise<S3BlobStore> {
    return (this.store ??= import('./s3-blob-store.js').then((m) => new m.S3BlobStore(this.loc)));
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await (await this.s3()).put(key, bytes);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return (await this.s3()).get(key);
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.s3()).list(prefix);
  }

  async delete(keys: readonly string[]): Promise<void> {
    await (await this.s3()).delete(keys);
  }

  async deletePrefix(prefix: string): Promise<void> {
    await (await this.s3()).deletePrefix(prefix);
  }

  async close(): Promise<void> {
    if (this.store) (await this.store).close();
  }
}
