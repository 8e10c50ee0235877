import type { JobEdge, JobVertex } from '@tideway/contracts';
import { redactSecrets } from '@tideway/common';
import type { PlannedJob } from '@tideway/planner';

/** A job's DAG on the wire: SeaTunnel's jobDag (vertexInfoMap, pipelineEdges) in Tideway's terms. */
export interface JobDagInfo {
  vertices: JobVertex[];
  edges: JobEdge[];
  envOptions: Record<string, string>;
}

/**
 * The vertices and edges of every pipeline, as they run (a vertex cloned into several
 * pipelines appears in each, under its pipeline's id), with the tables each outputs (a sink:
 * the tables it writes, by the ids its rows carry, which the per-table metrics are keyed by) and
 * the place of its block in the config (SeaTunnel names vertices by it), and the env block with
 * each value as text, secrets masked.
 */
export function jobDagInfo(job: PlannedJob): JobDagInfo {
  const vertices: JobVertex[] = [];
  const edges: JobEdge[] = [];
  const sinkTables = new Map<number, string[]>();
  for (const p of job.pipelines) for (const s of p.sinks) sinkTables.set(s.vertexId, [...new Set(s.inputTables.map((t) => t.tableId))]);
  for (const p of job.plan.pipelines) {
    for (const v of p.vertices) {
      // A sink names the tables it receives, as its rows carry them (after transforms), not the
      // plugin_input names of the config; the others the tables they output.
      const tables =
        v.plugin.type === 'sink' ? (sinkTables.get(v.id) ?? v.inputTables) : (job.schemas.get(v.logicalId) ?? []).map((t) => t.tableId);
      vertices.push({
        vertexId: v.id,
        type: v.plugin.type,
        pluginName: v.plugin.name,
        tablePaths: [...tables],
        parallelism: v.parallelism,
        pipelineId: p.id,
        configIndex: v.plugin.index,
      });
    }
    for (const e of p.edges) edges.push({ inputVertexId: e.from, targetVertexId: e.to, pipelineId: p.id });
  }
  const envOptions = Object.fromEntries(
    Object.entries(redactSecrets(job.config.env)).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return { vertices, edges, envOptions };
}
