export * from './state-store.js';
export { MemoryStateStore } from './memory-state-store.js';
export { RedisStateStore, type RedisStateStoreOptions } from './redis-state-store.js';
export * from './leader-election.js';
