import type { SerializedError } from '@tideway/common';
import type { CommitInfos, TaskGroupDescriptor, TaskGroupMetrics, TaskGroupState } from './descriptor.js';


/**
 * Messages between a worker's main thread and a task group's worker thread. Structured
 * clone carries them, so bigint, Map and Uint8Array survive.
 */

export type CheckpointKind = 'CHECKPOINT' | 'SAVEPOINT' | 'COMPLETED_POINT';

/** Main thread -> task group thread. */
export type ToTaskGroup =
  | { type: 'start'; descriptor: TaskGroupDescriptor }
  | { type: 'splits'; sourceVertexId: number; splits: unknown[]; noMoreSplits: boolean }
  | { type: 'trigger-checkpoint'; checkpointId: number; kind: CheckpointKind }
  | { type: 'checkpoint-complete'; checkpointId: number; kind: CheckpointKind }
  | { type: 'checkpoint-aborted'; checkpointId: number }
  | { type: 'cancel'; reason: string };

/** Execution states a task group reports (SeaTunnel's names). */
export type TaskGroupExecutionState = 'RUNNING' | 'PREPARE_CLOSE' | 'FINISHED' | 'FAILED' | 'CANCELED';

/** Task group thread -> main thread. */
export type FromTaskGroup =
  | { type: 'state'; state: TaskGroupExecutionState; error?: SerializedError }
  | { type: 'split-request'; sourceVertexId: number; register: boolean }
  | { type: 'checkpoint-ack'; checkpointId: number; state: TaskGroupState; commitInfos: CommitInfos }
  | { type: 'checkpoint-failed'; checkpointId: number; error: SerializedError }
  | { type: 'metrics'; metrics: TaskGroupMetrics };
