import type { EngineConfig } from '@tideway/config';
import { SoleLeaderElection, type LeaderElection } from './leader-election.js';
import { MemoryStateStore } from './memory-state-store.js';
import { RedisStateStore } from './redis-state-store.js';
import { RedlockElection } from './redlock-election.js';
import type { StateStore } from './state-store.js';

/**
 * The state store the engine config asks for (`tideway.state-store`), not opened yet: memory,
 * or Redis at `state-store.redis.address` with its key prefix and WAIT settings.
 */
export function stateStoreFromConfig(engine: EngineConfig): StateStore {
  const { type, redis } = engine.tideway.stateStore;
  if (type === 'memory') return new MemoryStateStore();
  return new RedisStateStore({
    address: redis.address,
    password: redis.password || undefined,
    keyPrefix: redis.keyPrefix,
    waitReplicas: redis.waitReplicas,
    waitTimeoutMs: redis.waitTimeout,
  });
}

/**
 * The leader election that goes with the store: the sole coordinator for the memory store, a
 * Redlock lease on `ha.lock-nodes` (the state Redis when none are listed; the state store's
 * password) for the Redis store, its key under the same prefix (`<prefix>leader-lease`).
 * `address` is this coordinator's, as the others and the workers dial it.
 */
export function electionFromConfig(engine: EngineConfig, store: StateStore, address: string, epochFloor?: () => number): LeaderElection {
  const { type, redis } = engine.tideway.stateStore;
  if (type === 'memory') return new SoleLeaderElection(store, address);
  const ha = engine.tideway.ha;
  return new RedlockElection({
    nodes: ha.lockNodes,
    password: redis.password || undefined,
    key: `${redis.keyPrefix}leader-lease`,
    leaseTtlMs: ha.leaseTtl,
    retryIntervalMs: ha.retryInterval,
    store,
    address,
    epochFloor,
  });
}
