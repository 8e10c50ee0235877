import { serialize } from 'node:v8';
import type { SinkAggregatedCommitter } from '@tideway/api';
import { logger, type SerializedError } from '@tideway/common';
import type { SlotProfile, TaskGroupLocation } from '@tideway/contracts';
import { EXECUTION_STATE, PIPELINE_STATUS, type ExecutionState, type PipelineStatus } from '@tideway/dag';
import type { PlannedJob, PlannedPipeline } from '@tideway/planner';
import { createSink, createSource } from '@tideway/plugins';
import type { CheckpointKind, CommitInfos, TaskGroupDescriptor, TaskGroupMetrics, TaskGroupState } from '@tideway/runtime';
import { CheckpointCoordinator, type CheckpointSettings, type CompletedCheckpoint } from './checkpoint-coordinator.js';
import { EnumeratorHost } from './enumerator-host.js';
import type { WorkerGateway } from './gateways.js';

const log = logger('pipeline');

/** How many times a failing aggregated commit is retried before the checkpoint aborts. */
const COMMIT_ATTEMPTS = 3;

export interface TaskGroupTrack {
  index: number;
  slot?: SlotProfile;
  state: ExecutionState;
  readyToClose: boolean;
  error?: SerializedError;
  metrics?: TaskGroupMetrics;
}

/** What a pipeline tells its job. */
export interface PipelineListener {
  onStatus(pipeline: PipelineMaster): void;
}

/**
 * Drives one pipeline: its split enumerator and aggregated committers on the coordinator, its
 * task groups on workers, and its checkpoint coordinator.
 */
export class PipelineMaster {
  status: PipelineStatus = 'CREATED';
  readonly taskGroups: TaskGroupTrack[];
  error?: SerializedError;
  attempt = 0;
  private enumerator?: EnumeratorHost;
  private readonly committers = new Map<number, SinkAggregatedCommitter<unknown, unknown>>();
  readonly checkpoints: CheckpointCoordinator;
  private finalTriggered = false;

  constructor(
    private readonly job: PlannedJob,
    readonly plan: PlannedPipeline,
    private readonly workers: WorkerGateway,
    private readonly listener: PipelineListener,
    checkpointSettings: CheckpointSettings,
  ) {
    this.taskGroups = plan.taskGroups.map((tg) => ({ index: tg.index, state: 'CREATED', readyToClose: false }));
    this.checkpoints = new CheckpointCoordinator(plan.pipelineId, checkpointSettings, {
      taskGroups: () => this.taskGroups.filter((t) => !EXECUTION_STATE.isTerminal(t.state)).map((t) => t.index),
      trigger: (tg, id, kind) => this.workers.trigger(this.address(tg), this.location(tg), id, kind),
      snapshotEnumerators: async (id) => ({ [this.plan.source.vertexId]: await this.enumerator?.snapshot(id) }),
      complete: (cp) => this.commitAggregated(cp),
      notifyComplete: (tg, id, kind) => this.workers.notifyComplete(this.address(tg), this.location(tg), id, kind),
      notifyAborted: (tg, id) => this.workers.notifyAborted(this.address(tg), this.location(tg), id),
    });
  }

  get pipelineId(): number {
    return this.plan.pipelineId;
  }

  location(index: number): TaskGroupLocation {
    return { jobId: this.job.jobId, pipelineId: this.pipelineId, taskGroupIndex: index, attempt: this.attempt };
  }

  private address(index: number): string {
    return this.taskGroups[index]!.slot!.workerAddress;
  }

  private setStatus(to: PipelineStatus): void {
    if (this.status === to) return;
    this.status = PIPELINE_STATUS.transition(this.status, to);
    log.debug({ jobId: this.job.jobId, pipelineId: this.pipelineId, status: to }, 'pipeline status');
    this.listener.onStatus(this);
  }

  private setTaskState(t: TaskGroupTrack, to: ExecutionState): void {
    if (t.state === to) return;
    if (!EXECUTION_STATE.canTransition(t.state, to) && to === 'FAILED') t.state = EXECUTION_STATE.transition(t.state, 'FAILING');
    t.state = EXECUTION_STATE.transition(t.state, to);
  }

