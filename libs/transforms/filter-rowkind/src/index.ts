export { filterRowKindTransformFactory, filterRowKindSpec } from './filter-rowkind-transform.js';
