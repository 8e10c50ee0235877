import type { CompletedCheckpoint as StoredCheckpoint } from '@tideway/checkpoint';
import type { SourceSplit } from '@tideway/api';
import type { TaskGroupState } from '@tideway/runtime';
import type { CompletedCheckpoint } from './checkpoint-coordinator.js';

/** Task group states are stored under this vertex name (a fused task group has one state). */
const TASK_GROUP_VERTEX = 'task-group';

/**
 * A completed checkpoint as storage keeps it. Splits that were assigned but not yet delivered
 * when the enumerator was snapshotted are added to their reader's state, so a restore hands
 * them to the reader they were meant for.
 */
export function toStored(
  jobId: string,
  pipelineId: number,
  cp: CompletedCheckpoint,
  sourceVertexId: number,
  undelivered: Record<number, SourceSplit[]>,
): StoredCheckpoint {
  const taskStates = Object.entries(cp.taskStates).map(([tg, state]) => {
    const extra = undelivered[Number(tg)] ?? [];
    const merged: TaskGroupState =
      extra.length === 0
        ? state
        : {
            ...state,
            readerSplits: { ...state.readerSplits, [sourceVertexId]: [...(state.readerSplits[sourceVertexId] ?? []), ...extra] },
          };
    return { vertexId: TASK_GROUP_VERTEX, subtaskIndex: Number(tg), state: merged };
  });
  return {
    jobId,
    pipelineId,
    checkpointId: cp.checkpointId,
    timestamp: cp.timestamp,
    kind: cp.kind,
    taskStates,
    enumeratorStates: Object.entries(cp.enumeratorStates).map(([v, state]) => ({ vertexId: v, state })),
    pendingCommitInfos: Object.entries(cp.commitInfos).map(([v, infos]) => ({ vertexId: v, infos })),
  };
}

/** What a pipeline restores from: per task group state, enumerator states, pending commits. */
export interface RestorePoint {
  checkpointId: number;
  kind: string;
  taskStates: Map<number, TaskGroupState>;
  enumeratorStates: Map<number, unknown>;
  pendingCommits: Map<number, unknown[]>;
}

export function restorePointOf(cp: StoredCheckpoint): RestorePoint {
  return {
    checkpointId: cp.checkpointId,
    kind: cp.kind,
    taskStates: new Map(
      cp.taskStates.filter((t) => t.vertexId === TASK_GROUP_VERTEX).map((t) => [t.subtaskIndex, t.state as TaskGroupState]),
    ),
    enumeratorStates: new Map(cp.enumeratorStates.map((e) => [Number(e.vertexId), e.state])),
    pendingCommits: new Map(cp.pendingCommitInfos.map((p) => [Number(p.vertexId), [...p.infos]])),
  };
}
