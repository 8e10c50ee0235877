import { ConfigError, ErrorCode } from '@tideway/common';
import type { EngineConfig } from '@tideway/config';
import { SoleLeaderElection, type LeaderElection } from './leader-election.js';
import { MemoryStateStore } from './memory-state-store.js';
import type { StateStore } from './state-store.js';

/** The state store an engine config names (tideway.state-store). */
export function stateStoreFromConfig(engine: EngineConfig): StateStore {
  if (engine.tideway.stateStore.type === 'memory') return new MemoryStateStore();
  throw new ConfigError(ErrorCode.ENGINE_CONFIG, 'tideway.state-store.type redis: the Redis state store is not in this build');
}

/** The leader election an engine config implies: Redlock with a Redis store, sole otherwise. */
export function electionFromConfig(engine: EngineConfig, store: StateStore, address: string): LeaderElection {
  return new SoleLeaderElection(store, address);
}
