import { onFirstUse } from '@tideway/common';
import type { Registry } from 'prom-client';
import { JOB_STATUS, type JobStatus } from '@tideway/dag';
import type { DeliveryStats } from './event-delivery.js';
import type { JobMaster } from './job-master.js';
import type { TaskBusynessSample } from '@tideway/runtime';
import { TableSeries } from './table-series.js';

/** prom-client, loaded when metrics are first registered: a process serving none (a local-mode job) skips its 90 modules. */
const prom = onFirstUse<typeof import('prom-client')>('prom-client', import.meta.url);

/** What the coordinator's metrics read at scrape time. */
export interface CoordinatorMetricsSource {
  /** Every job the coordinator knows: running ones, and ended ones until their history expires. */
  jobMasters(): Iterable<JobMaster>;
  /** Workers the resource manager reported lost since the start. */
  readonly workersLost: number;
  /** Whether this coordinator leads now, and with which epoch. */
  readonly leading: boolean;
  readonly epoch: number;
  /** Each job event receiver's deliveries (none without receivers). */
  eventDeliveries(): DeliveryStats[];
}

const STATUSES: readonly JobStatus[] = JOB_STATUS.states();

/**
 * The coordinator's Prometheus metrics, computed from its JobMasters at scrape time (nothing
 * on the hot path): jobs by status, running task groups, and per job rows and bytes read and
 * written and checkpoints completed and failed. Per-job series disappear with the job's history.
 */
