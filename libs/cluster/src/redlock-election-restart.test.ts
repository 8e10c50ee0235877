/**
 * Found by `tideway chaos` (kill 28 of the 50-kill LocalFile run, 2026-12-01): a coordinator that
 * steps down through its fence (Leadership.stale: "stepping down: this coordinator no longer
 * leads", e.g. resumed after a SIGSTOP longer than its lease) restarts its election with
 * `election.stop()` then `election.start()` (CoordinatorServer.stepDown with resign). stop()
 * closes the lock nodes' connections; the restarted election never takes the lease again, so
 * once every other coordinator is gone the cluster has no leader at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '@tideway/testing';
import { RedisStateStore } from './redis-state-store.js';
import { RedlockElection } from './redlock-election.js';
import { sleep } from './test/fixtures.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('RedlockElection stopped and started again (a coordinator that resigned)', () => {
  it('contends again and takes the free lease', { timeout: 30_000 }, async () => {
    const store = new RedisStateStore({ address: `127.0.0.1:${redis.port}`, keyPrefix: 'restart:' });
    await store.open();
    const election = new RedlockElection({ nodes: [`127.0.0.1:${redis.port}`], key: 'restart:leader-lease', leaseTtlMs: 1500, retryIntervalMs: 100, store, address: 'c1:1' });
    const elected: number[] = [];
    const handlers = { onElected: (epoch: number) => void elected.push(epoch), onLost: () => undefined };
    try {
      election.start(handlers);
      for (let i = 0; i < 100 && elected.length === 0; i++) await sleep(50);
      expect(elected).toHaveLength(1);
      // What CoordinatorServer.stepDown(reason, resign = true) does.
      await election.stop();
      election.start(handlers);
      for (let i = 0; i < 200 && elected.length === 1; i++) await sleep(50);
      expect(elected, 'the restarted election never took the free lease again').toHaveLength(2);
      expect(election.leading).toBe(true);
    } finally {
      await election.stop();
      await store.close();
    }
  });
});
