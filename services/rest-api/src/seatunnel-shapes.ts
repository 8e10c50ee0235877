import { jobStatusToJSON, type JobInfo, type JobMetrics } from '@tideway/contracts';

/** SeaTunnel's time format in its REST answers: `yyyy-MM-dd HH:mm:ss`, the server's local time. */
export function seaTunnelTime(ms: number): string {
  if (!ms) return '';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A job status by name (RUNNING, FINISHED, ...). */
export function statusName(job: JobInfo): string {
  return jobStatusToJSON(job.status);
}

/** Statuses a job ends in: SeaTunnel's finished-jobs states. */
export const ENDED = new Set(['FINISHED', 'CANCELED', 'FAILED', 'SAVEPOINT_DONE']);

/**
 * A job's env options under dotted keys, as SeaTunnel lists them (`job.mode`, `checkpoint.interval`):
 * a block the config nests (`job { mode = ... }`, or HOCON's `job.mode = ...`, which Tideway reads
 * as a nested block) is spread into one key per value; lists stay JSON.
 */
export function dottedEnvOptions(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (key: string, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      for (const [k, v] of Object.entries(value)) put(`${key}.${k}`, v);
    else out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  };
  for (const [key, text] of Object.entries(env)) {
    let nested: unknown;
    if (text.startsWith('{')) {
      try {
        nested = JSON.parse(text);
      } catch {
        nested = undefined;
      }
    }
    if (nested !== null && typeof nested === 'object' && !Array.isArray(nested)) put(key, nested);
    else out[key] = text;
  }
  return out;
}

/**
 * SeaTunnel's jobDag: `vertexInfoMap` (one entry per vertex: id, source/transform/sink, a name
 * like SeaTunnel's `pipeline-1 [Source[0]-FakeSource]`, numbered by the plugin block's place in
 * its section of the config, the table paths) and `pipelineEdges`
 * (pipeline id -> its edges), which SeaTunnel's web UI draws; and, for clients of SeaTunnel 2.3.8,
 * whose running jobs' jobDag is its logical DAG, `vertices` (id, `Source[0]-FakeSource(id=1)`,
 * parallelism) and `edges` (by the vertices' names).
 */
export function jobDag(job: JobInfo): object {
  const kind: Record<string, string> = { source: 'Source', transform: 'Transform', sink: 'Sink' };
  // SeaTunnel numbers an action by its block's place in its section of the config, across
  // pipelines: the second source block is Source[1] whichever pipeline it is in.
  const named = job.vertices.map((v) => ({ v, name: `${kind[v.type] ?? v.type}[${v.configIndex}]-${v.pluginName}` }));
  const vertexInfoMap = named.map(({ v, name }) => ({
    vertexId: v.vertexId,
    type: v.type,
    vertexName: `pipeline-${v.pipelineId} [${name}]`,
    tablePaths: v.tablePaths,
  }));
  const pipelineEdges: Record<string, Array<{ inputVertexId: string; targetVertexId: string }>> = {};
  for (const e of job.edges)
    (pipelineEdges[String(e.pipelineId)] ??= []).push({ inputVertexId: String(e.inputVertexId), targetVertexId: String(e.targetVertexId) });
  const nameOf = new Map(named.map(({ v, name }) => [v.vertexId, name]));
  return {
    jobId: job.jobId,
    envOptions: dottedEnvOptions(job.envOptions),
    vertexInfoMap,
    pipelineEdges,
    vertices: named.map(({ v, name }) => ({ id: v.vertexId, name: `${name}(id=${v.vertexId})`, parallelism: v.parallelism })),
    edges: job.edges.map((e) => ({ inputVertex: nameOf.get(e.inputVertexId) ?? '', targetVertex: nameOf.get(e.targetVertexId) ?? '' })),
  };
}

/**
 * A number as Java's Double.toString writes it (SeaTunnel's rates are doubles turned to text):
 * `0.0`, `12.5`, `1.0E7`.
 */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  const abs = Math.abs(n);
  if (abs === 0 || (abs >= 1e-3 && abs < 1e7)) return Number.isInteger(n) ? n.toFixed(1) : String(n);
  const [mantissa, exponent] = n.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

type TableCounters = JobMetrics['tables'][number];
type TableKey = Exclude<keyof TableCounters, 'table'>;

/**
 * The tables a side of the job names: the DAG's source vertices' tables (what the sources emit)
 * or its sink vertices' (what the sinks write, after transforms), and any table counted on that
 * side that the DAG does not name (a job still being planned has no DAG yet).
 */
function sideTables(job: JobInfo | undefined, m: JobMetrics, side: 'source' | 'sink'): string[] {
  const names = new Set<string>();
  for (const v of job?.vertices ?? []) if (v.type === side) for (const t of v.tablePaths) names.add(t);
  const counted: TableKey = side === 'source' ? 'sourceReceivedCount' : 'sinkWriteCount';
  for (const t of m.tables) if (t[counted] > 0) names.add(t.table);
  return [...names];
}

/**
 * A job's metrics as SeaTunnel's REST API answers them: the eight job totals and the eight
 * per-table maps, every value text (counts as whole numbers, rates as Java doubles), each
 * source map keyed by the tables the DAG's sources emit and each sink map by the tables its sinks
 * write (a table renamed by a transform is under its new name on the sink side). With `text`
 * false the values stay numbers (`tideway metrics` prints them so).
 */
export function seaTunnelMetrics(m: JobMetrics, job?: JobInfo, text = true): Record<string, unknown> {
  const byTable = new Map(m.tables.map((t) => [t.table, t]));
  const sources = sideTables(job, m, 'source');
  const sinks = sideTables(job, m, 'sink');
  const count = (v: number, rate: boolean): string | number => (!text ? v : rate ? javaDouble(v) : String(Math.round(v)));
  const map = (tables: string[], key: TableKey, rate: boolean) =>
    Object.fromEntries(
      tables.map((t) => {
        const v = byTable.get(t)?.[key] ?? 0;
        return [t, count(v, rate)];
      }),
    );
  return {
    SourceReceivedCount: count(m.sourceReceivedCount, false),
    SourceReceivedQPS: count(m.sourceReceivedQps, true),
    SourceReceivedBytes: count(m.sourceReceivedBytes, false),
    SourceReceivedBytesPerSeconds: count(m.sourceReceivedBytesPerSecond, true),
    SinkWriteCount: count(m.sinkWriteCount, false),
    SinkWriteQPS: count(m.sinkWriteQps, true),
    SinkWriteBytes: count(m.sinkWriteBytes, false),
    SinkWriteBytesPerSeconds: count(m.sinkWriteBytesPerSecond, true),
    TableSourceReceivedCount: map(sources, 'sourceReceivedCount', false),
    TableSinkWriteCount: map(sinks, 'sinkWriteCount', false),
    TableSourceReceivedBytes: map(sources, 'sourceReceivedBytes', false),
    TableSinkWriteBytes: map(sinks, 'sinkWriteBytes', false),
    TableSourceReceivedQPS: map(sources, 'sourceReceivedQps', true),
    TableSinkWriteQPS: map(sinks, 'sinkWriteQps', true),
    TableSourceReceivedBytesPerSeconds: map(sources, 'sourceReceivedBytesPerSecond', true),
    TableSinkWriteBytesPerSeconds: map(sinks, 'sinkWriteBytesPerSecond', true),
  };
}

/**
 * One job as SeaTunnel's job-info, running-jobs and finished-jobs answer it (its JobInfoService):
 * always jobId, jobName, jobStatus, createTime, jobDag, pluginJarsUrls (Tideway has no plugin
 * jars: always empty) and metrics; envOptions too (SeaTunnel's UI reads them there or in the
 * jobDag); errorMsg (null unless it failed) and finishTime once the job ended.
 */
export function jobInfoBody(job: JobInfo, metrics: JobMetrics): Record<string, unknown> {
  const status = statusName(job);
  const body: Record<string, unknown> = {
    jobId: job.jobId,
    jobName: job.jobName,
    jobStatus: status,
    createTime: seaTunnelTime(job.submitTimeMs),
    jobDag: jobDag(job),
    pluginJarsUrls: [],
    envOptions: dottedEnvOptions(job.envOptions),
    metrics: seaTunnelMetrics(metrics, job),
  };
  if (ENDED.has(status)) {
    body.errorMsg = job.error ? job.error.message : null;
    body.finishTime = seaTunnelTime(job.finishTimeMs);
  } else body.isStartWithSavePoint = job.startWithSavepoint;
  return body;
}
