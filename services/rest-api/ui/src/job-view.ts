import type { Metrics, TaskBusyness, Vertex } from './api.js';

/**
 * Rows and rows/s of a vertex, from the job's per-table metrics: a source counts the rows it
 * read of its tables, a sink the rows it wrote to its tables. Transforms have no counters of
 * their own (Tideway counts rows where they enter and leave the job), so they answer undefined.
 */
export function vertexRates(v: Vertex, m: Metrics | undefined): { rows: number; rate: number } | undefined {
  if (!m || (v.type !== 'source' && v.type !== 'sink')) return undefined;
  const tables = new Set(v.tablePaths ?? []);
  const mine = (m.tables ?? []).filter((t) => tables.has(t.table ?? ''));
  if (v.type === 'source')
    return {
      rows: mine.reduce((n, t) => n + Number(t.sourceReceivedCount ?? 0), 0),
      rate: mine.reduce((n, t) => n + (t.sourceReceivedQps ?? 0), 0),
    };
  return { rows: mine.reduce((n, t) => n + Number(t.sinkWriteCount ?? 0), 0), rate: mine.reduce((n, t) => n + (t.sinkWriteQps ?? 0), 0) };
}

/** Rows a vertex dropped as bad (row-level error handling), 0 when none. */
export function vertexBadRows(v: Vertex, m: Metrics | undefined): number {
  return Number(m?.badRows?.[String(v.vertexId ?? 0)] ?? 0);
}

/** A vertex's name in charts and tables. */
export function vertexLabel(v: Vertex): string {
  return `${v.vertexId} ${v.pluginName} (${v.type}, pipeline ${v.pipelineId})`;
}

/** How many points the charts keep: ten minutes at one event a second. */
export const HISTORY = 600;

/** A running task group's last busyness report (JobMetrics.tasks), undefined when none. */
export function taskBusyness(m: Metrics | undefined, pipelineId: number, taskGroupIndex: number): TaskBusyness | undefined {
  return (m?.tasks ?? []).find((t) => (t.pipelineId ?? 0) === pipelineId && (t.taskGroupIndex ?? 0) === taskGroupIndex);
}
