import { describe, expect, it } from 'vitest';
import { CallClock, overdueCall } from './call-clock.js';

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

  it('names a coordinator-side call, with the limit of its kind, once it is past it', () => {
    const clock = new CallClock();
    const reader = new CallClock(clock.buffer);
    let seen: ReturnType<CallClock['current']>;
    clock.runNamed('SplitEnumerator.handleSplitRequest', 4, () => {
      seen = reader.current();
    });
    expect(seen).toMatchObject({ kind: 'enumerate', vertexId: 4, method: 'SplitEnumerator.handleSplitRequest' });
    const plugin = { type: 'source', name: 'Spins', file: 'job.conf', line: 3 };
    const started = { ...seen!, startedAt: Date.now() - 5000 };
    expect(overdueCall(started, { enumerate: 3000 }, plugin)).toBe(
      'source Spins (job.conf:3): its SplitEnumerator.handleSplitRequest call did not return within 3 s (tideway.plugin-call-timeout.enumerate)',
    );
    expect(overdueCall(started, { enumerate: 6000 }, plugin)).toBeUndefined();
    expect(overdueCall(started, { enumerate: 0 }, plugin)).toBeUndefined();
    // A worker-side call without a name: its kind's methods.
    expect(overdueCall({ kind: 'write', vertexId: 2, startedAt: 0 }, { write: 1000 })).toBe(
      'vertex 2: its SinkWriter.write call did not return within 1 s (tideway.plugin-call-timeout.write)',
    );
  });
});
