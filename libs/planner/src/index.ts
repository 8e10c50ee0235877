export * from './planner.js';
