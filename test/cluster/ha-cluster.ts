import { startRedis, type RedisServer } from '@tideway/testing';
import { TestCluster, type TestClusterOptions } from './test-cluster.js';

/** A cluster of the HA suites and the Redis servers it uses, stopped together. */
export interface HaCluster {
  cluster: TestCluster;
  /** The state Redis (append-only file on, so it can be restarted with its data). */
  state: RedisServer;
  /** Redlock nodes of their own, when asked for (else the lease is on the state Redis). */
  locks: RedisServer[];
  stop(): Promise<void>;
}

/**
 * Two coordinators over a Redis state store, three workers, short leases and heartbeats (lease
 * 2 s, heartbeat 300 ms / 3 s), as the HA suites run them; `lockNodes` starts that many Redlock
 * nodes of their own.
 */
export async function startHaCluster(opts: Partial<Omit<TestClusterOptions, 'ha'>> & { lockNodes?: number } = {}): Promise<HaCluster> {
  const { lockNodes = 0, ...rest } = opts;
  const state = await startRedis({ appendOnly: true });
  const locks = await Promise.all(Array.from({ length: lockNodes }, () => startRedis()));
  const cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }, { attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    heartbeatMs: 300,
    heartbeatTimeoutMs: 3000,
    coordinators: 2,
    ...rest,
    ha: { state, lockNodes: locks.length > 0 ? locks : undefined, leaseTtlMs: 2000, retryIntervalMs: 200 },
  });
  return {
    cluster,
    state,
    locks,
    async stop() {
      await cluster.stop();
      await Promise.all([state, ...locks].map((r) => r.stop()));
    },
  };
}
