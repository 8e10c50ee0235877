export { jsonPathTransformFactory, jsonPathSpec } from './json-path-transform.js';
