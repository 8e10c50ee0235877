import { ErrorCode, TidewayError, logger, type SerializedError } from '@tideway/common';
import type { SlotProfile } from '@tideway/contracts';
import type { StoredCheckpointRecord, StoredFailover, StoredJobState, StoredPipeline } from '@tideway/cluster';
import { JOB_STATUS, PIPELINE_STATUS, type JobStatus, type PipelineStatus } from '@tideway/dag';
import type { PlannedJob } from '@tideway/planner';
import type { TaskGroupMetrics } from '@tideway/runtime';
import type { RestorePoint } from './checkpoint-records.js';
import type { PipelineRecords, PipelineSettings } from './pipeline-deps.js';
import { PipelineMaster, type PipelineDeps, type SchemaChangeNotice } from './pipeline-master.js';

const log = logger('job-master');

/** What a job records in the state store (its pipelines' records, and its own changes). */
export interface JobRecords extends PipelineRecords {
  /** The job's state changed: write it soon. */
  changed(): void;
}

export interface JobListener {
  onJobStatus(job: JobMaster): void;
  /** Slots of a pipeline that ended (every path: finish, fail, cancel, savepoint). */
  onPipelineEnded(job: JobMaster, slotIds: string[]): void;
  /** A checkpoint of a pipeline ended (completed, failed or aborted). */
  onCheckpoint?(job: JobMaster, pipelineId: number, record: StoredCheckpointRecord): void;
  /** A pipeline is failing over (restarting, or failing for good). */
  onFailover?(job: JobMaster, failover: StoredFailover): void;
  /** A source reader of a pipeline emitted a schema change. */
  onSchemaChange?(job: JobMaster, pipelineId: number, change: SchemaChangeNotice): void;
}

/** Summed counters of a job. */
export interface JobCounters {
  tables: Map<string, { sourceReceivedCount: number; sinkWriteCount: number; sourceReceivedBytes: number; sinkWriteBytes: number }>;
  sourceReceivedCount: number;
  sinkWriteCount: number;
  sourceReceivedBytes: number;
  sinkWriteBytes: number;
  /** Bad rows dropped by each transform vertex (row-level error handling), by vertex id. */
  badRows: Map<number, number>;
  /** The sources' lag by split id (a Kafka partition's consumer lag), as last reported. */
  sourceLag: Map<string, number>;
}

/**
 * SeaTunnel's JobMaster: owns one job's state machine and its pipelines. A pipeline restarts
 * by itself on failure while its retries last; the job fails when a pipeline has failed for
 * good (the others are cancelled), finishes when every pipeline finished, and ends
 * SAVEPOINT_DONE when a stop-with-savepoint took every pipeline down.
 */
export class JobMaster {
  status: JobStatus = 'CREATED';
  readonly pipelines: PipelineMaster[];
  readonly submitTime: number;
  /** Fail-overs and take-overs of its pipelines, oldest first. */
  readonly failovers: StoredFailover[] = [];
  startTime = 0;
  finishTime = 0;
  /** The sequence of the job's last event pushed to receivers (job-events.ts). */
  eventSequence = 0;
  error?: SerializedError;
  private cancelRequested = false;
  private savepointRequested = false;

  private readonly records?: JobRecords;

  constructor(
    readonly job: PlannedJob,
    deps: Omit<PipelineDeps, 'listener' | 'records'> & { records?: JobRecords; submitTime?: number; epoch?: () => number },
    private readonly listener: JobListener,
    settings: PipelineSettings,
    restorePoints: Map<number, RestorePoint> = new Map(),
  ) {
    this.records = deps.records;
    this.submitTime = deps.submitTime ?? Date.now();
    const epoch = deps.epoch ?? (() => 0);
    this.pipelines = job.pipelines.map(
      (p) =>
        new PipelineMaster(
          job,
          p,
          {
            ...deps,
            listener: {
              onStatus: (pm) => this.onPipelineStatus(pm),
              onFailover: (pm, reason) => {
                const failover = { timeMs: Date.now(), pipelineId: pm.pipelineId, reason, epoch: epoch() };
                this.failovers.push(failover);
                this.listener.onFailover?.(this, failover);
              },
              onCheckpoint: (pm, record) => {
                this.records?.changed();
                this.listener.onCheckpoint?.(this, pm.pipelineId, record);
              },
              onSchemaChange: (pm, change) => this.listener.onSchemaChange?.(this, pm.pipelineId, change),
            },
          },
          settings,
          restorePoints.get(p.pipelineId),
        ),
    );
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
    this.records?.changed();
    this.listener.onJobStatus(this);
  }

  /**
   * A new leader takes the job over from its recorded state: a running job's unfinished
   * pipelines restore from their latest recorded checkpoint (into `slotsOf`'s slots where the
   * workers still hold them); a job that was being cancelled or failing ends so.
   */
  async resume(state: StoredJobState, epoch: number, slotsOf: (p: StoredPipeline) => Array<SlotProfile | undefined>): Promise<void> {
    this.startTime = state.startTimeMs;
    this.failovers.push(...state.failovers);
    this.eventSequence = state.eventSequence ?? 0;
    if (state.error) this.error = state.error;
    const stopping = state.status === 'CANCELING' || state.status === 'FAILING';
    // The job takes its recorded state (a running one, whatever its recorded step, runs on).
    this.status = JOB_STATUS.restored(stopping ? state.status : 'RUNNING');
    if (state.status === 'CANCELING') this.cancelRequested = true;
    await Promise.all(
      this.pipelines.map(async (p) => {
        const sp = state.pipelines.find((x) => x.pipelineId === p.pipelineId);
        p.resumeCheckpointHistory(sp?.checkpointHistory);
        const recorded = sp?.status as PipelineStatus | undefined;
        if (recorded && PIPELINE_STATUS.isTerminal(recorded)) return p.markEnded(recorded, sp?.taskGroups.find((t) => t.error)?.error);
        if (stopping || !sp) return p.markEnded(state.status === 'CANCELING' ? 'CANCELED' : 'FAILED', this.error);
        const takeOver = { timeMs: Date.now(), pipelineId: p.pipelineId, reason: `taken over by a new leader (epoch ${epoch})`, epoch };
        this.failovers.push(takeOver);
        this.listener.onFailover?.(this, takeOver);
        await p.resume({ stored: sp, slots: slotsOf(sp) });
      }),
    );
    this.records?.changed();
    this.maybeEnd();
  }

