/**
 * What a completed checkpoint holds. Everything here is plain data (bigint, Map and
 * Uint8Array allowed): it is encoded with msgpackr and must survive the round trip unchanged.
 */

import type { CheckpointKind } from '@tideway/contracts';

/** Why a checkpoint was taken: the names of the wire module (libs/contracts/src/wire). */
export { CheckpointKind } from '@tideway/contracts';

/** The state one parallel task acknowledged with its barrier. */
export interface TaskState {
  /** The plan vertex (action) the task runs, e.g. `pipeline-1/source-0`. */
  readonly vertexId: string;
  readonly subtaskIndex: number;
  /** Opaque bytes or plain data, as the task produced it (reader splits, writer state). */
  readonly state: unknown;
}

/** The state of a source's split enumerator (one per source vertex). */
export interface EnumeratorState {
  readonly vertexId: string;
  readonly state: unknown;
}

/** Commit infos a sink had prepared but not yet committed when the checkpoint completed. */
export interface PendingCommit {
  /** The sink vertex whose (aggregated) committer must commit these after a restore. */
  readonly vertexId: string;
  readonly infos: readonly unknown[];
}

/** One completed checkpoint of one pipeline. */
export interface CompletedCheckpoint {
  readonly jobId: string;
  readonly pipelineId: number;
  /** Increases within a pipeline; starts at 1. */
  readonly checkpointId: number;
  /** Completion time, ms since the epoch. */
  readonly timestamp: number;
  readonly kind: CheckpointKind;
  readonly taskStates: readonly TaskState[];
  readonly enumeratorStates: readonly EnumeratorState[];
  readonly pendingCommitInfos: readonly PendingCommit[];
}

/** Where a stored checkpoint lives, known from a listing without reading it. */
export interface CheckpointRef {
  readonly jobId: string;
  readonly pipelineId: number;
  readonly checkpointId: number;
  /** The storage key of its data (relative to the storage's namespace). */
  readonly key: string;
  /** Bytes of its data, when the storage just wrote it (absent in listings). */
  readonly bytes?: number;
}

/** What `readLatest` found. */
export interface LatestCheckpoint {
  readonly checkpoint: CompletedCheckpoint;
  /**
   * Set when the checkpoint the "latest" pointer names (or the pointer itself) was missing or
   * corrupt and an older retained checkpoint was returned instead: one sentence naming what
   * was skipped and why.
   */
  readonly warning?: string;
  /** The checkpoints (or pointer) that were skipped, newest first. */
  readonly skipped: readonly string[];
}
