export { redisSourceFactory, type RedisSplit } from './source.js';
export { redisSinkFactory } from './sink.js';
export { REDIS_SOURCE_SPEC, REDIS_SINK_SPEC } from './options.js';
