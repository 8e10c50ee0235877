import { describe, expect, it } from 'vitest';
import { ErrorCode, TidewayError } from '@tideway/common';
import { StaleEpochError, type StateStore } from '../state-store.js';
import { jobInfo, jobState, pointer, sleep } from './fixtures.js';

export { jobInfo, jobState, pointer, sleep };

/** Opens a fresh, empty store for one test; the returned function closes it. */
export type StoreFactory = () => Promise<StateStore>;

/**
 * What every StateStore does, run against each implementation, so that local mode's memory store
 * and the Redis store cannot drift apart. Each case names what passes.
 */
export function stateStoreContract(name: string, fresh: StoreFactory): void {
  describe(`StateStore contract: ${name}`, () => {
    it('hands out strictly increasing epochs and records the leader of the latest', async () => {
      const store = await fresh();
      expect(await store.leader()).toBeUndefined();
      const a = await store.claimEpoch('c1:5801');
      const b = await store.claimEpoch('c2:5801');
      expect(b).toBeGreaterThan(a);
      expect(await store.leader()).toMatchObject({ address: 'c2:5801', epoch: b });
      expect((await store.leader())!.sinceMs).toBeGreaterThan(0);
      expect(await store.claimEpoch('c3:5801', b + 10)).toBe(b + 11);
      await expect(store.assertEpoch(b + 11)).resolves.toBeUndefined();
      const err = await store.assertEpoch(b).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StaleEpochError);
      expect(err).toMatchObject({ epoch: b, current: b + 11, code: ErrorCode.STALE_EPOCH });
    });

    it('keeps a submitted job whole, with its config as given, and lists it as active', async () => {
      const store = await fresh();
      const epoch = await store.claimEpoch('c1');
      await store.submitJob(epoch, jobInfo('7'), jobState('PENDING'));
      expect(await store.job('7')).toEqual({ info: jobInfo('7'), state: jobState('PENDING'), checkpoints: {} });
      expect(await store.activeJobs()).toEqual([{ info: jobInfo('7'), state: jobState('PENDING'), checkpoints: {} }]);
      expect(await store.job('nope')).toBeUndefined();
      const copy = (await store.job('7'))!;
      copy.state.status = 'MUTATED';
      expect((await store.job('7'))!.state.status).toBe('PENDING');
    });

    it('refuses an active job id, and replaces an ended one with a fresh job', async () => {
      const store = await fresh();
      const epoch = await store.claimEpoch('c1');
      await store.submitJob(epoch, jobInfo('7'), jobState('RUNNING'));
      const err = await store.submitJob(epoch, jobInfo('7'), jobState('PENDING')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TidewayError);
      expect(err).toMatchObject({ code: ErrorCode.CONFIG_BAD_VALUE, message: 'job id 7 is already in use (RUNNING)', jobId: '7' });
      await store.putCheckpoint(epoch, '7', pointer(1, 4));
      await store.endJob(epoch, '7', jobState('FAILED', 9_000), 60_000);
      await store.submitJob(epoch, jobInfo('7', 2_000), jobState('PENDING'));
      expect(await store.job('7')).toEqual({ info: jobInfo('7', 2_000), state: jobState('PENDING'), checkpoints: {} });
      expect(await store.endedJobs()).toEqual([]);
      expect((await store.activeJobs()).map((j) => j.info.jobId)).toEqual(['7']);
    });

    it('replaces the state of active jobs only', async () => {
      const store = await fresh();
      const epoch = await store.claimEpoch('c1');
      await store.submitJob(epoch, jobInfo('1'), jobState('PENDING'));
      await store.updateJob(epoch, '1', jobState('RUNNING'));
      expect((await store.job('1'))!.state).toEqual(jobState('RUNNING'));
      await store.endJob(epoch, '1', jobState('FINISHED', 9_000), 60_000);
      await store.updateJob(epoch, '1', jobState('RUNNING'));
      await store.updateJob(epoch, 'unknown', jobState('RUNNING'));
      expect((await store.job('1'))!.state.status).toBe('FINISHED');
      expect(await store.job('unknown')).toBeUndefined();
    });

    it('moves one checkpoint pointer per pipeline, and ignores unknown jobs', async () => {
      const store = await fresh();
      const epoch = await store.claimEpoch('c1');
      await store.submitJob(epoch, jobInfo('1'), jobState('RUNNING'));
      await store.putCheckpoint(epoch, '1', pointer(1, 1));
      await store.putCheckpoint(epoch, '1', pointer(2, 1));
      await store.putCheckpoint(epoch, '1', pointer(1, 2));
      await store.putCheckpoint(epoch, 'unknown', pointer(1, 1));
      expect((await store.job('1'))!.checkpoints).toEqual({ 1: pointer(1, 2), 2: pointer(2, 1) });
      expect((await store.activeJobs())[0].checkpoints).toEqual({ 1: pointer(1, 2), 2: pointer(2, 1) });
      expect(await store.job('unknown')).toBeUndefined();
    });

    it('keeps ended jobs with their pointers, most recently ended first, in pages', async () => {
      const store = await fresh();
      const epoch = await store.claimEpoch('c1');
      for (const id of ['a', 'b', 'c', 'd']) await store.submitJob(epoch, jobInfo(id), jobState('RUNNING'));
      await store.putCheckpoint(epoch, 'b', pointer(1, 8));
      for (const id of ['b', 'a', 'c']) {
        await store.endJob(epoch, id, jobState('FINISHED', 9_000), 60_000);
        await sleep(5); // distinct end times
      }
      expect((await store.activeJobs()).map((j) => j.info.jobId)).toEqual(['d']);
      const ended = await store.endedJobs();
      expect(ended.map((j) => j.info.jobId)).toEqual(['c', 'a', 'b']);
      expect(ended[2]).toEqual({ info: jobInfo('b'), state: jobState('FINISHED', 9_000), checkpoints: { 1: pointer(1, 8) } });
      expect((await store.endedJobs({ offset: 1, limit: 1 })).map((j) => j.info.jobId)).toEqual(['a']);
      expect((await store.endedJobs({ offset: 2, limit: 5 })).map((j) => j.info.jobId)).toEqual(['b']);
      expect(await store.endedJobs({ offset: 3, limit: 5 })).toEqual([]);
      expect(await store.endedJobs({ offset: 0, limit: 0 })).toEqual([]);
      expect((await store.job('a'))!.state.status).toBe('FINISHED');
    });

    it('forgets an ended job by itself once its retention passed', async () => {
      const store = await fresh();
      const epoch = await store.claimEpoch('c1');
      await store.submitJob(epoch, jobInfo('short'), jobState('RUNNING'));
      await store.submitJob(epoch, jobInfo('long'), jobState('RUNNING'));
      await store.putCheckpoint(epoch, 'short', pointer(1, 1));
      await store.endJob(epoch, 'short', jobState('FINISHED', 9_000), 150);
      await store.endJob(epoch, 'long', jobState('FINISHED', 9_000), 60_000);
      expect((await store.endedJobs()).map((j) => j.info.jobId)).toEqual(['long', 'short']);
      await sleep(300);
      expect(await store.job('short')).toBeUndefined();
      expect((await store.endedJobs()).map((j) => j.info.jobId)).toEqual(['long']);
      // A pointer written to the expired job does not bring it back.
      await store.putCheckpoint(epoch, 'short', pointer(1, 2));
      expect(await store.job('short')).toBeUndefined();
    });

    it('refuses every write of a stale epoch and leaves the data as it was', async () => {
      const store = await fresh();
      const old = await store.claimEpoch('c1');
      await store.submitJob(old, jobInfo('1'), jobState('RUNNING'));
      await store.putCheckpoint(old, '1', pointer(1, 1));
      const current = await store.claimEpoch('c2');
      const before = await store.job('1');
      const writes: Array<[string, () => Promise<void>]> = [
        ['assertEpoch', () => store.assertEpoch(old)],
        ['submitJob', () => store.submitJob(old, jobInfo('2'), jobState('PENDING'))],
        ['updateJob', () => store.updateJob(old, '1', jobState('FAILED'))],
        ['putCheckpoint', () => store.putCheckpoint(old, '1', pointer(1, 99))],
        ['endJob', () => store.endJob(old, '1', jobState('CANCELED', 9_000), 60_000)],
      ];
      for (const [what, write] of writes) {
        const err = await write().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, what).toBeInstanceOf(StaleEpochError);
        expect(err, what).toMatchObject({ epoch: old, current });
      }
      expect(await store.job('1')).toEqual(before);
      expect(await store.job('2')).toBeUndefined();
      expect((await store.activeJobs()).map((j) => j.info.jobId)).toEqual(['1']);
      expect(await store.endedJobs()).toEqual([]);
      expect(await store.leader()).toMatchObject({ address: 'c2', epoch: current });
    });

    it('never hands out an epoch a writer already used', async () => {
      const store = await fresh();
      const claimed = await store.claimEpoch('c1');
      await store.assertEpoch(claimed + 5);
      expect(await store.claimEpoch('c2')).toBe(claimed + 6);
    });

    it('lists the coordinators heard from within their ttl, by address', async () => {
      const store = await fresh();
      await store.announceCoordinator('c2:5801', 60_000);
      await store.announceCoordinator('c1:5801', 60_000);
      await store.announceCoordinator('c3:5801', 100);
      const now = Date.now();
      const seen = await store.coordinators();
      expect(seen.map((c) => c.address)).toEqual(['c1:5801', 'c2:5801', 'c3:5801']);
      for (const c of seen) expect(Math.abs(c.lastSeenMs - now)).toBeLessThan(2_000);
      await sleep(250);
      expect((await store.coordinators()).map((c) => c.address)).toEqual(['c1:5801', 'c2:5801']);
      await store.announceCoordinator('c3:5801', 100);
      expect((await store.coordinators()).map((c) => c.address)).toEqual(['c1:5801', 'c2:5801', 'c3:5801']);
    });
  });
}
