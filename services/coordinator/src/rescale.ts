import type { SourceSplit } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { PlannedPipeline } from '@tideway/planner';
import type { ChainNode, TaskGroupState } from '@tideway/runtime';
import type { RestorePoint, TaskGroupPlacement } from './checkpoint-records.js';

/** What the plugins of the new plan allow (Source.rescalable, Sink.rescalable). */
export interface RescaleAbilities {
  source: { name: string; rescalable: boolean };
  /** By sink vertex id. */
  sinks: Map<number, { name: string; rescalable: boolean }>;
}

function chainVertices(node: ChainNode, into: Record<number, number>): Record<number, number> {
  into[node.vertexId] = node.parallelism;
  for (const c of node.children) chainVertices(c, into);
  return into;
}

/** The placement of every task group of a planned pipeline, by task group index. */
export function placementsOf(plan: PlannedPipeline): Map<number, TaskGroupPlacement> {
  return new Map(
    plan.taskGroups.map((tg) => [
      tg.index,
      { subtaskIndex: tg.descriptor.subtaskIndex, root: tg.descriptor.root.vertexId, vertices: chainVertices(tg.descriptor.root, {}) },
    ]),
  );
}

/**
 * The dead-letter sink (env.transform_error_handler mode ROUTE) writes from every task group
 * with a transform; its writers' states and prepared commits stay where they were written, so a
 * checkpoint where it holds any restores only into the layout it had.
 */
