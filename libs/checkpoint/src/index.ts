export * from './checkpoint.js';
export { ContentKind, CorruptCheckpointError, FORMAT_VERSION, decodeStored, encodeStored } from './codec.js';
export type { BlobStore } from './blob-store.js';
export { LocalBlobStore } from './local-blob-store.js';
export type { S3Location } from './s3-blob-store.js';
export { BlobCheckpointStorage, CheckpointWriteError, type CheckpointStorage, type ConfirmedCheckpoint } from './checkpoint-storage.js';
export { DEFAULT_MAX_RETAINED, LocalFileCheckpointStorage, S3CheckpointStorage } from './storages.js';
export {
  checkpointStorageFromConfig,
  resolveCheckpointStorage,
  type CheckpointStorageBlock,
  type ResolvedCheckpointStorage,
} from './storage-config.js';
