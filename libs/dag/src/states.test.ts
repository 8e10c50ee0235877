import { ErrorCode, IllegalTransitionError, type StateMachineSpec } from '@tideway/common';
import { describe, expect, it } from 'vitest';
import { EXECUTION_STATE, JOB_STATUS, PIPELINE_STATUS, TASK_STATE } from './states.js';

/**
 * The legal moves, written out independently of states.ts so that a change to a table is a
 * deliberate change to this list too. `A>B,C` means A may go to B and to C.
 */
const EXPECTED: Record<string, { spec: StateMachineSpec<string>; legal: string[]; terminal: string[]; happy: string[] }> = {
  job: {
    spec: JOB_STATUS,
    legal: [
      'CREATED>PENDING,FAILING,FAILED,CANCELING,CANCELED',
      'PENDING>SCHEDULED,FAILING,FAILED,CANCELING,CANCELED',
      'SCHEDULED>RUNNING,FAILING,CANCELING',
      'RUNNING>FINISHED,DOING_SAVEPOINT,FAILING,CANCELING',
      'DOING_SAVEPOINT>SAVEPOINT_DONE,RUNNING,FAILING,CANCELING',
      'FAILING>FAILED',
      'CANCELING>CANCELED',
    ],
    terminal: ['FAILED', 'SAVEPOINT_DONE', 'CANCELED', 'FINISHED'],
    happy: ['CREATED', 'PENDING', 'SCHEDULED', 'RUNNING', 'FINISHED'],
  },
  pipeline: {
    spec: PIPELINE_STATUS,
    legal: [
      'INITIALIZING>CREATED,FAILING,CANCELING',
      'CREATED>SCHEDULED,FAILING,CANCELING',
      'SCHEDULED>DEPLOYING,FAILING,CANCELING',
      'DEPLOYING>RUNNING,FAILING,CANCELING',
      'RUNNING>FINISHED,FAILING,CANCELING',
      'FAILING>FAILED,INITIALIZING',
      'CANCELING>CANCELED',
    ],
    terminal: ['FINISHED', 'FAILED', 'CANCELED'],
    happy: ['INITIALIZING', 'CREATED', 'SCHEDULED', 'DEPLOYING', 'RUNNING', 'FINISHED'],
  },
  'task group': {
    spec: EXECUTION_STATE,
    legal: [
      'INITIALIZING>CREATED,FAILING,CANCELING',
      'CREATED>DEPLOYING,FAILING,CANCELING',
      'DEPLOYING>RUNNING,FAILING,CANCELING',
      'RUNNING>FINISHED,FAILED,CANCELED,FAILING,CANCELING',
      'FAILING>FAILED',
      'CANCELING>CANCELED,FAILED,FINISHED',
    ],
    terminal: ['FINISHED', 'FAILED', 'CANCELED'],
    happy: ['CREATED', 'DEPLOYING', 'RUNNING', 'FINISHED'],
  },
  task: {
    spec: TASK_STATE,
    legal: [
      'CREATED>INIT,CANCELLING,FAILED',
      'INIT>WAITING_RESTORE,READY_START,CANCELLING,FAILED',
      'WAITING_RESTORE>READY_START,CANCELLING,FAILED',
      'READY_START>STARTING,CANCELLING,FAILED',
      'STARTING>RUNNING,CANCELLING,FAILED',
      'RUNNING>PREPARE_CLOSE,CANCELLING,FAILED',
      'PREPARE_CLOSE>CLOSED,CANCELLING,FAILED',
      'CANCELLING>CANCELED,FAILED',
    ],
    terminal: ['CLOSED', 'CANCELED', 'FAILED'],
    happy: ['CREATED', 'INIT', 'WAITING_RESTORE', 'READY_START', 'STARTING', 'RUNNING', 'PREPARE_CLOSE', 'CLOSED'],
  },
};

describe.each(Object.entries(EXPECTED))('%s state machine', (name, { spec, legal, terminal, happy }) => {
  const allowed = new Set(
    legal.flatMap((line) => {
      const [from, to] = line.split('>');
      return to.split(',').map((t) => `${from}>${t}`);
    }),
  );

  it('allows exactly the listed moves and throws IllegalTransitionError for every other', () => {
    const states = spec.states();
    for (const from of states) {
      for (const to of states) {
        if (allowed.has(`${from}>${to}`)) {
          expect(spec.transition(from, to)).toBe(to);
        } else {
          let thrown: unknown;
          try {
            spec.transition(from, to);
          } catch (e) {
            thrown = e;
          }
          expect(thrown, `${name} ${from} -> ${to}`).toBeInstanceOf(IllegalTransitionError);
          expect((thrown as IllegalTransitionError).code).toBe(ErrorCode.ILLEGAL_TRANSITION);
          expect((thrown as Error).message).toBe(`${name} cannot go from ${from} to ${to}`);
        }
      }
    }
    // Every listed move names real states.
    for (const move of allowed) for (const s of move.split('>')) expect(states).toContain(s);
  });

  it('takes a recorded state back (a take-over) only when the table knows it', () => {
    for (const st of spec.states()) expect(spec.restored(st)).toBe(st);
    for (const bad of ['NOPE', 'toString', '']) {
      expect(() => spec.restored(bad), bad).toThrow(IllegalTransitionError);
    }
  });

  it('marks exactly the terminal states terminal, and they have no way out', () => {
    for (const s of spec.states()) {
      expect(spec.isTerminal(s), s).toBe(terminal.includes(s));
      if (terminal.includes(s)) for (const to of spec.states()) expect(spec.canTransition(s, to)).toBe(false);
    }
  });

  it('walks the successful path and can reach a terminal state from every state', () => {
    happy.reduce((from, to) => spec.transition(from, to));
    for (const start of spec.states()) {
      const seen = new Set([start]);
      const queue = [start];
      while (queue.length) {
        const s = queue.shift()!;
        for (const to of spec.states())
          if (spec.canTransition(s, to) && !seen.has(to)) {
            seen.add(to);
            queue.push(to);
          }
      }
      expect(
        [...seen].some((s) => spec.isTerminal(s)),
        start,
      ).toBe(true);
    }
  });
});
