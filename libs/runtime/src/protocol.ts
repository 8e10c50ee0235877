import type { SerializedError } from '@tideway/common';
import type { CheckpointKind } from '@tideway/contracts';
import type { CommitInfos, TaskGroupDescriptor, TaskGroupMetrics, TaskGroupState } from './descriptor.js';

/**
 * Messages between a worker's main thread and a task group's worker thread. Structured
 * clone carries them, so bigint, Map and Uint8Array survive.
 */

export type { CheckpointKind };

/** Main thread -> task group thread. */
/** A plugin by its type and name as a job config writes it (`source`, `FakeSource`). */
export interface PluginRef {
  type: 'source' | 'transform' | 'sink';
  name: string;
}

export type ToTaskGroup =
  | { type: 'start'; descriptor: TaskGroupDescriptor }
  /** A spare thread's head start: import these plugins' packages now, before its task group comes. */
  | { type: 'preload'; plugins: PluginRef[] }
  | { type: 'splits'; sourceVertexId: number; splits: unknown[]; noMoreSplits: boolean }
  | { type: 'trigger-checkpoint'; checkpointId: number; kind: CheckpointKind }
  | { type: 'checkpoint-complete'; checkpointId: number; kind: CheckpointKind }
  | { type: 'checkpoint-aborted'; checkpointId: number }
  | { type: 'cancel'; reason: string }
  /** A batch that arrived on a shuffle channel from upstream task group `channel`. */
  | { type: 'exchange-batch'; channel: number; rows: Uint8Array }
  | { type: 'exchange-barrier'; channel: number; checkpointId: number; kind: CheckpointKind }
  /** Upstream task group `channel` will send no more rows (barriers may still follow). */
  | { type: 'exchange-end'; channel: number };

/** Execution states a task group reports (SeaTunnel's names). */
export type TaskGroupExecutionState = 'RUNNING' | 'PREPARE_CLOSE' | 'FINISHED' | 'FAILED' | 'CANCELED';

/** Task group thread -> main thread. */
export type FromTaskGroup =
  | { type: 'state'; state: TaskGroupExecutionState; error?: SerializedError }
  | { type: 'split-request'; sourceVertexId: number; register: boolean }
  /** A reader's event for its enumerator (SourceReaderContext.sendSourceEvent). */
  | { type: 'source-event'; sourceVertexId: number; event: unknown }
  | { type: 'checkpoint-ack'; checkpointId: number; state: TaskGroupState; commitInfos: CommitInfos }
  | { type: 'checkpoint-failed'; checkpointId: number; error: SerializedError }
  | { type: 'metrics'; metrics: TaskGroupMetrics }
  /** The reader emitted a schema change (changes in words; none for a created table), for the job's event receivers. */
  | { type: 'schema-change'; tableId: string; changes: string[]; created: boolean }
  /** Grants upstream task group `channel` more batches (it processed some). */
  | { type: 'exchange-credit'; channel: number; batches: number };
