import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Client, DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { CheckpointKind, type CompletedCheckpoint } from './checkpoint.js';
import type { BlobCheckpointStorage } from './checkpoint-storage.js';
import { CheckpointWriteError } from './checkpoint-storage.js';
import type { BlobStore } from './blob-store.js';
import { LocalFileCheckpointStorage, S3CheckpointStorage } from './storages.js';
import { BlobCheckpointStorage as Storage } from './checkpoint-storage.js';
import { startS3rver, type TestS3Server } from './testing/s3rver.js';

function checkpoint(
  jobId: string,
  pipelineId: number,
  checkpointId: number,
  kind: CheckpointKind = CheckpointKind.CHECKPOINT,
): CompletedCheckpoint {
  return {
    jobId,
    pipelineId,
    checkpointId,
    timestamp: 1_700_000_000_000 + checkpointId,
    kind,
    taskStates: [
      { vertexId: 'source-0', subtaskIndex: 0, state: [{ splitId: 'f1', offset: 10n * BigInt(checkpointId) }] },
      { vertexId: 'sink-1', subtaskIndex: 1, state: new Uint8Array([1, 2, 3, checkpointId]) },
    ],
    enumeratorStates: [{ vertexId: 'source-0', state: { pending: ['a', 'b'], assigned: new Map([[0, ['c']]]) } }],
    pendingCommitInfos: [{ vertexId: 'sink-1', infos: [{ transactionId: `T_${checkpointId}`, files: { '/tmp/a': '/out/a' } }] }],
  };
}

