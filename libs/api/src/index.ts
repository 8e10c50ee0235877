export * from './types.js';
export * from './row.js';
export * from './options.js';
export * from './plugin.js';
export * from './type-parser.js';
export * from './resolved-options.js';
export * from './schema-config.js';
export * from './config-value.js';
