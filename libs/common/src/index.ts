export * from './errors.js';
export * from './logger.js';
export * from './ids.js';
export * from './backoff.js';
export * from './state-machine.js';
export * from './fault-budget.js';
export * from './file-errors.js';
export * from './secrets.js';
