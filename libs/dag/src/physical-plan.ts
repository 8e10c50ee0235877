import type { Pipeline, PipelineVertex } from './pipeline-generator.js';

/**
 * How rows cross a shuffle edge. Rows of a table with a primary key go to subtask
 * hash(key) mod n, so every change to one key reaches the same downstream subtask in order
 * (CDC updates stay ordered); rows of a table without a primary key are spread round-robin.
 */
export interface ShufflePartitioning {
  readonly strategy: 'primary-key-hash';
  readonly withoutPrimaryKey: 'round-robin';
}

/** One side of a shuffle edge. */
export interface ShuffleSide {
  readonly stageId: number;
  /** The vertex whose output enters (upstream) or whose input leaves (downstream) the shuffle. */
  readonly vertexId: number;
  readonly parallelism: number;
  /** The task groups on this side (one per parallel index). */
  readonly taskGroupIds: readonly number[];
}

/** Rows re-partitioned between two stages whose parallelism differs. */
export interface ShuffleEdge {
  /** 1-based within the pipeline. */
  readonly id: number;
  readonly table: string;
  readonly upstream: ShuffleSide;
  readonly downstream: ShuffleSide;
  readonly partitioning: ShufflePartitioning;
}

/**
 * One task inside a task group. Rows pass between the tasks of a group by function call;
 * `next` lists the tasks (indexes within the group) that receive this task's output.
 */
export type PhysicalTask =
  | { readonly index: number; readonly kind: 'source-reader'; readonly vertexId: number; readonly next: readonly number[] }
  | { readonly index: number; readonly kind: 'shuffle-reader'; readonly shuffleId: number; readonly next: readonly number[] }
  | { readonly index: number; readonly kind: 'transform-chain'; readonly vertexIds: readonly number[]; readonly next: readonly number[] }
  | { readonly index: number; readonly kind: 'sink-writer'; readonly vertexId: number; readonly next: readonly number[] }
  | { readonly index: number; readonly kind: 'shuffle-writer'; readonly shuffleId: number; readonly next: readonly number[] };

/**
 * A set of fused vertices with one parallelism; it runs as `parallelism` task groups.
 * Stage 1 starts at the pipeline's source; every other stage starts at a shuffle.
 */
export interface Stage {
  /** 1-based within the pipeline. */
  readonly id: number;
  readonly parallelism: number;
  /** Vertices fused into this stage, parents first. */
  readonly vertexIds: readonly number[];
  /** The shuffle that feeds this stage (none for the source's stage). */
  readonly inputShuffleId?: number;
  /** Tasks of each of this stage's task groups (the same for every parallel index). */
  readonly tasks: readonly PhysicalTask[];
}

/** What a worker runs in one slot: one parallel index of one stage. */
export interface TaskGroup {
  /** 1-based within the pipeline. */
  readonly id: number;
  readonly pipelineId: number;
  readonly stageId: number;
  /** Parallel index, 0-based. */
  readonly subtaskIndex: number;
  /** Number of task groups of the stage. */
  readonly parallelism: number;
  readonly tasks: readonly PhysicalTask[];
  /** Slots the task group needs: one (a slot is one thread on a worker). */
  readonly slots: 1;
}

/** A source's split enumerator: runs on the coordinator, serves `readers` reader subtasks. */
export interface EnumeratorPart {
  readonly vertexId: number;
  readonly name: string;
  readonly readers: number;
}

/** A sink's aggregated committer: runs on the coordinator, combines `writers` writers' commits. */
export interface AggregatedCommitterPart {
  readonly vertexId: number;
  readonly name: string;
  readonly writers: number;
}

export interface PhysicalPipeline {
  readonly pipelineId: number;
  readonly stages: readonly Stage[];
  readonly taskGroups: readonly TaskGroup[];
  readonly shuffles: readonly ShuffleEdge[];
  readonly enumerators: readonly EnumeratorPart[];
  readonly aggregatedCommitters: readonly AggregatedCommitterPart[];
  /** Slots the pipeline needs on workers: one per task group. */
  readonly slots: number;
}

