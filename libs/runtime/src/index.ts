export * from './descriptor.js';
export * from './protocol.js';
export * from './metrics.js';
export * from './task-group-thread.js';