/** Raw access to what a storage wrote, to corrupt or delete it. */
interface Backdoor {
  read(key: string): Promise<Uint8Array>;
  write(key: string, bytes: Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
}

interface Fixture {
  storage(maxRetained: number): BlobCheckpointStorage;
  backdoor: Backdoor;
}

let s3: TestS3Server;
const localRoot = mkdtempSync(join(tmpdir(), 'tideway-ckpt-test-'));

beforeAll(async () => {
  s3 = await startS3rver(['checkpoints']);
});
afterAll(async () => {
  await s3?.stop();
  rmSync(localRoot, { recursive: true, force: true });
});

const fixtures: Record<string, () => Fixture> = {
  localfile: () => {
    const dir = join(localRoot, `run-${Math.random().toString(36).slice(2)}`);
    return {
      storage: (maxRetained) => new LocalFileCheckpointStorage({ directory: dir, maxRetained }),
      backdoor: {
        read: async (key) => readFileSync(join(dir, key)),
        write: async (key, bytes) => writeFileSync(join(dir, key), bytes),
        remove: async (key) => rmSync(join(dir, key)),
      },
    };
  },
  s3: () => {
    const prefix = `ns-${Math.random().toString(36).slice(2)}/`;
    const loc = {
      bucket: 'checkpoints',
      prefix,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      forcePathStyle: true,
    };
    const raw = new S3Client({ ...loc, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
    return {
      storage: (maxRetained) => new S3CheckpointStorage({ ...loc, maxRetained }),
      backdoor: {
        read: async (key) => {
          const out = await raw.send(new GetObjectCommand({ Bucket: 'checkpoints', Key: prefix + key }));
          return out.Body!.transformToByteArray();
        },
        write: async (key, bytes) => {
          await raw.send(new PutObjectCommand({ Bucket: 'checkpoints', Key: prefix + key, Body: bytes }));
        },
        remove: async (key) => {
          await raw.send(new DeleteObjectCommand({ Bucket: 'checkpoints', Key: prefix + key }));
        },
      },
    };
  },
};

describe.each(Object.keys(fixtures))('%s checkpoint storage', (name) => {
  it('writes and reads back a checkpoint unchanged (bigint, Map, bytes)', async () => {
    const f = fixtures[name]();
    const storage = f.storage(3);
    const cp = checkpoint('job-1', 1, 1, CheckpointKind.SAVEPOINT);
    const ref = await storage.write(cp);
    expect(ref).toMatchObject({ jobId: 'job-1', pipelineId: 1, checkpointId: 1 });
    expect(ref.key).toMatch(/^job-1\/1\/1-[0-9a-f]{16}\.ckpt$/);
    const latest = await storage.readLatest('job-1', 1);
    expect(latest?.warning).toBeUndefined();
    expect(latest?.checkpoint).toEqual(cp);
    expect(await storage.read(ref)).toEqual(cp);
    expect(await storage.readLatest('job-1', 2)).toBeUndefined();
    expect(await storage.readLatest('job-none', 1)).toBeUndefined();
    await storage.close();
  });

  it('keeps max-retained checkpoints per pipeline, newest first, and lists them', async () => {
    const f = fixtures[name]();
    const storage = f.storage(2);
    for (let id = 1; id <= 5; id++) await storage.write(checkpoint('job-2', 1, id));
    await storage.write(checkpoint('job-2', 2, 7));
    const refs = await storage.listCheckpoints('job-2');
    expect(refs.map((r) => [r.pipelineId, r.checkpointId])).toEqual([
      [1, 4],
      [1, 5],
      [2, 7],
    ]);
    expect((await storage.listCheckpoints('job-2', 1)).map((r) => r.checkpointId)).toEqual([4, 5]);
    expect((await storage.readLatest('job-2', 1))?.checkpoint.checkpointId).toBe(5);
    await storage.close();
  });

  it('applies concurrent writes of one pipeline in call order', async () => {
    const f = fixtures[name]();
    const storage = f.storage(10);
    await Promise.all([1, 2, 3, 4].map((id) => storage.write(checkpoint('job-3', 1, id))));
    expect((await storage.readLatest('job-3', 1))?.checkpoint.checkpointId).toBe(4);
    await storage.close();
  });

  it('falls back to the previous checkpoint when the latest is corrupt, and says so', async () => {
    const f = fixtures[name]();
    const storage = f.storage(3);
    await storage.write(checkpoint('job-4', 1, 1));
    const ref2 = await storage.write(checkpoint('job-4', 1, 2));
    const bytes = Buffer.from(await f.backdoor.read(ref2.key));
    bytes[bytes.length - 3] ^= 0x01; // one flipped bit in the payload
    await f.backdoor.write(ref2.key, bytes);
    const latest = await storage.readLatest('job-4', 1);
    expect(latest?.checkpoint.checkpointId).toBe(1);
    expect(latest?.skipped).toEqual([`checkpoint 2 (${ref2.key})`]);
    expect(latest?.warning).toMatch(/restored from checkpoint 1 instead of the latest, skipping checkpoint 2 .*checksum does not match/);
    await expect(storage.read(ref2)).rejects.toThrow(/SHA-256 checksum does not match/);
    await storage.close();
  });

  it('falls back when the latest data is deleted, or the pointer is corrupt or missing', async () => {
    const f = fixtures[name]();
    const storage = f.storage(3);
    await storage.write(checkpoint('job-5', 1, 1));
    await storage.write(checkpoint('job-5', 1, 2));
    const ref3 = await storage.write(checkpoint('job-5', 1, 3));
    await f.backdoor.remove(ref3.key);
    let latest = await storage.readLatest('job-5', 1);
    expect(latest?.checkpoint.checkpointId).toBe(2);
    expect(latest?.warning).toMatch(/skipping checkpoint 3 .* because its data .* is missing/);

    const pointer = Buffer.from(await f.backdoor.read('job-5/1/latest'));
    pointer[10] ^= 0xff; // inside the stored checksum
    await f.backdoor.write('job-5/1/latest', pointer);
    latest = await storage.readLatest('job-5', 1);
    expect(latest?.checkpoint.checkpointId).toBe(2);
    expect(latest?.skipped).toEqual(['job-5/1/latest']);

    await f.backdoor.remove('job-5/1/latest');
    latest = await storage.readLatest('job-5', 1);
    expect(latest?.checkpoint.checkpointId).toBe(2);
    expect(latest?.skipped).toEqual(['job-5/1/latest']);
    expect(latest?.warning).toMatch(/because the latest pointer job-5\/1\/latest is missing\.$/);
    await storage.close();
  });

  it('fails loudly when every retained checkpoint is unreadable', async () => {
    const f = fixtures[name]();
    const storage = f.storage(2);
    const r1 = await storage.write(checkpoint('job-6', 1, 1));
    const r2 = await storage.write(checkpoint('job-6', 1, 2));
    await f.backdoor.write(r1.key, new Uint8Array([1, 2, 3]));
    await f.backdoor.remove(r2.key);
    await expect(storage.readLatest('job-6', 1)).rejects.toThrow(/job-6 pipeline 1 has no readable checkpoint/);
    await storage.close();
  });

  it('deleteJob removes only that job', async () => {
    const f = fixtures[name]();
    const storage = f.storage(3);
    await storage.write(checkpoint('job-7', 1, 1));
    await storage.write(checkpoint('job-7', 2, 1));
    await storage.write(checkpoint('job-8', 1, 1));
    await storage.deleteJob('job-7');
    expect(await storage.listCheckpoints('job-7')).toEqual([]);
    expect(await storage.readLatest('job-7', 1)).toBeUndefined();
    expect((await storage.readLatest('job-8', 1))?.checkpoint.checkpointId).toBe(1);
    await storage.close();
  });
});

/** A store whose pointer writes fail, to show no pruning happens after a failed write. */
class FailingPointerStore implements BlobStore {
  readonly description = 'memory';
  readonly objects = new Map<string, Uint8Array>();
  failPointer = false;
  async put(key: string, bytes: Uint8Array): Promise<void> {
    if (this.failPointer && key.endsWith('/latest')) throw new Error('timeout');
    this.objects.set(key, bytes);
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    return this.objects.get(key);
  }
  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix));
  }
  async delete(keys: readonly string[]): Promise<void> {
    for (const k of keys) this.objects.delete(k);
  }
  async deletePrefix(prefix: string): Promise<void> {
    await this.delete(await this.list(prefix));
  }
  close(): void {}
}