function refuseMovingDeadLetterState(point: RestorePoint, plan: PlannedPipeline, where: string, jobId: string): void {
  const target = plan.taskGroups.find((tg) => tg.descriptor.deadLetter)?.descriptor.deadLetter;
  if (!target) return;
  const v = target.vertexId;
  const holds = [...point.taskStates.values()].some(
    (s) => (s.writerStates[v]?.length ?? 0) > 0 || (s.pendingCommits?.[v]?.length ?? 0) > 0,
  );
  if (holds)
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${where} cannot be restored at another parallelism: its dead-letter sink ${target.plugin.name} (env.transform_error_handler.sink, vertex ${v}) keeps per-writer state that it cannot hand to another number of writers; restore at the parallelism it had`,
      { jobId },
    );
}

/** The parallelism each vertex had in a set of placements. */
function parallelismOf(placements: Iterable<TaskGroupPlacement>): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of placements) for (const [v, n] of Object.entries(p.vertices)) out.set(Number(v), n);
  return out;
}

/**
 * Fits a checkpoint to a pipeline planned at other parallelisms (a restore whose config changed
 * `parallelism`). The rules, per vertex whose parallelism changed:
 * - the source: every reader's checkpointed splits (with their progress) go back to the split
 *   enumerator, restored from its state, through addSplitsBack(splits, oldReader % readers);
 *   the new readers start with none and get them as they register. Only a `rescalable` source;
 * - a sink: the writer states and the prepared commit infos of old writer i go to new writer
 *   i % parallelism (merged when shrinking, none for the writers added when growing); a writer's
 *   states are never split. Only a `rescalable` sink, or one whose writers checkpointed no state;
 * - transforms keep no state.
 * The tables' schemas as they entered each task group's chain (schema evolution) go to the new
 * task groups of the same first vertex (from the old subtask s % old count); a new task group
 * whose first vertex started no old chain (the fusion changed) starts from the planned schemas.
 * Vertices whose parallelism did not change keep their states subtask by subtask. A checkpoint
 * written without placements (before they were stored) restores only into the same layout.
 */
export function fitRestorePoint(point: RestorePoint, plan: PlannedPipeline, abilities: RescaleAbilities, jobId: string): RestorePoint {
  const where = `checkpoint ${point.checkpointId} of job ${jobId} (pipeline ${plan.pipelineId})`;
  const fresh = placementsOf(plan);
  const old = point.placements;
  if (!old || old.size < point.taskStates.size) {
    if (point.taskStates.size === 0 || [...point.taskStates.keys()].every((i) => i < plan.taskGroups.length)) return point;
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${where} has ${point.taskStates.size} task group states but the new config plans ${plan.taskGroups.length} task groups, and it was written without their placements, so it can only be restored at the parallelism it had`,
      { jobId },
    );
  }
  const oldP = parallelismOf(old.values());
  const newP = parallelismOf(fresh.values());
  const changed = [...newP].filter(([v, n]) => oldP.has(v) && oldP.get(v) !== n).map(([v]) => v);
  const sameLayout =
    changed.length === 0 &&
    old.size === fresh.size &&
    [...old].every(([i, p]) => fresh.get(i)?.subtaskIndex === p.subtaskIndex && sameKeys(fresh.get(i)!.vertices, p.vertices));
  if (sameLayout) return point;
  refuseMovingDeadLetterState(point, plan, where, jobId);

  // Old states by vertex and subtask.
  const oldByVertex = new Map<number, Map<number, TaskGroupState>>();
  for (const [tg, state] of point.taskStates) {
    const p = old.get(tg)!;
    for (const v of Object.keys(p.vertices).map(Number)) {
      let m = oldByVertex.get(v);
      if (!m) oldByVertex.set(v, (m = new Map<number, TaskGroupState>()));
      m.set(p.subtaskIndex, state);
    }
  }
  // Old task groups by the vertex their chain starts at, in subtask order (for their schemas).
  const oldByRoot = new Map<number, TaskGroupState[]>();
  for (const [tg, state] of [...point.taskStates].sort(([a], [b]) => old.get(a)!.subtaskIndex - old.get(b)!.subtaskIndex)) {
    const root = old.get(tg)!.root;
    oldByRoot.set(root, [...(oldByRoot.get(root) ?? []), state]);
  }
  const sourceId = plan.source.vertexId;
  for (const v of changed) {
    const before = oldP.get(v)!;
    const after = newP.get(v)!;
    if (v === sourceId) {
      if (!abilities.source.rescalable)
        throw refusal(
          where,
          `source ${abilities.source.name} (vertex ${v})`,
          before,
          after,
          'cannot re-assign its splits to another number of readers',
          jobId,
        );
      continue;
    }
    const sink = abilities.sinks.get(v);
    if (!sink || sink.rescalable) continue;
    const states = [...(oldByVertex.get(v)?.values() ?? [])];
    const holds = states.some((s) => (s.writerStates[v]?.length ?? 0) > 0 || (s.pendingCommits?.[v]?.length ?? 0) > 0);
    if (holds)
      throw refusal(
        where,
        `sink ${sink.name} (vertex ${v})`,
        before,
        after,
        'keeps per-writer state that it cannot hand to another number of writers',
        jobId,
      );
  }

  const splitsBack: Array<{ subtask: number; splits: SourceSplit[] }> = [];
  const rescaleSource = changed.includes(sourceId);
  if (rescaleSource) {
    const readers = newP.get(sourceId)!;
    for (const [subtask, state] of oldByVertex.get(sourceId) ?? []) {
      const splits = (state.readerSplits[sourceId] ?? []) as SourceSplit[];
      if (splits.length > 0) splitsBack.push({ subtask: subtask % readers, splits });
    }
  }
  const taskStates = new Map<number, TaskGroupState>();
  for (const [tg, placement] of fresh) {
    const state: TaskGroupState = { readerSplits: {}, writerStates: {} };
    const pending: Record<number, unknown[]> = {};
    for (const [vText, parallelism] of Object.entries(placement.vertices)) {
      const v = Number(vText);
      const states = oldByVertex.get(v);
      if (!states) continue;
      // The old subtasks whose state this new subtask takes: the same one, or every i with i % p === s.
      const from =
        oldP.get(v) === parallelism
          ? [states.get(placement.subtaskIndex)].filter((s): s is TaskGroupState => s !== undefined)
          : [...states].filter(([i]) => i % parallelism === placement.subtaskIndex).map(([, s]) => s);
      if (v === sourceId) {
        state.readerSplits[v] = rescaleSource ? [] : from.flatMap((s) => s.readerSplits[v] ?? []);
        continue;
      }
      if (from.some((s) => v in s.writerStates)) state.writerStates[v] = from.flatMap((s) => s.writerStates[v] ?? []);
      const infos = from.flatMap((s) => s.pendingCommits?.[v] ?? []);
      if (infos.length > 0) pending[v] = infos;
    }
    if (Object.keys(pending).length > 0) state.pendingCommits = pending;
    const sameRoot = oldByRoot.get(placement.root);
    const schemas = sameRoot?.[placement.subtaskIndex % sameRoot.length]?.schemas;
    if (schemas) state.schemas = schemas;
    taskStates.set(tg, state);
  }
  return { ...point, taskStates, placements: fresh, splitsBack };
}

function sameKeys(a: Record<number, number>, b: Record<number, number>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

function refusal(where: string, what: string, before: number, after: number, why: string, jobId: string): TidewayError {
  return new TidewayError(
    ErrorCode.CONFIG_BAD_VALUE,
    `${where} ran ${what} at parallelism ${before}; the new config runs it at ${after}, but it ${why}: restore with parallelism ${before} for it`,
    { jobId },
  );
}
