export { splitTransformFactory, splitSpec } from './split-transform.js';
