import type { SerializedError } from '@tideway/common';
import type { SlotProfile } from '@tideway/contracts';
import { EXECUTION_STATE, type ExecutionState } from '@tideway/dag';
import type { TaskGroupMetrics } from '@tideway/runtime';

/** One task group of a pipeline attempt as the coordinator tracks it (Flink's Execution). */
export interface TaskGroupTrack {
  index: number;
  slot?: SlotProfile;
  state: ExecutionState;
  readyToClose: boolean;
  error?: SerializedError;
  metrics?: TaskGroupMetrics;
  /** Counters of earlier attempts, so a restart does not make the job's metrics go back. */
  previousMetrics?: TaskGroupMetrics;
}

/** A task group of a new attempt: CREATED, in the slot it keeps, with the counters of the attempts before. */
export function freshTrack(index: number, slot?: SlotProfile, previousMetrics?: TaskGroupMetrics): TaskGroupTrack {
  return { index, slot, state: 'CREATED', readyToClose: false, previousMetrics };
}

/** Moves a task group's state by the table; a failure of a task group that cannot fail directly goes through FAILING. */
export function moveTrack(t: TaskGroupTrack, to: ExecutionState): void {
  if (t.state === to) return;
  if (!EXECUTION_STATE.canTransition(t.state, to) && to === 'FAILED') t.state = EXECUTION_STATE.transition(t.state, 'FAILING');
  t.state = EXECUTION_STATE.transition(t.state, to);
}

/** Counters summed table by table (attempts of a task group, or task groups of a pipeline). */
export function mergeMetrics(...all: Array<TaskGroupMetrics | undefined>): TaskGroupMetrics {
  const byTable = new Map<string, TaskGroupMetrics['tables'][number]>();
  for (const m of all) {
    for (const t of m?.tables ?? []) {
      const e = byTable.get(t.table);
      if (!e) byTable.set(t.table, { ...t });
      else {
        e.sourceReceivedCount += t.sourceReceivedCount;
        e.sinkWriteCount += t.sinkWriteCount;
        e.sourceReceivedBytes += t.sourceReceivedBytes;
        e.sinkWriteBytes += t.sinkWriteBytes;
      }
    }
  }
  const badRows: Record<number, number> = {};
  for (const m of all) for (const [v, n] of Object.entries(m?.badRows ?? {})) badRows[Number(v)] = (badRows[Number(v)] ?? 0) + n;
  // Lag is a gauge and each split has one reader: the task groups' maps are joined, not summed.
  const sourceLag: Record<string, number> = {};
  for (const m of all) Object.assign(sourceLag, m?.sourceLag);
  const out: TaskGroupMetrics = { tables: [...byTable.values()] };
  if (Object.keys(badRows).length > 0) out.badRows = badRows;
  if (Object.keys(sourceLag).length > 0) out.sourceLag = sourceLag;
  return out;
}

/**
 * The counters of a task group over its attempts: rows and bytes add up; bad rows do not, as a
 * restored attempt starts from the checkpoint's count (row-errors.ts), so the latest attempt's count is the total.
 */
export function mergeAttempts(previous: TaskGroupMetrics | undefined, current: TaskGroupMetrics | undefined): TaskGroupMetrics {
  const merged = mergeMetrics(previous, current);
  const badRows = current?.badRows ?? previous?.badRows;
  const out: TaskGroupMetrics = { tables: merged.tables };
  if (badRows) out.badRows = badRows;
  // The lag is the latest attempt's (a gauge).
  if (current?.sourceLag) out.sourceLag = current.sourceLag;
  return out;
}
