import {
  JobStatus as WireJobStatus,
  type CheckpointInFlight,
  type CheckpointRecord,
  type FailoverInfo,
  type JobInfo,
  type JobMetrics,
  type TaskBusyness,
} from '@tideway/contracts';
import type { StoredCheckpointRecord, StoredFailover, StoredJob } from '@tideway/cluster';
import type { JobStatus } from '@tideway/dag';
import { chainNodes, trackedStateToWire } from '@tideway/runtime';
import type { JobMaster } from './job-master.js';
import type { RateTracker } from './rate-tracker.js';
import { jobDagInfo, type JobDagInfo } from './job-dag-info.js';

const JOB_STATUS_TO_WIRE: Record<JobStatus, WireJobStatus> = {
  CREATED: WireJobStatus.CREATED,
  PENDING: WireJobStatus.PENDING,
  SCHEDULED: WireJobStatus.SCHEDULED,
  RUNNING: WireJobStatus.RUNNING,
  FAILING: WireJobStatus.FAILING,
  FAILED: WireJobStatus.FAILED,
  DOING_SAVEPOINT: WireJobStatus.DOING_SAVEPOINT,
  SAVEPOINT_DONE: WireJobStatus.SAVEPOINT_DONE,
  CANCELING: WireJobStatus.CANCELING,
  CANCELED: WireJobStatus.CANCELED,
  FINISHED: WireJobStatus.FINISHED,
};

/** A submitted job still being planned: it has no JobMaster yet, and may be cancelled already. */
export interface PlanningJob {
  readonly jobName: string;
  readonly submitTimeMs: number;
  /** The namespace of the token that submitted it. */
  readonly namespace: string;
  /** Resumed from its own savepoint or latest checkpoint (-r). */
  readonly startWithSavepoint: boolean;
  cancelRequested: boolean;
}

/** The wire view of a job being planned: CREATED, or CANCELING once a cancel came in. */
export function planningJobInfo(jobId: string, p: PlanningJob): JobInfo {
  return {
    jobId,
    jobName: p.jobName,
    status: p.cancelRequested ? WireJobStatus.CANCELING : WireJobStatus.CREATED,
    jobMode: '',
    submitTimeMs: p.submitTimeMs,
    startTimeMs: 0,
    finishTimeMs: 0,
    error: undefined,
    pipelines: [],
    lastCheckpointTimeMs: 0,
    completedCheckpoints: 0,
    failedCheckpoints: 0,
    failovers: [],
    vertices: [],
    edges: [],
    envOptions: {},
    namespace: p.namespace,
    startWithSavepoint: p.startWithSavepoint,
  };
}

function inFlight(c: ReturnType<JobMaster['pipelines'][number]['checkpoints']['inFlight']>): CheckpointInFlight | undefined {
  return c && { checkpointId: c.checkpointId, kind: c.kind, triggerTimeMs: c.triggeredAt, acknowledged: c.acknowledged, total: c.total };
}

function checkpointRecords(records: readonly StoredCheckpointRecord[]): CheckpointRecord[] {
  return records.map((r) => ({ ...r }));
}

function failoverInfos(f: readonly StoredFailover[]): FailoverInfo[] {
  return f.map((x) => ({ timeMs: x.timeMs, pipelineId: x.pipelineId, reason: x.reason, epoch: x.epoch }));
}

/**
 * The wire view of a job known only from the state store: an ended job (of this leader or an
 * earlier one), or an active one not yet taken over.
 */
export function storedJobInfo(stored: StoredJob): JobInfo {
  const s = stored.state;
  return {
    jobId: stored.info.jobId,
    jobName: stored.info.jobName,
    status: WireJobStatus[s.status as keyof typeof WireJobStatus] ?? WireJobStatus.JOB_STATUS_UNSPECIFIED,
    jobMode: s.jobMode,
    submitTimeMs: stored.info.submitTimeMs,
    startTimeMs: s.startTimeMs,
    finishTimeMs: s.finishTimeMs,
    error: s.error,
    pipelines: s.pipelines.map((p) => ({
      pipelineId: p.pipelineId,
      status: p.status,
      attempt: p.attempt,
      completedCheckpoints: p.completedCheckpoints,
      failedCheckpoints: p.failedCheckpoints,
      lastCheckpointTimeMs: p.lastCheckpointTimeMs,
      checkpointHistory: checkpointRecords(p.checkpointHistory ?? []),
      // Only the live leader knows a checkpoint in flight.
      checkpointInFlight: undefined,
      taskGroups: p.taskGroups.map((t) => ({
        index: t.index,
        state: trackedStateToWire(t.state),
        workerAddress: t.slot?.workerAddress ?? '',
        error: t.error,
        description: '',
      })),
    })),
    lastCheckpointTimeMs: Math.max(0, ...s.pipelines.map((p) => p.lastCheckpointTimeMs)),
    completedCheckpoints: s.pipelines.reduce((n, p) => n + p.completedCheckpoints, 0),
    failedCheckpoints: s.pipelines.reduce((n, p) => n + p.failedCheckpoints, 0),
    failovers: failoverInfos(s.failovers),
    ...storedDag(stored),
    namespace: stored.info.namespace ?? '',
    startWithSavepoint: Boolean(stored.info.restoreJobId),
  };
}