describe('a failed write', () => {
  it('reports an unknown outcome, prunes nothing, and restore ignores the unconfirmed data', async () => {
    const store = new FailingPointerStore();
    const storage = new Storage(store, 1);
    await storage.write(checkpoint('job-9', 1, 1));
    store.failPointer = true;
    const err = await storage.write(checkpoint('job-9', 1, 2)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointWriteError);
    expect((err as CheckpointWriteError).outcomeUnknown).toBe(true);
    expect((err as Error).message).toMatch(/latest pointer for checkpoint 2 of job job-9 pipeline 1 failed \(outcome unknown\)/);
    // checkpoint 1 was not pruned although max-retained is 1
    expect((await storage.listCheckpoints('job-9')).map((r) => r.checkpointId)).toEqual([1, 2]);
    expect((await storage.readLatest('job-9', 1))?.checkpoint.checkpointId).toBe(1);
    // a later write succeeds and prunes both older ones
    store.failPointer = false;
    await storage.write(checkpoint('job-9', 1, 3));
    expect((await storage.listCheckpoints('job-9')).map((r) => r.checkpointId)).toEqual([3]);
  });

  it('rejects ids that cannot name a folder', async () => {
    const storage = new Storage(new FailingPointerStore(), 1);
    await expect(storage.write(checkpoint('../x', 1, 1))).rejects.toThrow(/cannot name a checkpoint folder/);
  });
});

describe('local temp files', () => {
  it('leaves no temp files behind and ignores foreign temp files when listing', async () => {
    const dir = mkdtempSync(join(localRoot, 'tmpfiles-'));
    const storage = new LocalFileCheckpointStorage({ directory: dir, maxRetained: 2 });
    await storage.write(checkpoint('job-10', 1, 1));
    writeFileSync(join(dir, 'job-10/1/5-00.ckpt.tmp-abc'), 'partial');
    expect((await storage.listCheckpoints('job-10')).map((r) => r.checkpointId)).toEqual([1]);
    expect(readdirSync(join(dir, 'job-10/1')).sort()).toEqual(expect.arrayContaining(['latest']));
    await storage.close();
  });
});
