import { randomBytes } from 'node:crypto';
import { detach, ErrorCode, TidewayError, logger } from '@tideway/common';
import type { BlobStore } from './blob-store.js';
import type { CheckpointRef, CompletedCheckpoint, LatestCheckpoint } from './checkpoint.js';
import { ContentKind, CorruptCheckpointError, decodeStored, encodeStored } from './codec.js';

/**
 * Where completed checkpoints are kept. Semantics every implementation keeps:
 * - `write` stores the data under a new immutable key, then rewrites the pipeline's "latest"
 *   pointer; only then does it resolve. Writes of one pipeline are applied in call order.
 * - After a successful write, checkpoints beyond `maxRetained` (oldest first) are deleted;
 *   never the one just written, and nothing at all when the write failed.
 * - `readLatest` verifies checksums and falls back to older retained checkpoints when the
 *   latest (or its pointer) is missing or corrupt, saying what it skipped.
 */
export interface CheckpointStorage {
  /** For messages, e.g. `local directory /tmp/seatunnel/checkpoint/`. */
  readonly description: string;
  /** How many checkpoints per pipeline are kept (SeaTunnel's `max-retained`). */
  readonly maxRetained: number;
  /** Stores a completed checkpoint; throws CheckpointWriteError (outcome unknown) on failure. */
  write(checkpoint: CompletedCheckpoint): Promise<CheckpointRef>;
  /**
   * The newest readable checkpoint of a pipeline, or undefined when it has none. `confirmed`
   * (the pointer a state store recorded) replaces the storage's own latest pointer: only that
   * checkpoint or an older one is restored from, since newer data was never confirmed.
   */
  readLatest(jobId: string, pipelineId: number, confirmed?: ConfirmedCheckpoint): Promise<LatestCheckpoint | undefined>;
  /** Reads one listed checkpoint; throws CorruptCheckpointError when it fails its checksum. */
  read(ref: CheckpointRef): Promise<CompletedCheckpoint>;
  /** Stored checkpoints of a job (of one pipeline when given), by pipeline then id ascending. */
  listCheckpoints(jobId: string, pipelineId?: number): Promise<CheckpointRef[]>;
  /** Removes every checkpoint of a job (job cancelled or finished). */
  deleteJob(jobId: string): Promise<void>;
  /**
   * The objects of the cluster's plugin store (keys under `plugin-packages/`, beside the jobs'
   * checkpoints, so HA coordinators share them); absent for storages that keep nothing.
   */
  pluginBlobs?(): BlobStore;
  close(): Promise<void>;
}

/**
 * A failed checkpoint write. The outcome is unknown (the bytes may or may not have landed),
 * so callers must not delete anything because of it; a later checkpoint may still succeed.
 */
export class CheckpointWriteError extends TidewayError {
  override readonly name = 'CheckpointWriteError';
  /** Always true: a failed write never proves that nothing was written. */
  readonly outcomeUnknown = true;
}

const POINTER_NAME = 'latest';
const DATA_SUFFIX = '.ckpt';
const DATA_NAME = /^(\d+)-[0-9a-f]+\.ckpt$/;
const ID_TEXT = /^[A-Za-z0-9_.-]+$/;

interface Pointer {
  key: string;
  checkpointId: number;
  timestamp: number;
}

/** A checkpoint a state store confirmed as the latest completed one of its pipeline. */
export interface ConfirmedCheckpoint {
  checkpointId: number;
  key: string;
}

const log = logger('checkpoint-storage');

