import { describe, expect, it } from 'vitest';
import { ExecutionState as Wire } from '@tideway/contracts';
import { ExecutionState } from '@tideway/dag';
import { reportedStateFromWire, trackedStateToWire, workerStateToWire } from './execution-state.js';
import type { TaskGroupExecutionState } from '../protocol.js';

const REPORTED: TaskGroupExecutionState[] = ['RUNNING', 'PREPARE_CLOSE', 'FINISHED', 'FAILED', 'CANCELED'];

describe('execution state on the wire', () => {
  it('reads back every state a worker reports as the same state', () => {
    for (const s of REPORTED) expect(reportedStateFromWire(workerStateToWire(s))).toBe(s);
    expect(REPORTED.map(workerStateToWire)).toEqual([
      Wire.EXEC_RUNNING,
      Wire.PREPARE_CLOSE,
      Wire.EXEC_FINISHED,
      Wire.EXEC_FAILED,
      Wire.EXEC_CANCELED,
    ]);
  });

  it('says WAITING_RESTORE for a restored task group waiting for its state, which is no report', () => {
    expect(workerStateToWire('WAITING_RESTORE')).toBe(Wire.WAITING_RESTORE);
    expect(reportedStateFromWire(Wire.WAITING_RESTORE)).toBeUndefined();
  });

  it('ignores values no worker reports (unset, task states, a newer version)', () => {
    for (const w of [Wire.EXECUTION_STATE_UNSPECIFIED, Wire.INIT, Wire.DEPLOYING, Wire.CLOSED, Wire.CANCELLING, 99 as Wire]) {
      expect(reportedStateFromWire(w)).toBeUndefined();
    }
  });

  it("shows each of the coordinator's tracked states", () => {
    expect(Object.values(ExecutionState).map((s) => [s, trackedStateToWire(s)])).toEqual([
      ['INITIALIZING', Wire.INIT],
      ['CREATED', Wire.INIT],
      ['DEPLOYING', Wire.DEPLOYING],
      ['RUNNING', Wire.EXEC_RUNNING],
      ['FINISHED', Wire.EXEC_FINISHED],
      ['CANCELING', Wire.CANCELLING],
      ['CANCELED', Wire.EXEC_CANCELED],
      ['FAILING', Wire.EXEC_FAILED],
      ['FAILED', Wire.EXEC_FAILED],
    ]);
  });

  it('shows a RUNNING task group ready to close as PREPARE_CLOSE, and a name it does not know as unspecified', () => {
    expect(trackedStateToWire('RUNNING', true)).toBe(Wire.PREPARE_CLOSE);
    expect(trackedStateToWire('FINISHED', true)).toBe(Wire.EXEC_FINISHED);
    expect(trackedStateToWire('SUSPENDED')).toBe(Wire.EXECUTION_STATE_UNSPECIFIED);
    expect(trackedStateToWire('toString')).toBe(Wire.EXECUTION_STATE_UNSPECIFIED);
  });
});