export function registerCoordinatorMetrics(
  registry: Registry,
  source: CoordinatorMetricsSource,
  options: { maxTableSeries?: number } = {},
): void {
  new (prom().Gauge)({
    name: 'tideway_jobs',
    help: 'Jobs known to the coordinator, by status (ended jobs until history-job-expire-minutes).',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      const counts = new Map<string, number>(STATUSES.map((s) => [s, 0]));
      for (const j of source.jobMasters()) counts.set(j.status, (counts.get(j.status) ?? 0) + 1);
      for (const [status, n] of counts) this.set({ status }, n);
    },
  });
  new (prom().Gauge)({
    name: 'tideway_task_groups_running',
    help: 'Task groups in state RUNNING, over every job.',
    registers: [registry],
    collect() {
      let n = 0;
      for (const j of source.jobMasters()) for (const p of j.pipelines) for (const t of p.taskGroups) if (t.state === 'RUNNING') n++;
      this.set(n);
    },
  });
  perTaskGroup(
    registry,
    source,
    'tideway_task_busy_time_ms_per_second',
    "Milliseconds per second a running task group was busy (Flink's busyTimeMsPerSecond).",
    (b) => b.busyMsPerSecond,
  );
  perTaskGroup(
    registry,
    source,
    'tideway_task_idle_time_ms_per_second',
    "Milliseconds per second a running task group waited for input (Flink's idleTimeMsPerSecond).",
    (b) => b.idleMsPerSecond,
  );
  perTaskGroup(
    registry,
    source,
    'tideway_task_back_pressured_time_ms_per_second',
    "Milliseconds per second a running task group waited on a full output channel (Flink's backPressuredTimeMsPerSecond).",
    (b) => b.backPressuredMsPerSecond,
  );
  perTaskGroup(
    registry,
    source,
    'tideway_task_out_pool_usage',
    "How full a running task group's fullest output channel is, 0 to 1 (Flink's outPoolUsage).",
    (b) => b.outPoolUsage,
  );
  perTaskGroup(
    registry,
    source,
    'tideway_task_in_pool_usage',
    "How full a running task group's input queue is, 0 to 1: batches received through the shuffle and not yet processed, over what its input channels hold (Flink's inPoolUsage; 0 without shuffle input).",
    (b) => b.inPoolUsage,
  );
  perTaskGroup(
    registry,
    source,
    'tideway_task_source_event_time_lag_seconds',
    "CDC sources: seconds from the database's commit of the newest change read to its rows leaving the task group for the sinks; 0 when caught up with the log (Flink CDC's currentEmitEventTimeLag, measured after the fused sinks wrote).",
    (b) => (b.eventTimeLagMs === undefined ? undefined : b.eventTimeLagMs / 1000),
  );
  perJob(
    registry,
    source,
    'tideway_job_rows_read_total',
    'Rows read by the sources of a job (SourceReceivedCount).',
    (j) => j.counters().sourceReceivedCount,
  );
  perJob(
    registry,
    source,
    'tideway_job_rows_written_total',
    'Rows written by the sinks of a job (SinkWriteCount).',
    (j) => j.counters().sinkWriteCount,
  );
  perJob(
    registry,
    source,
    'tideway_job_bytes_read_total',
    'Bytes read by the sources of a job (SourceReceivedBytes).',
    (j) => j.counters().sourceReceivedBytes,
  );
  perJob(
    registry,
    source,
    'tideway_job_bytes_written_total',
    'Bytes written by the sinks of a job (SinkWriteBytes).',
    (j) => j.counters().sinkWriteBytes,
  );
  new (prom().Counter)({
    name: 'tideway_job_bad_rows_total',
    help: 'Rows a transform vertex dropped as bad (env.transform_error_handler mode LOG), by job and vertex.',
    labelNames: ['job_id', 'job_name', 'vertex'],
    registers: [registry],
    collect() {
      this.reset();
      for (const j of source.jobMasters())
        for (const [vertex, n] of j.counters().badRows) this.inc({ job_id: j.jobId, job_name: j.job.jobName, vertex: String(vertex) }, n);
    },
  });
  new (prom().Gauge)({
    name: 'tideway_source_lag',
    help: "How far a source split is behind the end of its stream, as its reader last saw it (a Kafka partition's consumer lag in records), by job and split.",
    labelNames: ['job_id', 'job_name', 'split'],
    registers: [registry],
    collect() {
      this.reset();
      for (const j of source.jobMasters()) {
        if (j.status !== 'RUNNING') continue;
        for (const [split, n] of j.counters().sourceLag) this.set({ job_id: j.jobId, job_name: j.job.jobName, split }, n);
      }
    },
  });
  perJob(registry, source, 'tideway_job_checkpoints_completed_total', 'Checkpoints of a job that completed.', (j) =>
    sum(j, (p) => p.completedCheckpoints),
  );
  perJob(registry, source, 'tideway_job_checkpoints_failed_total', 'Checkpoints of a job that failed or timed out.', (j) =>
    sum(j, (p) => p.failedCheckpoints),
  );
  const tables = new TableSeries(options.maxTableSeries);
  perTable(
    registry,
    source,
    tables,
    'tideway_table_rows_read_total',
    'Rows read from a table by the sources of a job.',
    (c) => c.sourceReceivedCount,
  );
  perTable(
    registry,
    source,
    tables,
    'tideway_table_rows_written_total',
    'Rows written to a table by the sinks of a job.',
    (c) => c.sinkWriteCount,
  );
  perTable(
    registry,
    source,
    tables,
    'tideway_table_bytes_read_total',
    'Bytes read from a table by the sources of a job.',
    (c) => c.sourceReceivedBytes,
  );
  perTable(
    registry,
    source,
    tables,
    'tideway_table_bytes_written_total',
    'Bytes written to a table by the sinks of a job.',
    (c) => c.sinkWriteBytes,
  );
  new (prom().Gauge)({
    name: 'tideway_job_tables_folded',
    help: 'Tables of a job past tideway.metrics.max-table-series, whose counts are summed into the series labelled table="_other".',
    labelNames: ['job_id', 'job_name'],
    registers: [registry],
    collect() {
      this.reset();
      for (const j of source.jobMasters())
        this.set({ job_id: j.jobId, job_name: j.job.jobName }, tables.series(j, j.counters().tables).folded);
    },
  });
  new (prom().Gauge)({
    name: 'tideway_coordinator_leader',
    help: '1 while this coordinator leads the cluster, 0 while it follows.',
    registers: [registry],
    collect() {
      this.set(source.leading ? 1 : 0);
    },
  });
  new (prom().Gauge)({
    name: 'tideway_coordinator_epoch',
    help: 'The fencing epoch this coordinator leads with (0 while it follows).',
    registers: [registry],
    collect() {
      this.set(source.leading ? source.epoch : 0);
    },
  });
  eventCounter(
    registry,
    source,
    'tideway_events_delivered_total',
    'Job events a receiver accepted (a 2xx answer to their POST).',
    (s) => s.delivered,
  );
  eventCounter(
    registry,
    source,
    'tideway_events_failed_posts_total',
    'POSTs of job events that failed (no answer within tideway.events.request-timeout, no connection, or a status other than 2xx); each is retried.',
    (s) => s.failedPosts,
  );
  eventCounter(
    registry,
    source,
    'tideway_events_dropped_total',
    'Job events dropped because the receiver was down past tideway.events.buffer-size events (or the coordinator stopped first).',
    (s) => s.dropped,
  );
  new (prom().Gauge)({
    name: 'tideway_events_buffered',
    help: 'Job events waiting for their receiver.',
    labelNames: ['receiver'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of source.eventDeliveries()) this.set({ receiver: s.name }, s.buffered);
    },
  });
  new (prom().Counter)({
    name: 'tideway_coordinator_workers_lost_total',
    help: 'Workers the resource manager declared lost and told this coordinator about.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(source.workersLost);
    },
  });
}

