export { replaceTransformFactory, replaceSpec } from './replace-transform.js';
