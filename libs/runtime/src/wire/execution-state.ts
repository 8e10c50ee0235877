import { ExecutionState as WireExecutionState } from '@tideway/contracts';
import type { ExecutionState } from '@tideway/dag';
import type { TaskGroupExecutionState } from '../protocol.js';

/**
 * The task group's execution state on the wire, mapped here and nowhere else. Three
 * vocabularies meet: the proto enum `ExecutionState` (12 values, SeaTunnel's names for task
 * groups and tasks), the coordinator's tracked state (`@tideway/dag`'s ExecutionState, 9 values,
 * with its transition table), and what a worker says of a task group (its thread's report, 5
 * values, plus WAITING_RESTORE while a restored one waits for its state).
 *
 * | worker says     | proto           | coordinator tracks       |
 * |-----------------|-----------------|--------------------------|
 * | WAITING_RESTORE | WAITING_RESTORE | (ListTaskGroups only)    |
 * | RUNNING         | EXEC_RUNNING    | RUNNING                  |
 * | PREPARE_CLOSE   | PREPARE_CLOSE   | RUNNING, ready to close  |
 * | FINISHED        | EXEC_FINISHED   | FINISHED                 |
 * | FAILED          | EXEC_FAILED     | FAILED (and FAILING)     |
 * | CANCELED        | EXEC_CANCELED   | CANCELED                 |
 * |                 | INIT            | INITIALIZING, CREATED    |
 * |                 | DEPLOYING       | DEPLOYING                |
 * |                 | CANCELLING      | CANCELING                |
 *
 * READY_START, STARTING and CLOSED are task states no Tideway process sends today.
 */

/** What a worker says of one of its task groups. */
export type WorkerTaskGroupState = TaskGroupExecutionState | 'WAITING_RESTORE';

const WORKER_TO_WIRE: Record<WorkerTaskGroupState, WireExecutionState> = {
  WAITING_RESTORE: WireExecutionState.WAITING_RESTORE,
  RUNNING: WireExecutionState.EXEC_RUNNING,
  PREPARE_CLOSE: WireExecutionState.PREPARE_CLOSE,
  FINISHED: WireExecutionState.EXEC_FINISHED,
  FAILED: WireExecutionState.EXEC_FAILED,
  CANCELED: WireExecutionState.EXEC_CANCELED,
};

/** A task group's report (ReportTaskState) as the coordinator reads it back, by proto value. */
const REPORT_FROM_WIRE = new Map<WireExecutionState, TaskGroupExecutionState>(
  (['RUNNING', 'PREPARE_CLOSE', 'FINISHED', 'FAILED', 'CANCELED'] as const).map((s) => [WORKER_TO_WIRE[s], s]),
);

const TRACKED_TO_WIRE: Record<ExecutionState, WireExecutionState> = {
  INITIALIZING: WireExecutionState.INIT,
  CREATED: WireExecutionState.INIT,
  DEPLOYING: WireExecutionState.DEPLOYING,
  RUNNING: WireExecutionState.EXEC_RUNNING,
  FINISHED: WireExecutionState.EXEC_FINISHED,
  CANCELING: WireExecutionState.CANCELLING,
  CANCELED: WireExecutionState.EXEC_CANCELED,
  FAILING: WireExecutionState.EXEC_FAILED,
  FAILED: WireExecutionState.EXEC_FAILED,
};

/** The proto value of what a worker says of a task group (ReportTaskState, ListTaskGroups). */
export function workerStateToWire(state: WorkerTaskGroupState): WireExecutionState {
  return WORKER_TO_WIRE[state];
}

/**
 * A worker's ReportTaskState as the coordinator acts on it; undefined for a value no worker
 * reports (the report is then ignored, as an unknown value from a newer worker would be).
 */
export function reportedStateFromWire(state: WireExecutionState): TaskGroupExecutionState | undefined {
  return REPORT_FROM_WIRE.get(state);
}

/**
 * The proto value of a task group's state as the coordinator tracks it (JobInfo). `state` may
 * come from the state store (a name written by any version): a name this version does not
 * know is EXECUTION_STATE_UNSPECIFIED. A RUNNING task group that reported PREPARE_CLOSE
 * (`readyToClose`) shows as PREPARE_CLOSE.
 */
export function trackedStateToWire(state: string, readyToClose = false): WireExecutionState {
  if (readyToClose && state === 'RUNNING') return WireExecutionState.PREPARE_CLOSE;
  return Object.hasOwn(TRACKED_TO_WIRE, state) ? TRACKED_TO_WIRE[state as ExecutionState] : WireExecutionState.EXECUTION_STATE_UNSPECIFIED;
}