/** A counter per table of each job (at most the limit of TableSeries, the rest in `_other`), re-read at each scrape. */
function perTable(
  registry: Registry,
  source: CoordinatorMetricsSource,
  tables: TableSeries,
  name: string,
  help: string,
  value: (c: { sourceReceivedCount: number; sinkWriteCount: number; sourceReceivedBytes: number; sinkWriteBytes: number }) => number,
): void {
  new (prom().Counter)({
    name,
    help: `${help} Past tideway.metrics.max-table-series tables per job, the rest are summed into table="_other".`,
    labelNames: ['job_id', 'job_name', 'table'],
    registers: [registry],
    collect() {
      this.reset();
      for (const j of source.jobMasters())
        for (const [table, c] of tables.series(j, j.counters().tables).series)
          this.inc({ job_id: j.jobId, job_name: j.job.jobName, table }, value(c));
    },
  });
}

/** A counter per job event receiver, labelled receiver, re-read at each scrape. */
function eventCounter(
  registry: Registry,
  source: CoordinatorMetricsSource,
  name: string,
  help: string,
  value: (s: DeliveryStats) => number,
): void {
  new (prom().Counter)({
    name,
    help,
    labelNames: ['receiver'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of source.eventDeliveries()) this.inc({ receiver: s.name }, value(s));
    },
  });
}

function sum(job: JobMaster, of: (p: JobMaster['pipelines'][number]) => number): number {
  let n = 0;
  for (const p of job.pipelines) n += of(p);
  return n;
}

/** A gauge per running task group (job_id, pipeline, task_group) from its last busyness report. */
function perTaskGroup(
  registry: Registry,
  source: CoordinatorMetricsSource,
  name: string,
  help: string,
  value: (b: TaskBusynessSample) => number | undefined,
): void {
  new (prom().Gauge)({
    name,
    help,
    labelNames: ['job_id', 'pipeline', 'task_group'],
    registers: [registry],
    collect() {
      this.reset();
      for (const j of source.jobMasters())
        for (const p of j.pipelines)
          for (const t of p.taskGroups) {
            const b = t.metrics?.busyness;
            const v = b && t.state === 'RUNNING' ? value(b) : undefined;
            if (v !== undefined) this.set({ job_id: j.jobId, pipeline: String(p.pipelineId), task_group: String(t.index) }, v);
          }
    },
  });
}

/** A counter per job, labelled job_id and job_name, re-read from the jobs at each scrape. */
function perJob(registry: Registry, source: CoordinatorMetricsSource, name: string, help: string, value: (j: JobMaster) => number): void {
  new (prom().Counter)({
    name,
    help,
    labelNames: ['job_id', 'job_name'],
    registers: [registry],
    collect() {
      // Reset first so that expired jobs leave the output.
      this.reset();
      for (const j of source.jobMasters()) this.inc({ job_id: j.jobId, job_name: j.job.jobName }, value(j));
    },
  });
}
