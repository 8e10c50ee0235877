export * from './state-store.js';
export { MemoryStateStore } from './memory-state-store.js';
export * from './leader-election.js';
export { stateStoreFromConfig, electionFromConfig } from './from-config.js';