/** The write/read protocol over any BlobStore; LocalFile and S3 storages are this with a store. */
export class BlobCheckpointStorage implements CheckpointStorage {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    protected readonly store: BlobStore,
    readonly maxRetained: number,
  ) {
    if (!Number.isInteger(maxRetained) || maxRetained < 1) {
      throw new TidewayError(
        ErrorCode.ENGINE_CONFIG,
        `Checkpoint storage max-retained must be an integer of at least 1, got ${maxRetained}.`,
      );
    }
  }

  get description(): string {
    return this.store.description;
  }

  pluginBlobs(): BlobStore {
    const store = this.store;
    const at = (key: string) => `${PLUGIN_PREFIX}${key}`;
    return {
      description: `${store.description} (${PLUGIN_PREFIX})`,
      put: (key, bytes) => store.put(at(key), bytes),
      get: (key) => store.get(at(key)),
      list: async (prefix) => (await store.list(at(prefix))).map((k) => k.slice(PLUGIN_PREFIX.length)),
      delete: (keys) => store.delete(keys.map(at)),
      deletePrefix: (prefix) => store.deletePrefix(at(prefix)),
      close: () => undefined,
    };
  }

  async write(checkpoint: CompletedCheckpoint): Promise<CheckpointRef> {
    const dir = pipelineDir(checkpoint.jobId, checkpoint.pipelineId);
    if (!Number.isInteger(checkpoint.checkpointId) || checkpoint.checkpointId < 0) {
      throw new TidewayError(
        ErrorCode.INTERNAL,
        `Checkpoint id ${checkpoint.checkpointId} of job ${checkpoint.jobId} is not a non-negative integer.`,
      );
    }
    // Encode now, while the caller's objects are as it handed them over.
    const bytes = encodeStored(ContentKind.CHECKPOINT, checkpoint);
    const run = async (): Promise<CheckpointRef> => {
      const key = `${dir}${checkpoint.checkpointId}-${randomBytes(8).toString('hex')}${DATA_SUFFIX}`;
      const what = `checkpoint ${checkpoint.checkpointId} of job ${checkpoint.jobId} pipeline ${checkpoint.pipelineId}`;
      await this.putOrFail(key, bytes, `${what} to ${this.store.description}`, checkpoint.jobId);
      const pointer: Pointer = { key, checkpointId: checkpoint.checkpointId, timestamp: checkpoint.timestamp };
      await this.putOrFail(
        dir + POINTER_NAME,
        encodeStored(ContentKind.POINTER, pointer),
        `the latest pointer for ${what}`,
        checkpoint.jobId,
      );
      await this.prune(checkpoint.jobId, checkpoint.pipelineId, key);
      return {
        jobId: checkpoint.jobId,
        pipelineId: checkpoint.pipelineId,
        checkpointId: checkpoint.checkpointId,
        key,
        bytes: bytes.byteLength,
      };
    };
    // Writes of one pipeline run one after another so the pointer never moves backwards.
    const previous = this.chains.get(dir) ?? Promise.resolve();
    const next = previous.then(run, run);
    const tail = next.catch(() => undefined);
    this.chains.set(dir, tail);
    detach(
      tail.then(() => {
        if (this.chains.get(dir) === tail) this.chains.delete(dir);
      }),
      'forgetting a checkpoint folder chain',
    );
    return next;
  }

  async readLatest(jobId: string, pipelineId: number, confirmed?: ConfirmedCheckpoint): Promise<LatestCheckpoint | undefined> {
    const dir = pipelineDir(jobId, pipelineId);
    const skipped: string[] = [];
    const reasons: string[] = [];
    let pointer: Pointer | undefined;
    const pointerBytes = confirmed ? undefined : await this.getOrFail(dir + POINTER_NAME, jobId);
    if (confirmed) {
      pointer = { ...confirmed, timestamp: 0 };
    } else if (pointerBytes === undefined) {
      skipped.push(dir + POINTER_NAME);
      reasons.push(`the latest pointer ${dir + POINTER_NAME} is missing`);
    } else {
      try {
        pointer = decodeStored(dir + POINTER_NAME, ContentKind.POINTER, pointerBytes) as Pointer;
      } catch (err) {
        skipped.push(dir + POINTER_NAME);
        reasons.push(reasonOf(err));
      }
    }
    if (pointer) {
      const found = await this.tryRead(pointer.key, jobId);
      if ('checkpoint' in found) return { checkpoint: found.checkpoint, skipped: [] };
      skipped.push(`checkpoint ${pointer.checkpointId} (${pointer.key})`);
      reasons.push(found.reason);
    }
    let candidates = (await this.listCheckpoints(jobId, pipelineId)).reverse();
    // With a readable pointer, newer data was never confirmed complete: do not restore from it.
    if (pointer) candidates = candidates.filter((r) => r.checkpointId < pointer.checkpointId);
    if (!pointer && pointerBytes === undefined && candidates.length === 0) return undefined;
    for (const ref of candidates) {
      const found = await this.tryRead(ref.key, jobId);
      if ('checkpoint' in found) {
        const warning =
          `Job ${jobId} pipeline ${pipelineId}: restored from checkpoint ${ref.checkpointId} instead of the latest, ` +
          `skipping ${skipped.join(', ')} because ${reasons.join('; ')}.`;
        log.warn({ jobId, pipelineId, skipped, checkpointId: ref.checkpointId }, warning);
        return { checkpoint: found.checkpoint, warning, skipped };
      }
      skipped.push(`checkpoint ${ref.checkpointId} (${ref.key})`);
      reasons.push(found.reason);
    }
    throw new TidewayError(
      ErrorCode.CHECKPOINT_CORRUPT,
      `Job ${jobId} pipeline ${pipelineId} has no readable checkpoint in ${this.store.description}: ${reasons.join('; ')}.`,
      { jobId, details: { skipped } },
    );
  }

  async read(ref: CheckpointRef): Promise<CompletedCheckpoint> {
    const bytes = await this.getOrFail(ref.key, ref.jobId);
    if (bytes === undefined) throw new CorruptCheckpointError(ref.key, 'it does not exist');
    return decodeStored(ref.key, ContentKind.CHECKPOINT, bytes) as CompletedCheckpoint;
  }

  async listCheckpoints(jobId: string, pipelineId?: number): Promise<CheckpointRef[]> {
    const prefix = pipelineId === undefined ? jobDir(jobId) : pipelineDir(jobId, pipelineId);
    let keys: string[];
    try {
      keys = await this.store.list(prefix);
    } catch (err) {
      throw storageError(`list checkpoints of job ${jobId} in ${this.store.description}`, jobId, err);
    }
    const refs: CheckpointRef[] = [];
    for (const key of keys) {
      const parts = key.split('/');
      if (parts.length !== 3 || parts[0] !== jobId) continue;
      const m = DATA_NAME.exec(parts[2]);
      const pid = Number(parts[1]);
      if (!m || !Number.isInteger(pid)) continue;
      refs.push({ jobId, pipelineId: pid, checkpointId: Number(m[1]), key });
    }
    return refs.sort((a, b) => a.pipelineId - b.pipelineId || a.checkpointId - b.checkpointId || (a.key < b.key ? -1 : 1));
  }

  async deleteJob(jobId: string): Promise<void> {
    try {
      await this.store.deletePrefix(jobDir(jobId));
    } catch (err) {
      throw storageError(`delete the checkpoints of job ${jobId} from ${this.store.description}`, jobId, err);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
    await this.store.close();
  }

  /** Deletes the oldest checkpoints beyond maxRetained, never `keep`. */
  private async prune(jobId: string, pipelineId: number, keep: string): Promise<void> {
    try {
      const refs = (await this.listCheckpoints(jobId, pipelineId)).reverse();
      const retained = new Set<string>([keep]);
      for (const ref of refs) if (retained.size < this.maxRetained) retained.add(ref.key);
      const doomed = refs.filter((r) => !retained.has(r.key)).map((r) => r.key);
      if (doomed.length > 0) await this.store.delete(doomed);
    } catch (err) {
      // The checkpoint itself is stored; an old one left behind is pruned by the next write.
      log.warn({ jobId, pipelineId, err: (err as Error).message }, 'pruning old checkpoints failed');
    }
  }

  private async tryRead(key: string, jobId: string): Promise<{ checkpoint: CompletedCheckpoint } | { reason: string }> {
    const bytes = await this.getOrFail(key, jobId);
    if (bytes === undefined) return { reason: `its data ${key} is missing` };
    try {
      return { checkpoint: decodeStored(key, ContentKind.CHECKPOINT, bytes) as CompletedCheckpoint };
    } catch (err) {
      return { reason: reasonOf(err) };
    }
  }

  private async putOrFail(key: string, bytes: Uint8Array, what: string, jobId: string): Promise<void> {
    try {
      await this.store.put(key, bytes);
    } catch (err) {
      throw new CheckpointWriteError(ErrorCode.CHECKPOINT_STORAGE, `Writing ${what} failed (outcome unknown): ${(err as Error).message}`, {
        retryable: true,
        jobId,
        cause: err,
      });
    }
  }

  private async getOrFail(key: string, jobId: string): Promise<Uint8Array | undefined> {
    try {
      return await this.store.get(key);
    } catch (err) {
      throw storageError(`read ${key} from ${this.store.description}`, jobId, err);
    }
  }
}

