import type { CompletedCheckpoint as StoredCheckpoint } from '@tideway/checkpoint';
import type { SourceSplit } from '@tideway/api';
import type { TaskGroupState } from '@tideway/runtime';
import type { CompletedCheckpoint } from './checkpoint-coordinator.js';

/**
 * Where a task group ran when its state was checkpointed: its subtask index and the
 * parallelism of each vertex of its chain. Stored beside its state, so that a restore at
 * another parallelism knows which old writer and reader each state belonged to.
 */
export interface TaskGroupPlacement {
  subtaskIndex: number;
  /** The vertex the task group's chain starts at (a source, or the first after a shuffle). */
  root: number;
  /** Vertex id -> its parallelism, for every vertex of the task group's chain. */
  vertices: Record<number, number>;
}

/** Task group states are stored under this vertex name (a fused task group has one state). */
const TASK_GROUP_VERTEX = 'task-group';

/**
 * A completed checkpoint as storage keeps it. Splits that were assigned but not yet delivered
 * when the enumerator was snapshotted are added to their reader's state, so a restore hands
 * them to the reader they were meant for. Each task group's state carries its placement
 * (subtask and vertex parallelisms, `placement`), which a restore at another parallelism reads.
 */
export function toStored(
  jobId: string,
  pipelineId: number,
  cp: CompletedCheckpoint,
  sourceVertexId: number,
  undelivered: Record<number, SourceSplit[]>,
  placements?: ReadonlyMap<number, TaskGroupPlacement>,
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
    const placement = placements?.get(Number(tg));
    return { vertexId: TASK_GROUP_VERTEX, subtaskIndex: Number(tg), state: placement ? { ...merged, placement } : merged };
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
  /** Where each task group ran, by index (absent in checkpoints stored before placements were). */
  placements?: Map<number, TaskGroupPlacement>;
  /**
   * Set when the restore changes the source's parallelism: the old readers' splits, handed to
   * the enumerator (addSplitsBack) once it is open, before any reader registers.
   */
  splitsBack?: Array<{ subtask: number; splits: SourceSplit[] }>;
}

export function restorePointOf(cp: StoredCheckpoint): RestorePoint {
  const taskStates = new Map<number, TaskGroupState>();
  const placements = new Map<number, TaskGroupPlacement>();
  for (const t of cp.taskStates) {
    if (t.vertexId !== TASK_GROUP_VERTEX) continue;
    const { placement, ...state } = t.state as TaskGroupState & { placement?: TaskGroupPlacement };
    taskStates.set(t.subtaskIndex, state);
    if (placement) placements.set(t.subtaskIndex, placement);
  }
  return {
    checkpointId: cp.checkpointId,
    kind: cp.kind,
    taskStates,
    placements: placements.size > 0 ? placements : undefined,
    enumeratorStates: new Map(cp.enumeratorStates.map((e) => [Number(e.vertexId), e.state])),
    pendingCommits: new Map(cp.pendingCommitInfos.map((p) => [Number(p.vertexId), [...p.infos]])),
  };
}
