export * from './task-execution-service.js';
export * from './server.js';
export * from './metrics.js';
