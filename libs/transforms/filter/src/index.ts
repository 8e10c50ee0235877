export { filterTransformFactory, filterSpec } from './filter-transform.js';
