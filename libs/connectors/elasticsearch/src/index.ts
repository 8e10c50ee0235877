export { ES_SINK_SPEC, ES_SOURCE_SPEC } from './options.js';
export { elasticsearchSinkFactory } from './sink.js';
export { elasticsearchSourceFactory, type EsSplit } from './source.js';