  /** Queued for slots. */
  enqueue(): void {
    this.setStatus('PENDING');
  }

  /** Refused before running (no enough resource with REJECT). */
  reject(error: SerializedError): void {
    this.error = error;
    this.setStatus('FAILED');
  }

  /** Deploys every pipeline into the granted slots (in task group order). */
  async run(slots: SlotProfile[]): Promise<void> {
    if (this.cancelRequested) {
      this.listener.onPipelineEnded(
        this,
        slots.map((s) => s.slotId),
      );
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
    for (const p of this.pipelines) p.cancel(true);
    this.maybeEnd();
  }

  /**
   * Stop-with-savepoint: every running pipeline takes a savepoint and stops. Resolves with the
   * savepoint ids; if one fails the job goes back to RUNNING and the call fails (never stuck
   * in DOING_SAVEPOINT: checkpoints time out).
   */
  async savepoint(): Promise<number[]> {
    if (this.status !== 'RUNNING') {
      throw new TidewayError(ErrorCode.ILLEGAL_TRANSITION, `job ${this.jobId} is ${this.status}; only a RUNNING job can take a savepoint`, {
        jobId: this.jobId,
      });
    }
    this.savepointRequested = true;
    this.setStatus('DOING_SAVEPOINT');
    const running = this.pipelines.filter((p) => !p.isEnded());
    const results = await Promise.all(running.map((p) => p.savepoint()));
    if (results.every(Boolean)) return running.map((p) => p.checkpoints.lastId);
    this.savepointRequested = false;
    if ((this.status as JobStatus) === 'DOING_SAVEPOINT') this.setStatus('RUNNING');
    throw new TidewayError(ErrorCode.TASK_FAILED, `the savepoint of job ${this.jobId} failed; the job keeps running`, {
      jobId: this.jobId,
      retryable: true,
    });
  }

  /**
   * A checkpoint of every pipeline still running, taken now (tideway checkpoint). Resolves per
   * pipeline with the id completed, or why there is none; throws unless the job is RUNNING.
   */
  async checkpoint(): Promise<Array<{ pipelineId: number; checkpointId: number; error: string }>> {
    if (this.status !== 'RUNNING') {
      throw new TidewayError(ErrorCode.ILLEGAL_TRANSITION, `job ${this.jobId} is ${this.status}; only a RUNNING job takes a checkpoint`, {
        jobId: this.jobId,
      });
    }
    return Promise.all(
      this.pipelines.map(async (p) => {
        if (p.isEnded()) return { pipelineId: p.pipelineId, checkpointId: 0, error: `pipeline ${p.pipelineId} has ended (${p.status})` };
        try {
          return { pipelineId: p.pipelineId, checkpointId: await p.checkpointNow(), error: '' };
        } catch (err) {
          return { pipelineId: p.pipelineId, checkpointId: 0, error: (err as Error).message };
        }
      }),
    );
  }

  pipeline(id: number): PipelineMaster | undefined {
    return this.pipelines.find((p) => p.pipelineId === id);
  }

  onWorkerLost(address: string): void {
    for (const p of this.pipelines) p.onWorkerLost(address);
  }

  private onPipelineStatus(p: PipelineMaster): void {
    this.records?.changed();
    if (p.isEnded()) {
      this.listener.onPipelineEnded(this, p.slotIds());
      if (p.status === 'FAILED') {
        this.error ??= p.error;
        if (this.status === 'RUNNING' || this.status === 'DOING_SAVEPOINT') {
          this.setStatus('FAILING');
          for (const other of this.pipelines) if (other !== p) other.cancel();
        }
      }
    }
    this.maybeEnd();
  }

  private maybeEnd(): void {
    if (this.isEnded() || !this.pipelines.every((p) => p.isEnded())) return;
    if (this.status === 'FAILING') this.setStatus('FAILED');
    else if (this.status === 'CANCELING') this.setStatus('CANCELED');
    else if (this.pipelines.every((p) => p.status === 'FINISHED'))
      this.setStatus(this.savepointRequested && this.status === 'DOING_SAVEPOINT' ? 'SAVEPOINT_DONE' : 'FINISHED');
    else {
      this.setStatus('FAILING');
      this.setStatus('FAILED');
    }
  }

  counters(): JobCounters {
    const c: JobCounters = {
      tables: new Map(),
      sourceReceivedCount: 0,
      sinkWriteCount: 0,
      sourceReceivedBytes: 0,
      sinkWriteBytes: 0,
      badRows: new Map(),
      sourceLag: new Map(),
    };
    for (const p of this.pipelines) for (const t of p.taskGroups) add(c, p.metricsOf(t));
    return c;
  }
}

function add(c: JobCounters, m: TaskGroupMetrics | undefined): void {
  for (const [v, n] of Object.entries(m?.badRows ?? {})) c.badRows.set(Number(v), (c.badRows.get(Number(v)) ?? 0) + n);
  for (const [split, n] of Object.entries(m?.sourceLag ?? {})) c.sourceLag.set(split, n);
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
