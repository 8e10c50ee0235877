/**
 * What SeaTunnel's web UI (seatunnel-engine-ui) reads of a job and of a cluster member, in the
 * project's own words, as checks a test runs against an answer:
 *
 * - The jobs lists show each job's jobId, jobName, jobStatus, createTime and finishTime, and link
 *   to its detail page.
 * - The detail page shows jobName, jobStatus, jobId and createTime (parsed as
 *   `yyyy-MM-dd HH:mm:ss` to count the duration), draws jobDag.vertexInfoMap (vertexId a number,
 *   type, vertexName, tablePaths; the name's Source[n] / Sink[n] picks the vertex's entries in
 *   metric maps keyed per vertex) joined by jobDag.pipelineEdges (per pipeline, edges with
 *   inputVertexId and targetVertexId as text), and fills a table with one row per source and sink
 *   vertex: for each of the vertex's tablePaths it reads the table's value in the four source maps
 *   (TableSourceReceived Count, Bytes, QPS, BytesPerSeconds) or the four sink maps (TableSinkWrite
 *   ...) and adds them up as numbers, so a missing map throws and a missing table gives NaN. Its
 *   exception tab shows errorMsg; its configuration tab shows envOptions (or jobDag.envOptions).
 * - The overview reads projectVersion, gitCommitAbbrev, totalSlot, unassignedSlot, workers,
 *   runningJobs, finishedJobs, failedJobs and cancelledJobs, all text.
 * - The Master page lists the /system-monitoring-information entries whose isMaster is "true", the
 *   Workers page those with "false", showing host, port, physical.memory.total and heap.memory.used;
 *   the later page also load.process, heap.memory.max, minor.gc.count, major.gc.count and
 *   thread.count, with a dash for one that is missing.
 */
import { expect } from 'vitest';
import { anyOf, matching } from './rest-shapes.js';

/** The eight per-table maps of a job's metrics, source side first. */
export const TABLE_MAPS = [
  'TableSourceReceivedCount',
  'TableSourceReceivedBytes',
  'TableSourceReceivedQPS',
  'TableSourceReceivedBytesPerSeconds',
  'TableSinkWriteCount',
  'TableSinkWriteBytes',
  'TableSinkWriteQPS',
  'TableSinkWriteBytesPerSeconds',
] as const;

/** The eight job totals. */
export const METRIC_TOTALS = [
  'SourceReceivedCount',
  'SourceReceivedBytes',
  'SourceReceivedQPS',
  'SourceReceivedBytesPerSeconds',
  'SinkWriteCount',
  'SinkWriteBytes',
  'SinkWriteQPS',
  'SinkWriteBytesPerSeconds',
] as const;

export interface UiVertex {
  vertexId: number;
  type: 'source' | 'transform' | 'sink';
  vertexName: string;
  tablePaths: string[];
}

/** A job as the UI's pages read it. */
export interface UiJob {
  jobId: string;
  jobName: string;
  jobStatus: string;
  createTime: string;
  finishTime?: string;
  errorMsg?: string | null;
  envOptions?: Record<string, string>;
  pluginJarsUrls: unknown[];
  jobDag: {
    jobId: string;
    envOptions: Record<string, string>;
    vertexInfoMap: UiVertex[];
    pipelineEdges: Record<string, Array<{ inputVertexId: string; targetVertexId: string }>>;
  };
  metrics: Record<(typeof METRIC_TOTALS)[number], string> & Record<(typeof TABLE_MAPS)[number], Record<string, string>>;
}

const TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const SOURCE_MAPS = TABLE_MAPS.slice(0, 4);
const SINK_MAPS = TABLE_MAPS.slice(4);

/** Checks every field the UI reads of one job, and that its vertex metrics table adds up to numbers. */
export function expectUiJob(job: UiJob, want: { jobId: string; status: string }): void {
  expect(job).toMatchObject({ jobId: want.jobId, jobName: anyOf(String), jobStatus: want.status, pluginJarsUrls: [] });
  expect(job.createTime).toMatch(TIME);
  if (['FINISHED', 'FAILED', 'CANCELED', 'SAVEPOINT_DONE'].includes(want.status)) {
    expect(job.finishTime).toMatch(TIME);
    expect(job).toHaveProperty('errorMsg');
  }
  const dag = job.jobDag;
  expect(dag.jobId).toBe(want.jobId);
  expect(dag.envOptions).toEqual(anyOf(Object));
  expect(dag.vertexInfoMap.length).toBeGreaterThan(0);
  const ids = new Set<string>();
  for (const v of dag.vertexInfoMap) {
    expect(v).toEqual({
      vertexId: anyOf(Number),
      type: matching(/^(source|transform|sink)$/),
      vertexName: anyOf(String),
      tablePaths: anyOf(Array),
    });
    // The name carries SeaTunnel's vertex identifier (Source[0], Transform[0], Sink[0]).
    expect(v.vertexName).toMatch(/(Source|Transform|Sink)\[\d+\]/);
    ids.add(String(v.vertexId));
  }
  const edges = Object.values(dag.pipelineEdges).flat();
  expect(edges.length).toBeGreaterThan(0);
  for (const e of edges) {
    expect(e).toEqual({ inputVertexId: anyOf(String), targetVertexId: anyOf(String) });
    expect(ids.has(e.inputVertexId) && ids.has(e.targetVertexId), JSON.stringify(e)).toBe(true);
  }
  for (const key of METRIC_TOTALS)
    expect(Number.isFinite(Number(job.metrics[key])) && typeof job.metrics[key] === 'string', key).toBe(true);
  for (const key of TABLE_MAPS) {
    expect(job.metrics[key], key).toEqual(anyOf(Object));
    for (const [table, value] of Object.entries(job.metrics[key]))
      expect(typeof value === 'string' && Number.isFinite(Number(value)), `${key}.${table}`).toBe(true);
  }
  // The vertex metrics table: every cell a number.
  for (const v of dag.vertexInfoMap) {
    const maps = v.type === 'source' ? SOURCE_MAPS : v.type === 'sink' ? SINK_MAPS : [];
    for (const key of maps) {
      const cell = v.tablePaths.reduce((n, path) => n + Number(job.metrics[key][path]), 0);
      expect(Number.isFinite(cell), `${v.vertexName} ${key}: ${JSON.stringify(job.metrics[key])}`).toBe(true);
    }
  }
}

/** Checks the fields the Master and Workers pages show of one cluster member. */
export function expectUiMonitor(m: Record<string, string>): void {
  expect(m).toMatchObject({
    isMaster: matching(/^(true|false)$/),
    host: matching(/\S/),
    port: matching(/^\d+$/),
    processors: matching(/^\d+$/),
    'physical.memory.total': matching(/^\d+(\.\d)?[KMGTPE]?$/),
  });
  expect(m['heap.memory.used']).toMatch(/^\d+(\.\d)?[KMGTPE]?$/);
  expect(m).toMatchObject({
    'heap.memory.max': matching(/^\d+(\.\d)?[KMGTPE]?$/),
    'load.process': matching(/^\d+\.\d\d%$/),
    'minor.gc.count': matching(/^\d+$/),
    'major.gc.count': matching(/^\d+$/),
    'thread.count': matching(/^\d+$/),
  });
}
