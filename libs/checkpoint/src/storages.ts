import { BlobCheckpointStorage } from './checkpoint-storage.js';
import { LocalBlobStore } from './local-blob-store.js';
import { LazyS3BlobStore } from './lazy-s3-blob-store.js';
import type { S3Location } from './s3-blob-store.js';

/** SeaTunnel's default max-retained when seatunnel.yaml does not set it. */
export const DEFAULT_MAX_RETAINED = 20;

/** Checkpoints as files in a local directory (SeaTunnel's `localfile` / hdfs with file:///). */
export class LocalFileCheckpointStorage extends BlobCheckpointStorage {
  constructor(options: { directory: string; maxRetained?: number }) {
    super(new LocalBlobStore(options.directory), options.maxRetained ?? DEFAULT_MAX_RETAINED);
  }
}

/** Checkpoints as objects in an S3 bucket (SeaTunnel's hdfs storage with storage.type s3). */
export class S3CheckpointStorage extends BlobCheckpointStorage {
  constructor(options: S3Location & { maxRetained?: number }) {
    super(new LazyS3BlobStore(options), options.maxRetained ?? DEFAULT_MAX_RETAINED);
  }
}
