import { describe, expect, it } from 'vitest';
import { CallClock } from './call-clock.js';

describe('CallClock', () => {
  it('shows the oldest call under way, through nested calls that end in any order', async () => {
    const clock = new CallClock();
    const reader = new CallClock(clock.buffer); // the main thread's view of the same memory
    expect(reader.current()).toBeUndefined();
    let endWrite!: () => void;
    const write = clock.run('write', 7, () => new Promise<void>((r) => (endWrite = r)));
    expect(reader.current()).toMatchObject({ kind: 'write', vertexId: 7 });
    const writeStart = reader.current()!.startedAt;
    let endCommit!: () => void;
    const commit = clock.run('commit', 9, () => new Promise<void>((r) => (endCommit = r)));
    // The write is older: it stays shown while the commit runs.
    expect(reader.current()).toMatchObject({ kind: 'write', vertexId: 7, startedAt: writeStart });
    endWrite();
    await write;
    expect(reader.current()).toMatchObject({ kind: 'commit', vertexId: 9 });
    endCommit();
    await commit;
    expect(reader.current()).toBeUndefined();
  });

  it('stops for a call that throws, sync or async', async () => {
    const clock = new CallClock();
    expect(() =>
      clock.run('transform', 3, () => {
        throw new Error('bad');
      }),
    ).toThrow('bad');
    expect(clock.current()).toBeUndefined();
    await expect(clock.run('read', 1, () => Promise.reject(new Error('away')))).rejects.toThrow('away');
    expect(clock.current()).toBeUndefined();
    expect(clock.run('read', 1, () => 5)).toBe(5);
  });
});
