export * from './descriptor.js';
export * from './protocol.js';
export * from './metrics.js';
export * from './task-group-thread.js';
export { KIND_OF_BARRIER, BARRIER_KIND } from './exchange/channel-sender.js';