export interface PhysicalPlan {
  readonly pipelines: readonly PhysicalPipeline[];
  readonly slots: number;
}

export interface PhysicalPlanOptions {
  /**
   * Whether a sink vertex has an aggregated committer (its Sink implements
   * createAggregatedCommitter). The coordinator knows once it has created the sinks; without
   * this, every sink is listed and the coordinator skips those without one.
   */
  sinkHasAggregatedCommitter?: (vertex: PipelineVertex) => boolean;
}

const PARTITIONING: ShufflePartitioning = { strategy: 'primary-key-hash', withoutPrimaryKey: 'round-robin' };

/**
 * Per pipeline: fuses the source, transforms and sinks into one stage while the parallelism
 * stays the same (rows then pass by function call inside one task group); where a vertex's
 * parallelism differs from its parent's, a new stage starts behind a shuffle edge. Each stage
 * runs as one task group per parallel index, one slot each. The coordinator side lists each
 * source's split enumerator and each sink's aggregated committer.
 */
export function buildPhysicalPlan(pipelines: readonly Pipeline[], options: PhysicalPlanOptions = {}): PhysicalPlan {
  const built = pipelines.map((p) => buildPipeline(p, options));
  return { pipelines: built, slots: built.reduce((n, p) => n + p.slots, 0) };
}

interface StageDraft {
  id: number;
  parallelism: number;
  vertexIds: number[];
  inputShuffleId?: number;
}

interface ShuffleDraft {
  id: number;
  table: string;
  from: PipelineVertex;
  to: PipelineVertex;
  fromStage: number;
  toStage: number;
}

function buildPipeline(pipeline: Pipeline, options: PhysicalPlanOptions): PhysicalPipeline {
  const byId = new Map(pipeline.vertices.map((v) => [v.id, v]));
  const children = new Map<number, { vertex: PipelineVertex; table: string }[]>();
  for (const e of pipeline.edges) children.set(e.from, [...(children.get(e.from) ?? []), { vertex: byId.get(e.to)!, table: e.table }]);

  const stages: StageDraft[] = [];
  const shuffles: ShuffleDraft[] = [];
  const stageOf = new Map<number, number>();
  const place = (v: PipelineVertex, stage: StageDraft): void => {
    stage.vertexIds.push(v.id);
    stageOf.set(v.id, stage.id);
    for (const c of children.get(v.id) ?? []) {
      if (c.vertex.parallelism === stage.parallelism) {
        place(c.vertex, stage);
        continue;
      }
      const next: StageDraft = {
        id: stages.length + 1,
        parallelism: c.vertex.parallelism,
        vertexIds: [],
        inputShuffleId: shuffles.length + 1,
      };
      stages.push(next);
      shuffles.push({ id: next.inputShuffleId!, table: c.table, from: v, to: c.vertex, fromStage: stage.id, toStage: next.id });
      place(c.vertex, next);
    }
  };
  const root = byId.get(pipeline.sourceVertexId)!;
  const first: StageDraft = { id: 1, parallelism: root.parallelism, vertexIds: [] };
  stages.push(first);
  place(root, first);

  const taskGroups: TaskGroup[] = [];
  const groupIdsOfStage = new Map<number, number[]>();
  const builtStages: Stage[] = stages.map((s) => {
    const tasks = stageTasks(s, byId, children, shuffles);
    const ids: number[] = [];
    for (let i = 0; i < s.parallelism; i++) {
      const id = taskGroups.length + 1;
      ids.push(id);
      taskGroups.push({ id, pipelineId: pipeline.id, stageId: s.id, subtaskIndex: i, parallelism: s.parallelism, tasks, slots: 1 });
    }
    groupIdsOfStage.set(s.id, ids);
    return { id: s.id, parallelism: s.parallelism, vertexIds: s.vertexIds, inputShuffleId: s.inputShuffleId, tasks };
  });

  const side = (v: PipelineVertex, stageId: number): ShuffleSide => ({
    stageId,
    vertexId: v.id,
    parallelism: v.parallelism,
    taskGroupIds: groupIdsOfStage.get(stageId)!,
  });
  const sinkHasCommitter = options.sinkHasAggregatedCommitter ?? (() => true);
  return {
    pipelineId: pipeline.id,
    stages: builtStages,
    taskGroups,
    shuffles: shuffles.map((s) => ({
      id: s.id,
      table: s.table,
      upstream: side(s.from, s.fromStage),
      downstream: side(s.to, s.toStage),
      partitioning: PARTITIONING,
    })),
    enumerators: pipeline.vertices
      .filter((v) => v.plugin.type === 'source')
      .map((v) => ({ vertexId: v.id, name: v.plugin.name, readers: v.parallelism })),
    aggregatedCommitters: pipeline.vertices
      .filter((v) => v.plugin.type === 'sink' && sinkHasCommitter(v))
      .map((v) => ({ vertexId: v.id, name: v.plugin.name, writers: v.parallelism })),
    slots: taskGroups.length,
  };
}

