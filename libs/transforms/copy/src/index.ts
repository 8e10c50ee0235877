export { copyTransformFactory, copySpec } from './copy-transform.js';