  isEnded(): boolean {
    return PIPELINE_STATUS.isTerminal(this.status);
  }

  /** Opens the coordinator-side parts and deploys every task group to its slot. */
  async deploy(slots: SlotProfile[]): Promise<void> {
    this.setStatus('SCHEDULED');
    this.taskGroups.forEach((t, i) => (t.slot = slots[i]));
    this.setStatus('DEPLOYING');
    try {
      const ctx = { jobId: this.job.jobId, jobMode: this.job.jobMode, parallelism: this.plan.source.parallelism, inputTables: [] };
      const source = createSource(this.plan.source.plugin, ctx);
      await source.prepare?.();
      this.enumerator = new EnumeratorHost(source, this.plan.source.parallelism);
      await this.enumerator.open();
      for (const s of this.plan.sinks) {
        const sink = createSink(s.plugin, { jobId: this.job.jobId, jobMode: this.job.jobMode, parallelism: s.parallelism, inputTables: s.inputTables });
        // Save modes (create/drop/truncate the target) run once, before any writer starts.
        if (this.attempt === 0) await sink.prepare?.();
        const committer = sink.createAggregatedCommitter?.();
        if (committer) this.committers.set(s.vertexId, committer);
      }
      await Promise.all(
        this.plan.taskGroups.map(async (tg) => {
          const track = this.taskGroups[tg.index]!;
          const descriptor: TaskGroupDescriptor = { ...tg.descriptor, attempt: this.attempt };
          this.setTaskState(track, 'DEPLOYING');
          await this.workers.deploy(track.slot!.workerAddress, this.location(tg.index), track.slot!, serialize(descriptor));
        }),
      );
    } catch (err) {
      this.fail({ code: (err as { code?: string }).code ?? 'TW-INTERNAL-001', message: `could not deploy pipeline ${this.pipelineId}: ${(err as Error).message}`, retryable: false });
    }
  }

  /** A task group's state report from its worker. */
  onTaskState(index: number, attempt: number, state: ExecutionState | 'PREPARE_CLOSE', error?: SerializedError): void {
    const t = this.taskGroups[index];
    if (!t || attempt !== this.attempt || EXECUTION_STATE.isTerminal(t.state)) return;
    if (state === 'PREPARE_CLOSE') {
      t.readyToClose = true;
      this.maybeTriggerFinal();
      return;
    }
    if (state === 'RUNNING' && t.state !== 'DEPLOYING') return;
    this.setTaskState(t, state);
    if (state === 'RUNNING') {
      if (this.taskGroups.every((x) => x.state === 'RUNNING' || EXECUTION_STATE.isTerminal(x.state)) && this.status === 'DEPLOYING') {
        this.setStatus('RUNNING');
        this.checkpoints.start();
      }
    } else if (state === 'FAILED') {
      this.fail(error ?? { code: 'TW-TASK-001', message: `task group ${index} failed`, retryable: false });
    }
    this.maybeEnd();
  }

  onMetrics(index: number, attempt: number, metrics: TaskGroupMetrics): void {
    const t = this.taskGroups[index];
    if (t && attempt === this.attempt) t.metrics = metrics;
  }

  async onAck(index: number, attempt: number, checkpointId: number, state: TaskGroupState | undefined, infos: CommitInfos | undefined, error?: SerializedError): Promise<void> {
    if (attempt !== this.attempt) return;
    await this.checkpoints.acknowledge(index, checkpointId, state, infos, error);
  }

  requestSplits(index: number, attempt: number, register: boolean, request: boolean) {
    if (attempt !== this.attempt || !this.enumerator) return Promise.resolve({ splits: [], noMoreSplits: false });
    return this.enumerator.request(index, register, request);
  }

  /** Bounded pipelines end with a final checkpoint once every reader is done. */
  private maybeTriggerFinal(): void {
    if (this.finalTriggered || this.status !== 'RUNNING') return;
    if (!this.taskGroups.every((t) => t.readyToClose || EXECUTION_STATE.isTerminal(t.state))) return;
    this.finalTriggered = true;
    void this.triggerFinal();
  }

