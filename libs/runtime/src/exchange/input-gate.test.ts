import { describe, expect, it } from 'vitest';
import { InputGate } from './input-gate.js';

const b = (n: number) => new Uint8Array([n]);

describe('InputGate (barrier alignment)', () => {
  it('holds back batches of a channel that delivered the barrier until all channels did', () => {
    const gate = new InputGate([0, 1]);
    expect(gate.offer(0, b(1))).toBe(true);
    expect(gate.onBarrier(0, 7, 'CHECKPOINT')).toBeUndefined();
    expect(gate.offer(0, b(2))).toBe(false); // after the barrier: belongs to the next epoch
    expect(gate.offer(1, b(3))).toBe(true); // before its barrier: still this epoch
    expect(gate.onBarrier(1, 7, 'CHECKPOINT')).toEqual({ checkpointId: 7, kind: 'CHECKPOINT' });
    expect(gate.release()).toEqual([{ channel: 0, rows: b(2) }]);
    expect(gate.offer(0, b(4))).toBe(true);
  });

  it('reports when every channel has ended', () => {
    const gate = new InputGate([0, 1, 2]);
    expect(gate.onEnd(0)).toBe(false);
    expect(gate.onEnd(2)).toBe(false);
    expect(gate.onEnd(1)).toBe(true);
  });

  it('refuses a second checkpoint while one is being aligned', () => {
    const gate = new InputGate([0, 1]);
    gate.onBarrier(0, 1, 'CHECKPOINT');
    expect(() => gate.onBarrier(1, 2, 'CHECKPOINT')).toThrow(/aligning checkpoint 1/);
  });
});