/** An error message as a clause inside a longer sentence. */
function reasonOf(err: unknown): string {
  return (err as Error).message.replace(/\.$/, '');
}

function storageError(what: string, jobId: string, err: unknown): TidewayError {
  return new TidewayError(ErrorCode.CHECKPOINT_STORAGE, `Could not ${what}: ${(err as Error).message}`, {
    retryable: true,
    jobId,
    cause: err,
  });
}

/** Where the plugin store's objects go; jobDir refuses a job of that id, so no job's checkpoints land there. */
const PLUGIN_PREFIX = 'plugin-packages/';

function jobDir(jobId: string): string {
  if (!ID_TEXT.test(jobId) || jobId === '.' || jobId === '..') {
    throw new TidewayError(ErrorCode.INTERNAL, `Job id '${jobId}' cannot name a checkpoint folder: use letters, digits, '_', '-', '.'.`);
  }
  if (`${jobId}/` === PLUGIN_PREFIX)
    throw new TidewayError(
      ErrorCode.INTERNAL,
      `Job id '${jobId}' names the plugin store's folder in checkpoint storage: use another job id.`,
    );
  return `${jobId}/`;
}

function pipelineDir(jobId: string, pipelineId: number): string {
  if (!Number.isInteger(pipelineId) || pipelineId < 0) {
    throw new TidewayError(ErrorCode.INTERNAL, `Pipeline id ${pipelineId} of job ${jobId} is not a non-negative integer.`);
  }
  return `${jobDir(jobId)}${pipelineId}/`;
}