  private async triggerFinal(): Promise<void> {
    for (let attempt = 0; !this.isEnded() && this.status === 'RUNNING'; attempt++) {
      if (await this.checkpoints.trigger('COMPLETED_POINT')) return;
      await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** attempt)));
    }
  }

  private async commitAggregated(cp: CompletedCheckpoint): Promise<void> {
    for (const [vertexId, committer] of this.committers) {
      const infos = cp.commitInfos[vertexId];
      if (!infos || infos.length === 0) continue;
      let pending = [committer.combine(infos)];
      for (let i = 0; pending.length > 0; i++) {
        if (i === COMMIT_ATTEMPTS) throw new Error(`sink vertex ${vertexId} could not commit checkpoint ${cp.checkpointId} after ${COMMIT_ATTEMPTS} attempts`);
        pending = await committer.commit(pending);
      }
    }
  }

  /** Fails the pipeline: remembers the first error and cancels the task groups still running. */
  fail(error: SerializedError): void {
    if (this.isEnded() || this.status === 'FAILING') return;
    this.error ??= error;
    this.checkpoints.stop();
    if (this.status === 'CANCELING') return;
    this.setStatus('FAILING');
    this.cancelTaskGroups(`pipeline ${this.pipelineId} failed: ${error.message}`);
    this.maybeEnd();
  }

  cancel(): void {
    if (this.isEnded() || this.status === 'CANCELING' || this.status === 'FAILING') return;
    this.checkpoints.stop();
    this.setStatus('CANCELING');
    this.cancelTaskGroups('job cancelled');
    this.maybeEnd();
  }

  private cancelTaskGroups(reason: string): void {
    for (const t of this.taskGroups) {
      if (EXECUTION_STATE.isTerminal(t.state)) continue;
      if (t.state === 'CREATED' || !t.slot) {
        // Never deployed: nothing runs.
        t.state = EXECUTION_STATE.transition(t.state, 'CANCELING');
        t.state = EXECUTION_STATE.transition(t.state, 'CANCELED');
        continue;
      }
      if (t.state !== 'CANCELING' && t.state !== 'FAILING') t.state = EXECUTION_STATE.transition(t.state, 'CANCELING');
      this.workers.cancel(t.slot.workerAddress, this.location(t.index), reason).catch((err: unknown) => {
        // The worker is gone or never got the task group: it is not running there.
        log.warn({ err, jobId: this.job.jobId, taskGroup: t.index }, 'cancel not delivered; treating the task group as cancelled');
        this.onTaskState(t.index, this.attempt, 'CANCELED');
      });
    }
  }

  /** Declares task groups on a lost worker failed. */
  onWorkerLost(address: string): void {
    for (const t of this.taskGroups) {
      if (t.slot?.workerAddress === address && !EXECUTION_STATE.isTerminal(t.state)) {
        this.onTaskState(t.index, this.attempt, 'FAILED', { code: 'TW-TASK-001', message: `worker ${address} was lost`, retryable: true });
      }
    }
  }

  private maybeEnd(): void {
    if (this.isEnded()) return;
    const all = this.taskGroups.every((t) => EXECUTION_STATE.isTerminal(t.state));
    if (!all) return;
    void this.end();
  }

  private ending = false;

  private async end(): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    this.checkpoints.stop();
    if (this.status === 'FAILING' || this.status === 'CANCELING') {
      for (const [, c] of this.committers) await Promise.resolve(c.close?.()).catch(() => undefined);
      await this.enumerator?.close().catch(() => undefined);
      this.setStatus(this.status === 'FAILING' ? 'FAILED' : 'CANCELED');
      return;
    }
    // Every task group finished: the committers see the end (Assert checks its row counts here).
    try {
      for (const [, c] of this.committers) await c.close?.();
      await this.enumerator?.close();
      this.setStatus('FINISHED');
    } catch (err) {
      this.error ??= { code: (err as { code?: string }).code ?? 'TW-TASK-001', message: (err as Error).message, retryable: false };
      this.setStatus('FAILING');
      this.setStatus('FAILED');
    }
  }

  slotIds(): string[] {
    return this.taskGroups.map((t) => t.slot?.slotId).filter((s): s is string => s !== undefined);
  }
}