/** The job DAG recorded at submit (StoredJobInfo.planJson), empty when none was. */
function storedDag(stored: StoredJob): JobDagInfo {
  if (!stored.info.planJson) return { vertices: [], edges: [], envOptions: {} };
  const dag = JSON.parse(stored.info.planJson) as JobDagInfo;
  // A DAG recorded before vertices carried their block's place in the config has none: 0.
  return { ...dag, vertices: dag.vertices.map((v) => ({ ...v, configIndex: v.configIndex ?? 0 })) };
}

/** The counters of a job known only from the state store (rates are 0: it is not running here). */
export function storedJobMetrics(stored: StoredJob): JobMetrics {
  const tables = new Map<string, JobMetrics['tables'][number]>();
  for (const p of stored.state.pipelines) {
    for (const c of p.counters) {
      const t = tables.get(c.table) ?? {
        table: c.table,
        sourceReceivedCount: 0,
        sinkWriteCount: 0,
        sourceReceivedBytes: 0,
        sinkWriteBytes: 0,
        sourceReceivedQps: 0,
        sinkWriteQps: 0,
        sourceReceivedBytesPerSecond: 0,
        sinkWriteBytesPerSecond: 0,
      };
      t.sourceReceivedCount += c.sourceReceivedCount;
      t.sinkWriteCount += c.sinkWriteCount;
      t.sourceReceivedBytes += c.sourceReceivedBytes;
      t.sinkWriteBytes += c.sinkWriteBytes;
      tables.set(c.table, t);
    }
  }
  const all = [...tables.values()];
  const sum = (k: 'sourceReceivedCount' | 'sinkWriteCount' | 'sourceReceivedBytes' | 'sinkWriteBytes') => all.reduce((n, t) => n + t[k], 0);
  return {
    jobId: stored.info.jobId,
    sourceReceivedCount: sum('sourceReceivedCount'),
    sinkWriteCount: sum('sinkWriteCount'),
    sourceReceivedBytes: sum('sourceReceivedBytes'),
    sinkWriteBytes: sum('sinkWriteBytes'),
    sourceReceivedQps: 0,
    sinkWriteQps: 0,
    sourceReceivedBytesPerSecond: 0,
    sinkWriteBytesPerSecond: 0,
    failedCount: 0,
    // Not running here: no task group reports its time or its bad rows.
    tasks: [],
    badRows: {},
    tables: all,
  };
}

/** The wire view of a job submitted in `namespace`. */
export function jobInfo(job: JobMaster, namespace: string, startWithSavepoint = false): JobInfo {
  let lastCheckpoint = 0;
  let completed = 0;
  let failed = 0;
  for (const p of job.pipelines) {
    completed += p.completedCheckpoints;
    failed += p.failedCheckpoints;
    lastCheckpoint = Math.max(lastCheckpoint, p.lastCheckpointTime);
  }
  return {
    jobId: job.jobId,
    jobName: job.job.jobName,
    status: JOB_STATUS_TO_WIRE[job.status],
    jobMode: job.job.jobMode,
    submitTimeMs: job.submitTime,
    startTimeMs: job.startTime,
    finishTimeMs: job.finishTime,
    error: job.error ? { code: job.error.code, message: job.error.message, retryable: job.error.retryable } : undefined,
    pipelines: job.pipelines.map((p) => ({
      pipelineId: p.pipelineId,
      status: p.status,
      attempt: p.attempt,
      completedCheckpoints: p.completedCheckpoints,
      failedCheckpoints: p.failedCheckpoints,
      lastCheckpointTimeMs: p.lastCheckpointTime,
      checkpointHistory: checkpointRecords(p.checkpointHistory),
      checkpointInFlight: inFlight(p.checkpoints.inFlight()),
      taskGroups: p.taskGroups.map((t) => ({
        index: t.index,
        state: trackedStateToWire(t.state, t.readyToClose),
        workerAddress: t.slot?.workerAddress ?? '',
        error: t.error ? { code: t.error.code, message: t.error.message, retryable: t.error.retryable } : undefined,
        description: describeChain(p.plan.taskGroups[t.index]?.descriptor.root),
      })),
    })),
    lastCheckpointTimeMs: lastCheckpoint,
    completedCheckpoints: completed,
    failedCheckpoints: failed,
    failovers: failoverInfos(job.failovers),
    ...jobDagInfo(job.job),
    namespace,
    startWithSavepoint,
  };
}

