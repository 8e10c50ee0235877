export { HTTP_SINK_SPEC, HTTP_SOURCE_SPEC } from './options.js';
export { httpSinkFactory } from './sink.js';
export { httpSourceFactory, type HttpSplit } from './source.js';
export { closeAgents, newAgents, send, shownUrl, type Agents, type HttpAnswer, type RequestSettings } from './client.js';
