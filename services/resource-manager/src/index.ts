export * from './slot-allocator.js';
export * from './resource-manager.js';
export * from './server.js';
export * from './metrics.js';
