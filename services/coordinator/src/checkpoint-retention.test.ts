import { describe, expect, it } from 'vitest';
import type { StoredJob } from '@tideway/cluster';
import { CheckpointRetention } from './checkpoint-retention.js';
import { MemoryStorage, tick, until } from './gateway-fakes.js';

/** Storage that records which jobs' checkpoints were deleted. */
function recordingStorage() {
  const storage = Object.assign(new MemoryStorage(), { deleted: [] as string[] });
  storage.deleteJob = async (jobId?: string) => {
    storage.deleted.push(jobId ?? '');
  };
  return storage;
}

const ended = (jobId: string, status: string, finishTimeMs: number) => ({ info: { jobId }, state: { status, finishTimeMs } }) as StoredJob;

function setup(expireMs: number, store: StoredJob[] = [], inUse = new Set<string>()) {
  const storage = recordingStorage();
  const known = new Map(store.map((s) => [s.info.jobId, s]));
  const retention = new CheckpointRetention(
    storage,
    { job: async (id) => known.get(id), endedJobs: async () => [...known.values()] },
    expireMs,
    (id) => inUse.has(id),
  );
  return { storage, retention, known };
}

describe('how long ended jobs keep their checkpoints', () => {
  it('a finished job: deleted at once; a failed job and a savepoint: kept', async () => {
    const { storage, retention } = setup(60_000);
    retention.ended('f', 'FINISHED', Date.now());
    retention.ended('x', 'FAILED', Date.now());
    retention.ended('s', 'SAVEPOINT_DONE', Date.now());
    await until(() => storage.deleted.length > 0, 'the finished job deleted');
    await tick(50);
    expect(storage.deleted).toEqual(['f']);
    retention.stop();
  });

  it('a cancelled job: kept until its history expires, then deleted', async () => {
    const { storage, retention } = setup(300);
    retention.ended('c', 'CANCELED', Date.now());
    await tick(100);
    expect(storage.deleted).toEqual([]);
    await until(() => storage.deleted.includes('c'), 'deleted at the expiry');
    retention.stop();
  });

  it('not deleted when the job id runs again (a restore -r of it) or was recorded again with another end', async () => {
    const now = Date.now();
    const { storage, retention, known } = setup(100, [], new Set(['running-again']));
    retention.ended('running-again', 'CANCELED', now);
    known.set('ended-again', ended('ended-again', 'FAILED', now + 50));
    retention.ended('ended-again', 'CANCELED', now);
    await tick(400);
    expect(storage.deleted).toEqual([]);
    retention.stop();
  });

  it('a new leader arms the expiry of the cancelled jobs the state store lists', async () => {
    const { storage, retention } = setup(200, [ended('c1', 'CANCELED', Date.now() - 1000), ended('f1', 'FAILED', Date.now() - 1000)]);
    await retention.arm();
    await until(() => storage.deleted.includes('c1'), 'the expired cancelled job deleted');
    await tick(50);
    expect(storage.deleted).toEqual(['c1']);
    retention.stop();
  });
});