/**
 * The tasks of one stage: a reader (of the source or of the input shuffle), transform chains
 * (runs of transforms with one input and one output, as SeaTunnel chains them), sink writers,
 * and a shuffle writer per shuffle edge leaving the stage.
 */
function stageTasks(
  stage: StageDraft,
  byId: ReadonlyMap<number, PipelineVertex>,
  children: ReadonlyMap<number, { vertex: PipelineVertex; table: string }[]>,
  shuffles: readonly ShuffleDraft[],
): PhysicalTask[] {
  type Draft = { kind: PhysicalTask['kind']; vertexIds: number[]; shuffleId?: number; next: number[] };
  const drafts: Draft[] = [];
  const inStage = new Set(stage.vertexIds);
  const outShuffles = (id: number) => shuffles.filter((s) => s.from.id === id);
  const downstreamCount = (id: number) => (children.get(id) ?? []).length;

  // Returns the index of the task that receives the rows of vertex `v` (v's own task).
  const emit = (v: PipelineVertex): number => {
    let task: Draft;
    if (v.plugin.type === 'transform') {
      task = { kind: 'transform-chain', vertexIds: [v.id], next: [] };
      let last = v;
      // Extend the chain while the last transform feeds exactly one transform of this stage.
      for (;;) {
        const only = downstreamCount(last.id) === 1 ? children.get(last.id)![0].vertex : undefined;
        if (!only || only.plugin.type !== 'transform' || !inStage.has(only.id)) break;
        task.vertexIds.push(only.id);
        last = only;
      }
      drafts.push(task);
      linkDownstream(task, last);
    } else {
      task = { kind: v.plugin.type === 'source' ? 'source-reader' : 'sink-writer', vertexIds: [v.id], next: [] };
      drafts.push(task);
      linkDownstream(task, v);
    }
    return drafts.indexOf(task);
  };
  const linkDownstream = (task: Draft, v: PipelineVertex): void => {
    for (const c of children.get(v.id) ?? []) {
      if (inStage.has(c.vertex.id)) task.next.push(emit(c.vertex));
    }
    for (const s of outShuffles(v.id)) {
      drafts.push({ kind: 'shuffle-writer', vertexIds: [], shuffleId: s.id, next: [] });
      task.next.push(drafts.length - 1);
    }
  };

  const rootVertex = byId.get(stage.vertexIds[0])!;
  if (stage.inputShuffleId !== undefined) {
    const reader: Draft = { kind: 'shuffle-reader', vertexIds: [], shuffleId: stage.inputShuffleId, next: [] };
    drafts.push(reader);
    reader.next.push(emit(rootVertex));
  } else {
    emit(rootVertex);
  }
  return drafts.map((d, index): PhysicalTask => {
    switch (d.kind) {
      case 'source-reader':
      case 'sink-writer':
        return { index, kind: d.kind, vertexId: d.vertexIds[0], next: d.next };
      case 'transform-chain':
        return { index, kind: d.kind, vertexIds: d.vertexIds, next: d.next };
      case 'shuffle-reader':
      case 'shuffle-writer':
        return { index, kind: d.kind, shuffleId: d.shuffleId!, next: d.next };
    }
  });
}
