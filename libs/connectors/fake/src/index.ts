import type { SourceFactory } from '@tideway/api';
import { FakeSource } from './source.js';
import { FAKE_SOURCE_SPEC } from './spec.js';

export { FakeSource } from './source.js';
export { FakeSourceReader, FAKE_BATCH_ROWS } from './reader.js';
export { FakeSplitEnumerator } from './enumerator.js';
export type { FakeEnumeratorState } from './enumerator.js';
export type { FakeSplit } from './splits.js';
export { discoverSplits } from './splits.js';
export { FAKE_SOURCE_SPEC } from './spec.js';

/** SeaTunnel's FakeSource: generated or explicit rows for tests and benchmarks. */
export const fakeSourceFactory: SourceFactory = {
  type: 'source',
  name: 'FakeSource',
  description:
    'A virtual source that generates rows from a declared schema: random values per type (with range or template modes per type), or explicit rows with row kinds; one or several tables; row.num rows per parallel reader, cut into split.num splits. Bounded in BATCH jobs; in STREAMING jobs it keeps running after its rows.',
  spec: FAKE_SOURCE_SPEC,
  create: (ctx) => new FakeSource(ctx),
};