function describeChain(
  node: { plugin: { name: string }; children: Array<{ plugin: { name: string }; children: unknown[] }> } | undefined,
): string {
  if (!node) return '';
  const kids = node.children.map((c) => describeChain(c as never));
  return kids.length === 0
    ? node.plugin.name
    : kids.length === 1
      ? `${node.plugin.name} -> ${kids[0]}`
      : `${node.plugin.name} -> [${kids.join(', ')}]`;
}

/** The counters a job's rates are computed from, by name (job totals and `table:<id>:...`). */
export function rateCounters(job: JobMaster): Map<string, number> {
  const c = job.counters();
  const m = new Map<string, number>([
    ['source', c.sourceReceivedCount],
    ['sink', c.sinkWriteCount],
    ['sourceBytes', c.sourceReceivedBytes],
    ['sinkBytes', c.sinkWriteBytes],
  ]);
  for (const [table, t] of c.tables) {
    m.set(`table:${table}:source`, t.sourceReceivedCount);
    m.set(`table:${table}:sink`, t.sinkWriteCount);
    m.set(`table:${table}:sourceBytes`, t.sourceReceivedBytes);
    m.set(`table:${table}:sinkBytes`, t.sinkWriteBytes);
  }
  return m;
}

/** The wire view of a job's counters, with rates over the tracker's window. */
/** Each running task group's last busyness report, with the vertices its chain runs. */
function taskBusyness(job: JobMaster): TaskBusyness[] {
  return job.pipelines.flatMap((p) =>
    p.taskGroups.flatMap((t) => {
      const b = t.metrics?.busyness;
      if (!b || t.state !== 'RUNNING') return [];
      const root = p.plan.taskGroups[t.index]?.descriptor.root;
      return [
        {
          pipelineId: p.pipelineId,
          taskGroupIndex: t.index,
          workerAddress: t.slot?.workerAddress ?? '',
          vertexIds: root ? [...chainNodes(root)].map((n) => n.vertexId) : [],
          busyMsPerSecond: b.busyMsPerSecond,
          idleMsPerSecond: b.idleMsPerSecond,
          backPressuredMsPerSecond: b.backPressuredMsPerSecond,
          outPoolUsage: b.outPoolUsage,
          eventTimeLagMs: b.eventTimeLagMs,
          inPoolUsage: b.inPoolUsage,
          inQueueBatches: b.inQueueBatches,
          inQueueCapacity: b.inQueueCapacity,
          accumulatedBusyMs: b.accumulatedBusyMs,
          accumulatedIdleMs: b.accumulatedIdleMs,
          accumulatedBackPressuredMs: b.accumulatedBackPressuredMs,
        },
      ];
    }),
  );
}

export function jobMetrics(job: JobMaster, rates?: RateTracker): JobMetrics {
  const c = job.counters();
  const rate = (name: string) => rates?.rate(name) ?? 0;
  return {
    jobId: job.jobId,
    sourceReceivedCount: c.sourceReceivedCount,
    sinkWriteCount: c.sinkWriteCount,
    sourceReceivedBytes: c.sourceReceivedBytes,
    sinkWriteBytes: c.sinkWriteBytes,
    sourceReceivedQps: rate('source'),
    sinkWriteQps: rate('sink'),
    sourceReceivedBytesPerSecond: rate('sourceBytes'),
    sinkWriteBytesPerSecond: rate('sinkBytes'),
    failedCount: 0,
    tasks: taskBusyness(job),
    badRows: Object.fromEntries(c.badRows),
    tables: [...c.tables].map(([table, t]) => ({
      table,
      ...t,
      sourceReceivedQps: rate(`table:${table}:source`),
      sinkWriteQps: rate(`table:${table}:sink`),
      sourceReceivedBytesPerSecond: rate(`table:${table}:sourceBytes`),
      sinkWriteBytesPerSecond: rate(`table:${table}:sinkBytes`),
    })),
  };
}
