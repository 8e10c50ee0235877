export * from './planned-plugin.js';
export { isSimpleGraph, wirePlugins, type WiredEdge } from './wiring.js';
export * from './logical-dag.js';
export * from './pipeline-generator.js';
export * from './physical-plan.js';
export * from './job-plan.js';
export * from './plan-printer.js';
export * from './states.js';
