import { logger, type SerializedError } from '@tideway/common';
import type { SlotProfile } from '@tideway/contracts';
import { JOB_STATUS, type JobStatus } from '@tideway/dag';
import type { PlannedJob } from '@tideway/planner';
import type { TaskGroupMetrics } from '@tideway/runtime';
import type { CheckpointSettings } from './checkpoint-coordinator.js';
import type { WorkerGateway } from './gateways.js';
import { PipelineMaster } from './pipeline-master.js';

const log = logger('job-master');

export interface JobListener {
  onJobStatus(job: JobMaster): void;
  /** Slots of a pipeline that ended (every path: finish, fail, cancel). */
  onPipelineEnded(job: JobMaster, slotIds: string[]): void;
}

/** Summed counters of a job. */
export interface JobCounters {
  tables: Map<string, { sourceReceivedCount: number; sinkWriteCount: number; sourceReceivedBytes: number; sinkWriteBytes: number }>;
  sourceReceivedCount: number;
  sinkWriteCount: number;
  sourceReceivedBytes: number;
  sinkWriteBytes: number;
}

/**
 * SeaTunnel's JobMaster: owns one job's state machine and its pipelines. The job fails when a
 * pipeline fails (the others are cancelled), finishes when every pipeline finished.
 */
export class JobMaster {
  status: JobStatus = 'CREATED';
  readonly pipelines: PipelineMaster[];
  readonly submitTime = Date.now();
  startTime = 0;
  finishTime = 0;
  error?: SerializedError;
  private cancelRequested = false;

  constructor(
    readonly job: PlannedJob,
    workers: WorkerGateway,
    private readonly listener: JobListener,
    checkpointSettings: CheckpointSettings,
  ) {
    this.pipelines = job.pipelines.map((p) => new PipelineMaster(job, p, workers, { onStatus: (pm) => this.onPipelineStatus(pm) }, checkpointSettings));
  }

  get jobId(): string {
    return this.job.jobId;
  }

  isEnded(): boolean {
    return JOB_STATUS.isTerminal(this.status);
  }

  setStatus(to: JobStatus): void {
    if (this.status === to) return;
    this.status = JOB_STATUS.transition(this.status, to);
    if (to === 'RUNNING') this.startTime ||= Date.now();
    if (JOB_STATUS.isTerminal(to)) this.finishTime = Date.now();
    log.debug({ jobId: this.jobId, status: to }, 'job status');
    this.listener.onJobStatus(this);
  }

  /** Queued for slots. */
  enqueue(): void {
    this.setStatus('PENDING');
  }

  /** Refused before running (no enough resource with REJECT, or planning failed late). */
  reject(error: SerializedError): void {
    this.error = error;
    this.setStatus('FAILED');
  }

  get wantsCancel(): boolean {
    return this.cancelRequested;
  }

  /** Deploys every pipeline into the granted slots (in task group order). */
  async run(slots: SlotProfile[]): Promise<void> {
    if (this.cancelRequested) {
      this.setStatus('CANCELING');
      this.listener.onPipelineEnded(this, slots.map((s) => s.slotId));
      this.setStatus('CANCELED');
      return;
    }
    this.setStatus('SCHEDULED');
    this.setStatus('RUNNING');
    let offset = 0;
    await Promise.all(
      this.pipelines.map((p) => {
        const mine = slots.slice(offset, offset + p.taskGroups.length);
        offset += p.taskGroups.length;
        return p.deploy(mine);
      }),
    );
  }

  /** Cancel works in every state: before scheduling it ends the job at once. */
  cancel(): void {
    if (this.isEnded()) return;
    this.cancelRequested = true;
    if (this.status === 'CREATED' || this.status === 'PENDING') {
      this.setStatus('CANCELED');
      return;
    }
    if (this.status === 'FAILING' || this.status === 'CANCELING') return;
    this.setStatus('CANCELING');
    for (const p of this.pipelines) p.cancel();
    this.maybeEnd();
  }

  pipeline(id: number): PipelineMaster | undefined {
    return this.pipelines.find((p) => p.pipelineId === id);
  }

  onWorkerLost(address: string): void {
    for (const p of this.pipelines) p.onWorkerLost(address);
  }

  private onPipelineStatus(p: PipelineMaster): void {
    if (p.status === 'FAILING' && !this.isEnded() && this.status !== 'FAILING' && this.status !== 'CANCELING') {
      this.error ??= p.error;
      this.setStatus('FAILING');
      for (const other of this.pipelines) if (other !== p) other.cancel();
    }
    if (p.isEnded()) {
      if (p.status === 'FAILED') this.error ??= p.error;
      this.listener.onPipelineEnded(this, p.slotIds());
      if (p.status === 'FAILED' && this.status === 'RUNNING') {
        this.setStatus('FAILING');
        for (const other of this.pipelines) if (other !== p) other.cancel();
      }
    }
    this.maybeEnd();
  }

  private maybeEnd(): void {
    if (this.isEnded() || !this.pipelines.every((p) => p.isEnded())) return;
    if (this.status === 'FAILING') this.setStatus('FAILED');
    else if (this.status === 'CANCELING') this.setStatus('CANCELED');
    else if (this.pipelines.every((p) => p.status === 'FINISHED')) this.setStatus('FINISHED');
    else {
      this.setStatus('FAILING');
      this.setStatus('FAILED');
    }
  }

  counters(): JobCounters {
    const c: JobCounters = { tables: new Map(), sourceReceivedCount: 0, sinkWriteCount: 0, sourceReceivedBytes: 0, sinkWriteBytes: 0 };
    for (const p of this.pipelines) {
      for (const t of p.taskGroups) add(c, t.metrics);
    }
    return c;
  }
}

function add(c: JobCounters, m: TaskGroupMetrics | undefined): void {
  for (const t of m?.tables ?? []) {
    let e = c.tables.get(t.table);
    if (!e) {
      e = { sourceReceivedCount: 0, sinkWriteCount: 0, sourceReceivedBytes: 0, sinkWriteBytes: 0 };
      c.tables.set(t.table, e);
    }
    e.sourceReceivedCount += t.sourceReceivedCount;
    e.sinkWriteCount += t.sinkWriteCount;
    e.sourceReceivedBytes += t.sourceReceivedBytes;
    e.sinkWriteBytes += t.sinkWriteBytes;
    c.sourceReceivedCount += t.sourceReceivedCount;
    c.sinkWriteCount += t.sinkWriteCount;
    c.sourceReceivedBytes += t.sourceReceivedBytes;
    c.sinkWriteBytes += t.sinkWriteBytes;
  }
}
