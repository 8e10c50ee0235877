export * from './server.js';
export * from './errors.js';
export * from './handlers.js';
export * from './client.js';
export * from './epoch.js';
export * from './leader-caller.js';
export * from './tls.js';
export * from './https-tls.js';
