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
 * SeaTunnel's jobDag: `vertexInfoMap` (one entry per vertex: id, source/transform/sink, a name
 * like SeaTunnel's `pipeline-1 [Source[0]-FakeSource]`, the table paths) and `pipelineEdges`
 * (pipeline id -> its edges).
 */
export function jobDag(job: JobInfo): object {
  const counters = new Map<string, number>();
  const kind: Record<string, string> = { source: 'Source', transform: 'Transform', sink: 'Sink' };
  const vertexInfoMap = job.vertices.map((v) => {
    const key = `${v.pipelineId}:${v.type}`;
    const n = counters.get(key) ?? 0;
    counters.set(key, n + 1);
    return {
      vertexId: v.vertexId,
      type: v.type,
      vertexName: `pipeline-${v.pipelineId} [${kind[v.type] ?? v.type}[${n}]-${v.pluginName}]`,
      tablePaths: v.tablePaths,
    };
  });
  const pipelineEdges: Record<string, Array<{ inputVertexId: string; targetVertexId: string }>> = {};
  for (const e of job.edges)
    (pipelineEdges[String(e.pipelineId)] ??= []).push({ inputVertexId: String(e.inputVertexId), targetVertexId: String(e.targetVertexId) });
  return { jobId: job.jobId, envOptions: job.envOptions, vertexInfoMap, pipelineEdges };
}

/** A job's metrics under SeaTunnel's names (as `seatunnel.sh --get_running_job_metrics` prints them). */
export function seaTunnelMetrics(m: JobMetrics): Record<string, unknown> {
  const perTable = <K extends keyof JobMetrics['tables'][number]>(key: K) => Object.fromEntries(m.tables.map((t) => [t.table, t[key]]));
  return {
    SourceReceivedCount: m.sourceReceivedCount,
    SourceReceivedQPS: m.sourceReceivedQps,
    SourceReceivedBytes: m.sourceReceivedBytes,
    SourceReceivedBytesPerSeconds: m.sourceReceivedBytesPerSecond,
    SinkWriteCount: m.sinkWriteCount,
    SinkWriteQPS: m.sinkWriteQps,
    SinkWriteBytes: m.sinkWriteBytes,
    SinkWriteBytesPerSeconds: m.sinkWriteBytesPerSecond,
    TableSourceReceivedCount: perTable('sourceReceivedCount'),
    TableSinkWriteCount: perTable('sinkWriteCount'),
    TableSourceReceivedBytes: perTable('sourceReceivedBytes'),
    TableSinkWriteBytes: perTable('sinkWriteBytes'),
    TableSourceReceivedQPS: perTable('sourceReceivedQps'),
    TableSinkWriteQPS: perTable('sinkWriteQps'),
  };
}

/**
 * `/job-info/:jobId`: always jobId, jobName, jobStatus, createTime, jobDag and metrics; envOptions
 * and pluginJarsUrls (Tideway has no plugin jars: always empty) while the job runs; finishedTime
 * and errorMsg once it ended, as SeaTunnel's JobInfoService answers.
 */
export function jobInfoBody(job: JobInfo, metrics: JobMetrics): Record<string, unknown> {
  const status = statusName(job);
  const body: Record<string, unknown> = {
    jobId: job.jobId,
    jobName: job.jobName,
    jobStatus: status,
    createTime: seaTunnelTime(job.submitTimeMs),
    jobDag: jobDag(job),
    metrics: seaTunnelMetrics(metrics),
  };
  if (ENDED.has(status)) {
    body.finishedTime = seaTunnelTime(job.finishTimeMs);
    body.errorMsg = job.error ? job.error.message : null;
  } else {
    body.envOptions = job.envOptions;
    body.pluginJarsUrls = [];
  }
  return body;
}

/** One entry of `/running-jobs`. */
export function runningJobBody(job: JobInfo, metrics: JobMetrics): Record<string, unknown> {
  return {
    jobId: job.jobId,
    jobName: job.jobName,
    jobStatus: statusName(job),
    envOptions: job.envOptions,
    createTime: seaTunnelTime(job.submitTimeMs),
    jobDag: jobDag(job),
    pluginJarsUrls: [],
    metrics: { sourceReceivedCount: String(metrics.sourceReceivedCount), sinkWriteCount: String(metrics.sinkWriteCount) },
  };
}

/** One entry of `/finished-jobs/:state`. */
export function finishedJobBody(job: JobInfo, metrics: JobMetrics): Record<string, unknown> {
  return {
    jobId: job.jobId,
    jobName: job.jobName,
    jobStatus: statusName(job),
    errorMsg: job.error ? job.error.message : null,
    createTime: seaTunnelTime(job.submitTimeMs),
    finishTime: seaTunnelTime(job.finishTimeMs),
    jobDag: jobDag(job),
    metrics: seaTunnelMetrics(metrics),
  };
}
