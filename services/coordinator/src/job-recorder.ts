import { logger, sleep, ErrorCode } from '@tideway/common';
import {
  MAX_STORED_FAILOVERS,
  type CheckpointPointer,
  type StateStore,
  type StoredJobInfo,
  type StoredJobState,
  type StoredPipeline,
  type StoredTableCounters,
} from '@tideway/cluster';
import type { JobMaster } from './job-master.js';
import type { Leadership } from './leadership.js';
import type { PipelineRecords } from './pipeline-deps.js';
import type { PipelineMaster } from './pipeline-master.js';
import { mergeMetrics } from './task-group-track.js';

const log = logger('coordinator');

/**
 * Records one job in the state store for the leader: the immutable info at submit, its state
 * (written whole, coalesced: a burst of changes is one write), each pipeline's checkpoint
 * pointer, and the final state when it ends. Every write passes the leadership fence and names
 * the leader's epoch, so a deposed leader's writes are refused by the store.
 */
export class JobRecorder implements PipelineRecords {
  private job?: JobMaster;
  private writing?: Promise<void>;
  private dirty = false;
  private ended = false;

  constructor(
    private readonly store: StateStore,
    private readonly fenceRef: Leadership,
    readonly info: StoredJobInfo,
    private readonly historyExpireMs: number,
    /** Latest completed checkpoint per pipeline, as recorded. */
    readonly pointers: Record<number, CheckpointPointer> = {},
  ) {}

  get jobId(): string {
    return this.info.jobId;
  }

  attach(job: JobMaster): void {
    this.job = job;
  }

  /** The job's state as stored: CREATED until it is planned. */
  snapshot(): StoredJobState {
    const job = this.job;
    const base = { epoch: this.fenceRef.epoch, updatedAtMs: Date.now() };
    if (!job) return { status: 'CREATED', jobMode: '', startTimeMs: 0, finishTimeMs: 0, pipelines: [], failovers: [], ...base };
    return {
      status: job.status,
      jobMode: job.job.jobMode,
      startTimeMs: job.startTime,
      finishTimeMs: job.finishTime,
      error: job.error ? { code: job.error.code, message: job.error.message, retryable: job.error.retryable } : undefined,
      pipelines: job.pipelines.map(storedPipeline),
      failovers: job.failovers.slice(-MAX_STORED_FAILOVERS),
      eventSequence: job.eventSequence,
      ...base,
    };
  }

  /** The first write: the job exists from now on, for any leader. */
  async submit(): Promise<void> {
    await this.fenceRef.run((epoch) => this.store.submitJob(epoch, this.info, this.snapshot()));
  }

  /** Something changed: the state is written soon (one write for a burst of changes). */
  changed(): void {
    if (this.ended) return;
    this.dirty = true;
    this.writing ??= this.flush();
  }

  private async flush(): Promise<void> {
    try {
      for (let attempt = 0; this.dirty && !this.ended && this.fenceRef.leading; ) {
        this.dirty = false;
        try {
          await this.write();
          attempt = 0;
        } catch (err) {
          if ((err as { code?: string }).code === ErrorCode.STALE_EPOCH || (err as { code?: string }).code === ErrorCode.NOT_LEADER) return;
          // The store is away: the next write carries the whole state anyway.
          if (attempt++ === 0) log.warn({ jobId: this.jobId, err: (err as Error).message }, 'could not record the job state; retrying');
          this.dirty = true;
          await sleep(Math.min(5000, 250 * attempt));
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private write(): Promise<void> {
    return this.fenceRef.run((epoch) => this.store.updateJob(epoch, this.jobId, this.snapshot()));
  }

  async persist(): Promise<void> {
    await this.writing?.catch(() => undefined);
    await this.write();
  }

  async checkpointCompleted(pipelineId: number, completed: CheckpointPointer): Promise<void> {
    const pipeline = this.job?.pipelines.find((p) => p.pipelineId === pipelineId);
    const pointer = pipeline ? { ...completed, counters: countersOf(pipeline) } : completed;
    await this.fenceRef.run((epoch) => this.store.putCheckpoint(epoch, this.jobId, pointer));
    this.pointers[pipelineId] = pointer;
    this.changed();
  }

  latestPointer(pipelineId: number): CheckpointPointer | undefined {
    return this.pointers[pipelineId];
  }

  async fence(): Promise<void> {
    await this.fenceRef.run((epoch) => this.store.assertEpoch(epoch));
  }

  /** The job ended: its final state is kept for the history expiry. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.writing?.catch(() => undefined);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.fenceRef.run((epoch) => this.store.endJob(epoch, this.jobId, this.snapshot(), this.historyExpireMs));
        return;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === ErrorCode.STALE_EPOCH || code === ErrorCode.NOT_LEADER || attempt === 20) {
          log.warn(
            { jobId: this.jobId, err: (err as Error).message },
            'the end of the job was not recorded; the next leader takes it over',
          );
          return;
        }
        await sleep(Math.min(5000, 250 * (attempt + 1)));
      }
    }
  }
}

function countersOf(p: PipelineMaster): StoredTableCounters[] {
  return mergeMetrics(...p.taskGroups.map((t) => p.metricsOf(t))).tables.map((t) => ({
    table: t.table,
    sourceReceivedCount: t.sourceReceivedCount,
    sinkWriteCount: t.sinkWriteCount,
    sourceReceivedBytes: t.sourceReceivedBytes,
    sinkWriteBytes: t.sinkWriteBytes,
  }));
}

/**
 * The counters a taken-over pipeline goes on from: per table, the larger of the recorded job
 * state's and those its latest checkpoint pointer carries. Rows replayed from that checkpoint
 * then count again (at least every row, as in Flink), never fewer than were read.
 */
export function countersForTakeOver(state: StoredTableCounters[], pointer: CheckpointPointer | undefined): StoredTableCounters[] {
  const byTable = new Map(state.map((c) => [c.table, { ...c }]));
  for (const c of pointer?.counters ?? []) {
    const s = byTable.get(c.table);
    if (!s) {
      byTable.set(c.table, { ...c });
      continue;
    }
    s.sourceReceivedCount = Math.max(s.sourceReceivedCount, c.sourceReceivedCount);
    s.sinkWriteCount = Math.max(s.sinkWriteCount, c.sinkWriteCount);
    s.sourceReceivedBytes = Math.max(s.sourceReceivedBytes, c.sourceReceivedBytes);
    s.sinkWriteBytes = Math.max(s.sinkWriteBytes, c.sinkWriteBytes);
  }
  return [...byTable.values()];
}

function storedPipeline(p: PipelineMaster): StoredPipeline {
  const counters = countersOf(p);
  return {
    pipelineId: p.pipelineId,
    status: p.status,
    attempt: p.attempt,
    restarts: p.restarts,
    completedCheckpoints: p.completedCheckpoints,
    failedCheckpoints: p.failedCheckpoints,
    lastCheckpointTimeMs: p.lastCheckpointTime,
    sinksPrepared: p.sinksPrepared,
    taskGroups: p.taskGroups.map((t) => ({
      index: t.index,
      state: t.state,
      slot: t.slot
        ? { slotId: t.slot.slotId, workerId: t.slot.workerId, workerAddress: t.slot.workerAddress, owner: t.slot.owner }
        : undefined,
      error: t.error ? { code: t.error.code, message: t.error.message, retryable: t.error.retryable } : undefined,
    })),
    counters,
    checkpointHistory: p.checkpointHistory,
  };
}
