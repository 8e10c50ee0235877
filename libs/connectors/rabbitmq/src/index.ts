export { RABBITMQ_SINK_SPEC, RABBITMQ_SOURCE_SPEC } from './options.js';
export { rabbitmqSinkFactory } from './sink.js';
export { rabbitmqSourceFactory, type RabbitSplit } from './source.js';
