import { describe, expect, it } from 'vitest';
import { restoredCounters } from './transactions.js';

describe('EXACTLY_ONCE writer states after a restore', () => {
  it('at the same parallelism: the own entry, with or without its subtask', () => {
    expect(restoredCounters([{ subtask: 1, next: 7 }], 1, 2)).toEqual({ own: 7, retired: new Map() });
    // Written before the states named their subtask: the only one is the writer's own.
    expect(restoredCounters([{ next: 4 }], 0, 2)).toEqual({ own: 4, retired: new Map() });
    expect(restoredCounters([], 0, 1)).toEqual({ own: undefined, retired: new Map() });
  });

  it('at a lower parallelism: the entries of subtasks that no longer run are retired, to be aborted', () => {
    // 3 -> 1: writer 0 gets old writers 0, 1 and 2; writer 1 had already taken over a retired 4.
    const got = restoredCounters(
      [
        { subtask: 0, next: 3 },
        { subtask: 1, next: 9 },
        { subtask: 4, next: 2 },
        { subtask: 2, next: 5 },
      ],
      0,
      1,
    );
    expect(got).toEqual({
      own: 3,
      retired: new Map([
        [1, 9],
        [4, 2],
        [2, 5],
      ]),
    });
  });

  it("at a higher parallelism: another running writer's entry is dropped (that writer probes its own ids)", () => {
    // 2 -> 4 after 4 -> 2: old writer 1 still held retired 3, which runs again as writer 3.
    expect(
      restoredCounters(
        [
          { subtask: 1, next: 6 },
          { subtask: 3, next: 8 },
        ],
        1,
        4,
      ),
    ).toEqual({ own: 6, retired: new Map() });
  });

  it('refuses to guess whose unnamed states a merged writer got', () => {
    expect(() => restoredCounters([{ next: 3 }, { next: 5 }], 0, 1)).toThrow(
      /writer 0 was restored with 2 writers' states of a checkpoint written before .* restore it at the parallelism it had/,
    );
  });
});
