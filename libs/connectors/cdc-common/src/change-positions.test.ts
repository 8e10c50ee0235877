import { describe, expect, it } from 'vitest';
import { checkpointedStreamPosition } from './change-positions.js';

describe('checkpointedStreamPosition', () => {
  it("finds the stream split among a reader state's splits, and nothing in a snapshot-only state", () => {
    const chunk = { splitId: 't:0', kind: 'snapshot', tableId: 'db.t' };
    expect(
      checkpointedStreamPosition({ splits: [chunk, { splitId: 'stream', kind: 'stream', position: '0/16B3748', skip: 0, chunks: [] }] }),
    ).toBe('0/16B3748');
    expect(checkpointedStreamPosition([chunk])).toBeUndefined();
  });
});
