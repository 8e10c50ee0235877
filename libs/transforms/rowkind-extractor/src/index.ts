export { rowKindExtractorTransformFactory, rowKindExtractorSpec } from './rowkind-extractor-transform.js';
