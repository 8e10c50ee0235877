/**
 * Found by `tideway chaos` (kill 28 of the 50-kill LocalFile run, 2026-12-01): a coordinator that
 * steps down through its fence (Leadership.stale: "stepping down: this coordinator no longer
 * leads", e.g. resumed after a SIGSTOP longer than its lease) restarts its election with
 * `election.stop()` then `election.start()` (CoordinatorServer.stepDown with resign). stop()
 * closes the lock nodes' connections; the restarted election never took the lease again, so
 * once every other coordinator was gone the cluster had no leader at all. Now a stopped election
 * refuses to start, and the coordinator contends with a new one (ha.test.ts covers the whole
 * path with real processes).
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

describe('a coordinator that resigned contends again', () => {
  it('a stopped election refuses to start again; a new one over the same nodes takes the free lease with a higher epoch', {
    timeout: 30_000,
  }, async () => {
    const store = new RedisStateStore({ address: `127.0.0.1:${redis.port}`, keyPrefix: 'restart:' });
    await store.open();
    const make = () =>
      new RedlockElection({
        nodes: [`127.0.0.1:${redis.port}`],
        key: 'restart:leader-lease',
        leaseTtlMs: 1500,
        retryIntervalMs: 100,
        store,
        address: 'c1:1',
      });
    const elected: number[] = [];
    const handlers = { onElected: (epoch: number) => void elected.push(epoch), onLost: () => undefined };
    let election = make();
    try {
      election.start(handlers);
      for (let i = 0; i < 100 && elected.length === 0; i++) await sleep(50);
      expect(elected).toHaveLength(1);
      // What CoordinatorServer.stepDown(reason, resign = true) does: stop, then a new election.
      await election.stop();
      expect(() => election.start(handlers)).toThrow(/make a new election/);
      election = make();
      election.start(handlers);
      for (let i = 0; i < 200 && elected.length === 1; i++) await sleep(50);
      expect(elected).toHaveLength(2);
      expect(elected[1]).toBeGreaterThan(elected[0]);
      expect(election.leading).toBe(true);
    } finally {
      await election.stop();
      await store.close();
    }
  });
});
