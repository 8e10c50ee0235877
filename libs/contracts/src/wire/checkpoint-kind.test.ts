import { describe, expect, it } from 'vitest';
import { CheckpointType } from '../gen/tideway/v1/common.pb.js';
import { CheckpointKind, checkpointKindFromWire, checkpointKindToWire } from './checkpoint-kind.js';

describe('checkpoint kind on the wire', () => {
  it('maps every kind to its proto value and back', () => {
    expect(Object.values(CheckpointKind).map((k) => [k, checkpointKindToWire(k)])).toEqual([
      ['CHECKPOINT', CheckpointType.CHECKPOINT],
      ['SAVEPOINT', CheckpointType.SAVEPOINT],
      ['COMPLETED_POINT', CheckpointType.COMPLETED_POINT],
    ]);
    for (const k of Object.values(CheckpointKind)) expect(checkpointKindFromWire(checkpointKindToWire(k))).toBe(k);
  });

  it('keeps the numbers the bare uint32 of Barrier.type had (1, 2, 3)', () => {
    expect([CheckpointType.CHECKPOINT, CheckpointType.SAVEPOINT, CheckpointType.COMPLETED_POINT]).toEqual([1, 2, 3]);
  });

  it('reads unset and unknown values as a periodic checkpoint', () => {
    expect(checkpointKindFromWire(CheckpointType.CHECKPOINT_TYPE_UNSPECIFIED)).toBe('CHECKPOINT');
    expect(checkpointKindFromWire(9 as CheckpointType)).toBe('CHECKPOINT');
    expect(checkpointKindFromWire(CheckpointType.UNRECOGNIZED)).toBe('CHECKPOINT');
  });
});
