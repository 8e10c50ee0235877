import { ExecutionState as WireState, JobStatus as WireJobStatus, type JobInfo, type JobMetrics } from '@tideway/contracts';
import type { ExecutionState, JobStatus } from '@tideway/dag';
import type { JobMaster } from './job-master.js';
import type { RateTracker } from './rate-tracker.js';
import { jobDagInfo } from './job-dag-info.js';

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

const EXEC_TO_WIRE: Record<ExecutionState, WireState> = {
  INITIALIZING: WireState.INIT,
  CREATED: WireState.INIT,
  DEPLOYING: WireState.DEPLOYING,
  RUNNING: WireState.EXEC_RUNNING,
  FINISHED: WireState.EXEC_FINISHED,
  CANCELING: WireState.CANCELLING,
  CANCELED: WireState.EXEC_CANCELED,
  FAILING: WireState.EXEC_FAILED,
  FAILED: WireState.EXEC_FAILED,
};

/** A submitted job still being planned: it has no JobMaster yet, and may be cancelled already. */
export interface PlanningJob {
  readonly jobName: string;
  readonly submitTimeMs: number;
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
    vertices: [],
    edges: [],
    envOptions: {},
  };
}

/** The wire view of a job. */
export function jobInfo(job: JobMaster): JobInfo {
  let lastCheckpoint = 0;
  let completed = 0;
  for (const p of job.pipelines) {
    completed += p.checkpoints.completed;
    lastCheckpoint = Math.max(lastCheckpoint, p.checkpoints.latestCompleted?.timestamp ?? 0);
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
      taskGroups: p.taskGroups.map((t) => ({
        index: t.index,
        state: t.readyToClose && t.state === 'RUNNING' ? WireState.PREPARE_CLOSE : EXEC_TO_WIRE[t.state],
        workerAddress: t.slot?.workerAddress ?? '',
        error: t.error ? { code: t.error.code, message: t.error.message, retryable: t.error.retryable } : undefined,
        description: describeChain(p.plan.taskGroups[t.index]?.descriptor.root),
      })),
    })),
    lastCheckpointTimeMs: lastCheckpoint,
    completedCheckpoints: completed,
    ...jobDagInfo(job.job),
  };
}

function describeChain(node: { plugin: { name: string }; children: Array<{ plugin: { name: string }; children: unknown[] }> } | undefined): string {
  if (!node) return '';
  const kids = node.children.map((c) => describeChain(c as never));
  return kids.length === 0 ? node.plugin.name : kids.length === 1 ? `${node.plugin.name} -> ${kids[0]}` : `${node.plugin.name} -> [${kids.join(', ')}]`;
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
  }
  return m;
}

/** The wire view of a job's counters, with rates over the tracker's window. */
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
    tables: [...c.tables].map(([table, t]) => ({
      table,
      ...t,
      sourceReceivedQps: rate(`table:${table}:source`),
      sinkWriteQps: rate(`table:${table}:sink`),
    })),
  };
}
