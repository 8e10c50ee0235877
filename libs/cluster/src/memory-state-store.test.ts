import { MemoryStateStore } from './memory-state-store.js';
import { stateStoreContract } from './test/state-store-contract.js';

stateStoreContract('MemoryStateStore', async () => new MemoryStateStore());
