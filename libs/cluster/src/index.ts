export * from './state-store.js';
export type { StoredToken, TokenStore } from './token-store.js';
export { MemoryStateStore } from './memory-state-store.js';
export { RedisStateStore, type RedisStateStoreOptions } from './redis-state-store.js';
export * from './leader-election.js';
export { RedlockElection, type RedlockElectionOptions } from './redlock-election.js';
export { stateStoreFromConfig, electionFromConfig } from './from-config.js';
export { STATE_FORMAT_VERSION, OLDEST_READABLE_STATE_FORMAT } from './state-format.js';
