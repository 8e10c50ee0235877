import { StateMachineSpec } from '@tideway/common';

/**
 * Status of a job (SeaTunnel's JobStatus).
 *
 * ```
 *  CREATED ──> PENDING ──> SCHEDULED ──> RUNNING ──────────────> FINISHED
 *     │           │            │          │    ▲
 *     │           │            │          │    │ (savepoint aborted)
 *     │           │            │          ▼    │
 *     │           │            │       DOING_SAVEPOINT ────────> SAVEPOINT_DONE
 *     │           │            │          │
 *     ├───────────┴────────────┴──────────┴──> FAILING ──> FAILED
 *     └───────────┴────────────┴──────────┴──> CANCELING ──> CANCELED
 *  CREATED, PENDING ──> FAILED    (refused before anything was deployed, e.g. no enough resource)
 *  CREATED, PENDING ──> CANCELED  (cancelled before anything was deployed)
 * ```
 * Terminal: FAILED, SAVEPOINT_DONE, CANCELED, FINISHED.
 */
export const JobStatus = {
  CREATED: 'CREATED',
  PENDING: 'PENDING',
  SCHEDULED: 'SCHEDULED',
  RUNNING: 'RUNNING',
  FAILING: 'FAILING',
  FAILED: 'FAILED',
  DOING_SAVEPOINT: 'DOING_SAVEPOINT',
  SAVEPOINT_DONE: 'SAVEPOINT_DONE',
  CANCELING: 'CANCELING',
  CANCELED: 'CANCELED',
  FINISHED: 'FINISHED',
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

export const JOB_STATUS = new StateMachineSpec<JobStatus>(
  'job',
  {
    CREATED: ['PENDING', 'FAILING', 'FAILED', 'CANCELING', 'CANCELED'],
    PENDING: ['SCHEDULED', 'FAILING', 'FAILED', 'CANCELING', 'CANCELED'],
    SCHEDULED: ['RUNNING', 'FAILING', 'CANCELING'],
    RUNNING: ['FINISHED', 'DOING_SAVEPOINT', 'FAILING', 'CANCELING'],
    DOING_SAVEPOINT: ['SAVEPOINT_DONE', 'RUNNING', 'FAILING', 'CANCELING'],
    FAILING: ['FAILED'],
    CANCELING: ['CANCELED'],
    FAILED: [],
    SAVEPOINT_DONE: [],
    CANCELED: [],
    FINISHED: [],
  },
  ['FAILED', 'SAVEPOINT_DONE', 'CANCELED', 'FINISHED'],
);

/**
 * Status of a pipeline (SeaTunnel's PipelineStatus).
 *
 * ```
 *  INITIALIZING ──> CREATED ──> SCHEDULED ──> DEPLOYING ──> RUNNING ──> FINISHED
 *       │              │            │             │            │
 *       ├──────────────┴────────────┴─────────────┴────────────┴──> FAILING ──> FAILED
 *       └──────────────┴────────────┴─────────────┴────────────┴──> CANCELING ──> CANCELED
 * ```
 * INITIALIZING: restoring the last valid state before a (re)start. Terminal: FINISHED, FAILED,
 * CANCELED. A failover does not leave a terminal state: once the failed attempt has stopped,
 * FAILING goes to INITIALIZING and a new attempt restores from the latest checkpoint.
 */
export const PipelineStatus = {
  INITIALIZING: 'INITIALIZING',
  CREATED: 'CREATED',
  SCHEDULED: 'SCHEDULED',
  DEPLOYING: 'DEPLOYING',
  RUNNING: 'RUNNING',
  FINISHED: 'FINISHED',
  CANCELING: 'CANCELING',
  CANCELED: 'CANCELED',
  FAILING: 'FAILING',
  FAILED: 'FAILED',
} as const;
export type PipelineStatus = (typeof PipelineStatus)[keyof typeof PipelineStatus];

export const PIPELINE_STATUS = new StateMachineSpec<PipelineStatus>(
  'pipeline',
  {
    INITIALIZING: ['CREATED', 'FAILING', 'CANCELING'],
    CREATED: ['SCHEDULED', 'FAILING', 'CANCELING'],
    SCHEDULED: ['DEPLOYING', 'FAILING', 'CANCELING'],
    DEPLOYING: ['RUNNING', 'FAILING', 'CANCELING'],
    RUNNING: ['FINISHED', 'FAILING', 'CANCELING'],
    // A failover: the failed attempt has stopped and a new one restores from a checkpoint.
    FAILING: ['FAILED', 'INITIALIZING'],
    CANCELING: ['CANCELED'],
    FINISHED: [],
    FAILED: [],
    CANCELED: [],
  },
  ['FINISHED', 'FAILED', 'CANCELED'],
);

/**
 * State of a task group as the coordinator tracks it (SeaTunnel's ExecutionState, held by
 * each PhysicalVertex).
 *
 * ```
 *  INITIALIZING ──> CREATED ──> DEPLOYING ──> RUNNING ──> FINISHED
 *                                               │  └────> FAILED, CANCELED  (as the worker reports)
 *  any non-terminal ──> FAILING ──> FAILED
 *  any non-terminal ──> CANCELING ──> CANCELED
 *                          └──> FAILED, FINISHED  (the worker's report of how it really ended wins)
 * ```
 * Terminal: FINISHED, FAILED, CANCELED.
 */
export const ExecutionState = {
  INITIALIZING: 'INITIALIZING',
  CREATED: 'CREATED',
  DEPLOYING: 'DEPLOYING',
  RUNNING: 'RUNNING',
  FINISHED: 'FINISHED',
  CANCELING: 'CANCELING',
  CANCELED: 'CANCELED',
  FAILING: 'FAILING',
  FAILED: 'FAILED',
} as const;
export type ExecutionState = (typeof ExecutionState)[keyof typeof ExecutionState];

export const EXECUTION_STATE = new StateMachineSpec<ExecutionState>(
  'task group',
  {
    INITIALIZING: ['CREATED', 'FAILING', 'CANCELING'],
    CREATED: ['DEPLOYING', 'FAILING', 'CANCELING'],
    DEPLOYING: ['RUNNING', 'FAILING', 'CANCELING'],
    RUNNING: ['FINISHED', 'FAILED', 'CANCELED', 'FAILING', 'CANCELING'],
    FAILING: ['FAILED'],
    CANCELING: ['CANCELED', 'FAILED', 'FINISHED'],
    FINISHED: [],
    FAILED: [],
    CANCELED: [],
  },
  ['FINISHED', 'FAILED', 'CANCELED'],
);

/**
 * State of one task inside a task group on a worker (SeaTunnel's SeaTunnelTaskState).
 *
 * ```
 *  CREATED ──> INIT ──> WAITING_RESTORE ──> READY_START ──> STARTING ──> RUNNING ──> PREPARE_CLOSE ──> CLOSED
 *                └─────────────────────────────^  (fresh start: nothing to restore)
 *  any non-terminal ──> CANCELLING ──> CANCELED
 *  any non-terminal ──> FAILED
 * ```
 * CLOSED is the successful end. Terminal: CLOSED, CANCELED, FAILED. A failed task is not
 * restarted in place: its pipeline fails over and deploys new tasks.
 */
export const TaskState = {
  CREATED: 'CREATED',
  INIT: 'INIT',
  WAITING_RESTORE: 'WAITING_RESTORE',
  READY_START: 'READY_START',
  STARTING: 'STARTING',
  RUNNING: 'RUNNING',
  PREPARE_CLOSE: 'PREPARE_CLOSE',
  CLOSED: 'CLOSED',
  CANCELLING: 'CANCELLING',
  CANCELED: 'CANCELED',
  FAILED: 'FAILED',
} as const;
export type TaskState = (typeof TaskState)[keyof typeof TaskState];

export const TASK_STATE = new StateMachineSpec<TaskState>(
  'task',
  {
    CREATED: ['INIT', 'CANCELLING', 'FAILED'],
    INIT: ['WAITING_RESTORE', 'READY_START', 'CANCELLING', 'FAILED'],
    WAITING_RESTORE: ['READY_START', 'CANCELLING', 'FAILED'],
    READY_START: ['STARTING', 'CANCELLING', 'FAILED'],
    STARTING: ['RUNNING', 'CANCELLING', 'FAILED'],
    RUNNING: ['PREPARE_CLOSE', 'CANCELLING', 'FAILED'],
    PREPARE_CLOSE: ['CLOSED', 'CANCELLING', 'FAILED'],
    CANCELLING: ['CANCELED', 'FAILED'],
    CLOSED: [],
    CANCELED: [],
    FAILED: [],
  },
  ['CLOSED', 'CANCELED', 'FAILED'],
);
