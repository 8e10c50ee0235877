/** The task-group side of shuffles, loaded on demand by TaskGroupRunner. */
export { InputGate } from './input-gate.js';
export { ShuffleWriter } from './shuffle-writer.js';
export { decodeExchanged, decodeRows } from './row-codec.js';
