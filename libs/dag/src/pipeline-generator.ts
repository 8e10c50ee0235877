import type { LogicalDag, LogicalEdge, LogicalVertex } from './logical-dag.js';
import type { PlannedPlugin } from './planned-plugin.js';

/** A vertex of one pipeline: a logical vertex, or a clone of one when its subgraph was split. */
export interface PipelineVertex {
  /** Unique within the job: the logical id, or a new id (above every logical id) for a clone. */
  readonly id: number;
  /** The logical vertex this one runs. */
  readonly logicalId: number;
  readonly plugin: PlannedPlugin;
  readonly parallelism: number;
  /** Tables read inside this pipeline (a cloned multi-input vertex reads one of them). */
  readonly inputTables: readonly string[];
  readonly outputTable?: string;
  /** True when the vertex is a copy made by splitting along source->sink paths. */
  readonly cloned: boolean;
}

export interface PipelineEdge {
  readonly from: number;
  readonly to: number;
  readonly table: string;
}

/**
 * An independent unit of execution (SeaTunnel's Pipeline / SubPlan): its own checkpoints, its
 * own failover. Always a tree rooted at one source; vertices are listed parents first.
 */
export interface Pipeline {
  /** 1-based, in the order of each pipeline's source in the config. */
  readonly id: number;
  readonly sourceVertexId: number;
  readonly vertices: readonly PipelineVertex[];
  readonly edges: readonly PipelineEdge[];
}

/**
 * Cuts the LogicalDag into pipelines as SeaTunnel's PipelineGenerator does: disconnected
 * subgraphs become separate pipelines; a connected subgraph that has a vertex with several
 * inputs (a union) is split into one pipeline per source, each holding copies (new ids) of
 * every vertex reachable from that source, so a union vertex runs once per input. A subgraph
 * without such a vertex stays one pipeline even when it fans out to several sinks.
 *
 * SeaTunnel splits such a subgraph into one linear pipeline per source->sink path, reading a
 * source once per path; splitting per source gives the same rows with each source read once.
 * A clone's parallelism is its plugin's own value, else that of its parent in the tree (as in
 * SeaTunnel, where the union vertex takes the parallelism of the path it is on).
 */
export function generatePipelines(dag: LogicalDag): Pipeline[] {
  const byId = new Map(dag.vertices.map((v) => [v.id, v]));
  const outEdges = groupBy(dag.edges, (e) => e.from);
  const inEdges = groupBy(dag.edges, (e) => e.to);
  let nextCloneId = Math.max(0, ...dag.vertices.map((v) => v.id)) + 1;
  const pipelines: Pipeline[] = [];

  for (const component of connectedComponents(dag)) {
    const needsSplit = component.some((v) => (inEdges.get(v.id)?.length ?? 0) > 1);
    const sources = component.filter((v) => v.plugin.type === 'source');
    if (!needsSplit) {
      // Every vertex has at most one input: the component is a tree rooted at its only source.
      const vertices: PipelineVertex[] = [];
      const edges: PipelineEdge[] = [];
      const walk = (v: LogicalVertex): void => {
        vertices.push(keep(v));
        for (const e of outEdges.get(v.id) ?? []) {
          edges.push({ from: e.from, to: e.to, table: e.table });
          walk(byId.get(e.to)!);
        }
      };
      walk(sources[0]);
      pipelines.push({ id: pipelines.length + 1, sourceVertexId: sources[0].id, vertices, edges });
      continue;
    }
    for (const source of sources) {
      const vertices: PipelineVertex[] = [];
      const edges: PipelineEdge[] = [];
      const unfold = (logical: LogicalVertex, parent?: PipelineVertex, table?: string): void => {
        const clone: PipelineVertex = {
          id: nextCloneId++,
          logicalId: logical.id,
          plugin: logical.plugin,
          parallelism: logical.plugin.parallelism ?? parent?.parallelism ?? logical.parallelism,
          inputTables: table === undefined ? [] : [table],
          outputTable: logical.outputTable,
          cloned: true,
        };
        vertices.push(clone);
        if (parent && table !== undefined) edges.push({ from: parent.id, to: clone.id, table });
        for (const e of outEdges.get(logical.id) ?? []) unfold(byId.get(e.to)!, clone, e.table);
      };
      unfold(source);
      pipelines.push({ id: pipelines.length + 1, sourceVertexId: vertices[0].id, vertices, edges });
    }
  }
  return pipelines;
}

function keep(v: LogicalVertex): PipelineVertex {
  return {
    id: v.id,
    logicalId: v.id,
    plugin: v.plugin,
    parallelism: v.parallelism,
    inputTables: v.inputTables,
    outputTable: v.outputTable,
    cloned: false,
  };
}

function groupBy(edges: readonly LogicalEdge[], key: (e: LogicalEdge) => number): Map<number, LogicalEdge[]> {
  const map = new Map<number, LogicalEdge[]>();
  for (const e of edges) map.set(key(e), [...(map.get(key(e)) ?? []), e]);
  return map;
}

/** Weakly connected components, each sorted by vertex id, ordered by their smallest id. */
function connectedComponents(dag: LogicalDag): LogicalVertex[][] {
  const parent = new Map(dag.vertices.map((v) => [v.id, v.id]));
  const find = (x: number): number => {
    while (parent.get(x)! !== x) {
      parent.set(x, parent.get(parent.get(x)!)!);
      x = parent.get(x)!;
    }
    return x;
  };
  for (const e of dag.edges) parent.set(find(e.from), find(e.to));
  const groups = new Map<number, LogicalVertex[]>();
  for (const v of [...dag.vertices].sort((a, b) => a.id - b.id)) {
    const root = find(v.id);
    groups.set(root, [...(groups.get(root) ?? []), v]);
  }
  return [...groups.values()].sort((a, b) => a[0].id - b[0].id);
}
