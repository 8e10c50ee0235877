export * from './sequence-source.js';
