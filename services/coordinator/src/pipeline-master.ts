import type { Sink, SinkAggregatedCommitter, SourceSplit } from '@tideway/api';
import type { CheckpointStorage } from '@tideway/checkpoint';
import { ErrorCode, backoffDelay, logger, sleep, type SerializedError } from '@tideway/common';
import type { CheckpointPointer, StoredPipeline } from '@tideway/cluster';
import type { SlotProfile, TaskGroupLocation } from '@tideway/contracts';
import { EXECUTION_STATE, PIPELINE_STATUS, type ExecutionState, type PipelineStatus } from '@tideway/dag';
import type { PlannedJob, PlannedPipeline } from '@tideway/planner';
import { createSink, createSource } from '@tideway/plugins/lazy';
import { descriptorCodec, taskGroupStateCodec } from '@tideway/runtime';
import type { CheckpointKind, CommitInfos, TaskGroupDescriptor, TaskGroupMetrics, TaskGroupState } from '@tideway/runtime';
import { CheckpointCoordinator, type CheckpointSettings, type CompletedCheckpoint } from './checkpoint-coordinator.js';
import { restorePointOf, toStored, type RestorePoint } from './checkpoint-records.js';
import { EnumeratorHost } from './enumerator-host.js';
import { shouldRestart, type RetrySettings } from './failover-policy.js';
import type { ResourceGateway, WorkerGateway } from './gateways.js';

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
  /** Counters of earlier attempts, so a restart does not make the job's metrics go back. */
  previousMetrics?: TaskGroupMetrics;
}

export interface PipelineListener {
  onStatus(pipeline: PipelineMaster): void;
  /** A failure is making the pipeline restart (or fail). */
  onFailover?(pipeline: PipelineMaster, reason: string): void;
}

export interface PipelineSettings extends RetrySettings {
  checkpoint: CheckpointSettings;
}

export interface PipelineDeps {
  workers: WorkerGateway;
  resources: ResourceGateway;
  storage: CheckpointStorage;
  listener: PipelineListener;
  /** Where the pipeline's progress is recorded (the state store); none in unit tests. */
  records?: PipelineRecords;
}

/** What a pipeline records in the coordinators' state store, through its job. */
export interface PipelineRecords {
  /** Moves the latest-checkpoint pointer (fenced: throws, aborting the checkpoint, unless leading). */
  checkpointCompleted(pipelineId: number, pointer: CheckpointPointer): Promise<void>;
  /** The pointer of the pipeline's latest completed checkpoint, if one is recorded. */
  latestPointer(pipelineId: number): CheckpointPointer | undefined;
  /** Writes the job's state now (resolves once stored). */
  persist(): Promise<void>;
  /**
   * Throws unless this coordinator still leads (checked against the store): called before
   * effects that are not RPCs (commits on the coordinator, save modes, dropping uncommitted work).
   */
  fence(): Promise<void>;
}

/** How a new leader resumes a pipeline that an earlier leader was running. */
export interface PipelineResume {
  stored: StoredPipeline;
  /** Where each task group restarts: the slots it held when the worker still holds them. */
  slots: Array<SlotProfile | undefined>;
}

/**
 * Drives one pipeline: its split enumerator and aggregated committers on the coordinator, its
 * task groups on workers, its checkpoint coordinator, and its failover: a failed task group
 * restarts the whole pipeline from the latest completed checkpoint, up to job.retry.times
 * times since the last completed checkpoint.
 */
export class PipelineMaster {
  status: PipelineStatus = 'CREATED';
  readonly taskGroups: TaskGroupTrack[];
  error?: SerializedError;
  attempt = 0;
  /** Restarts so far (all attempts). */
  restarts = 0;
  checkpoints: CheckpointCoordinator;
  /** Checkpoints completed and failed by earlier attempts (and earlier leaders). */
  private completedBefore = 0;
  private failedBefore = 0;
  /** Whether the sinks' save modes ran (a restart or take-over never runs them again). */
  sinksPrepared = false;
  private enumerator?: EnumeratorHost;
  private committers = new Map<number, SinkAggregatedCommitter<unknown, unknown>>();
  /** The sinks of the current attempt, for abandon() when the job is cancelled. */
  private sinks: Sink[] = [];
  /** The job was cancelled: its sinks roll back what was prepared but never committed. */
  private abandonOnEnd = false;
  private finalTriggered = false;
  private failuresSinceCheckpoint = 0;
  private restarting = false;
  private ending = false;
  private readonly lostWorkers = new Set<string>();
  private undelivered: Record<number, SourceSplit[]> = {};
  /** The checkpoint the next attempt starts from (a restore, or the latest completed). */
  private restorePoint?: RestorePoint;
  private lastStored?: RestorePoint;

  constructor(
    private readonly job: PlannedJob,
    readonly plan: PlannedPipeline,
    private readonly deps: PipelineDeps,
    private readonly settings: PipelineSettings,
    restoreFrom?: RestorePoint,
  ) {
    this.taskGroups = plan.taskGroups.map((tg) => ({ index: tg.index, state: 'CREATED', readyToClose: false }));
    this.restorePoint = restoreFrom;
    this.checkpoints = this.newCheckpointCoordinator(restoreFrom?.checkpointId ?? 0);
  }

  get pipelineId(): number {
    return this.plan.pipelineId;
  }

  location(index: number): TaskGroupLocation {
    return { jobId: this.job.jobId, pipelineId: this.pipelineId, taskGroupIndex: index, attempt: this.attempt };
  }

  private address(index: number): string {
    return this.taskGroups[index].slot!.workerAddress;
  }

  private newCheckpointCoordinator(startAfterId: number): CheckpointCoordinator {
    const w = this.deps.workers;
    return new CheckpointCoordinator(
      this.pipelineId,
      this.settings.checkpoint,
      {
        taskGroups: () => this.taskGroups.filter((t) => !EXECUTION_STATE.isTerminal(t.state)).map((t) => t.index),
        // Barriers start at the sources; task groups behind a shuffle get them in-band.
        trigger: async (tg, id, kind) => {
          if (this.plan.taskGroups[tg].isSource) await w.trigger(this.address(tg), this.location(tg), id, kind);
        },
        snapshotEnumerators: async (id) => {
          const snap = await this.enumerator!.snapshot(id);
          this.undelivered = snap.undelivered;
          return { [this.plan.source.vertexId]: snap.state };
        },
        complete: (cp) => this.persistAndCommit(cp),
        notifyComplete: (tg, id, kind) => w.notifyComplete(this.address(tg), this.location(tg), id, kind),
        notifyAborted: (tg, id) => w.notifyAborted(this.address(tg), this.location(tg), id),
        onCompleted: (cp) => {
          this.enumerator?.thaw();
          void this.enumerator?.notifyCheckpointComplete(cp.checkpointId);
          // A completed checkpoint proves progress: the restart budget starts again.
          this.failuresSinceCheckpoint = 0;
        },
        onAborted: () => this.enumerator?.thaw(),
      },
      startAfterId,
    );
  }

  private setStatus(to: PipelineStatus): void {
    if (this.status === to) return;
    this.status = PIPELINE_STATUS.transition(this.status, to);
    log.debug({ jobId: this.job.jobId, pipelineId: this.pipelineId, status: to, attempt: this.attempt }, 'pipeline status');
    this.deps.listener.onStatus(this);
  }

  /**
   * A pipeline recorded as ended (or that a take-over ends, its job being cancelled or failing):
   * it takes that status without running anything; its task groups count as stopped.
   */
  markEnded(status: PipelineStatus, error?: SerializedError): void {
    for (const t of this.taskGroups) {
      t.state = status === 'FINISHED' ? 'FINISHED' : status === 'FAILED' ? 'FAILED' : 'CANCELED';
      t.slot = undefined;
    }
    if (error) this.error ??= error;
    this.checkpoints.stop();
    this.status = status;
    this.deps.listener.onStatus(this);
  }

  /** Checkpoints completed over every attempt. */
  get completedCheckpoints(): number {
    return this.completedBefore + this.checkpoints.completed;
  }

  get failedCheckpoints(): number {
    return this.failedBefore + this.checkpoints.failed;
  }

  /** Time of the latest completed checkpoint (ms since epoch, 0 if none). */
  lastCheckpointTime = 0;

  /**
   * A new leader takes the pipeline over: the next attempt restores from the latest recorded
   * checkpoint into the slots its task groups still hold (fresh ones for the others), and its
   * counters go on from the recorded ones.
   */
  async resume(r: PipelineResume): Promise<void> {
    const s = r.stored;
    this.attempt = s.attempt + 1;
    this.restarts = s.restarts;
    this.completedBefore = s.completedCheckpoints;
    this.failedBefore = s.failedCheckpoints;
    this.lastCheckpointTime = s.lastCheckpointTimeMs;
    this.sinksPrepared = s.sinksPrepared;
    this.taskGroups.forEach((t, i) => {
      t.slot = r.slots[i];
      t.previousMetrics = i === 0 && s.counters.length > 0 ? { tables: s.counters.map((c) => ({ ...c })) } : undefined;
    });
    this.restorePoint = await this.readLatestStored();
    this.checkpoints = this.newCheckpointCoordinator(this.restorePoint?.checkpointId ?? 0);
    if (!(await this.acquireMissingSlots())) return;
    log.info(
      { jobId: this.job.jobId, pipelineId: this.pipelineId, attempt: this.attempt, checkpoint: this.restorePoint?.checkpointId ?? 0 },
      'pipeline taken over',
    );
    await this.startAttempt();
  }

  private setTaskState(t: TaskGroupTrack, to: ExecutionState): void {
    if (t.state === to) return;
    if (!EXECUTION_STATE.canTransition(t.state, to) && to === 'FAILED') t.state = EXECUTION_STATE.transition(t.state, 'FAILING');
    t.state = EXECUTION_STATE.transition(t.state, to);
  }

  isEnded(): boolean {
    return PIPELINE_STATUS.isTerminal(this.status);
  }

  /** Starts the first attempt in the granted slots (one per task group). */
  async deploy(slots: SlotProfile[]): Promise<void> {
    this.taskGroups.forEach((t, i) => (t.slot = slots[i]));
    await this.startAttempt();
  }

  private async startAttempt(): Promise<void> {
    this.setStatus('SCHEDULED');
    this.setStatus('DEPLOYING');
    try {
      const job = this.job;
      const restore = this.restorePoint;
      // The first attempt reuses the source planning prepared; a restart reads its schema afresh.
      let source = this.plan.source.prepared;
      if (this.attempt > 0) {
        source = createSource(
          this.plan.source.plugin,
          { jobId: job.jobId, jobMode: job.jobMode, parallelism: this.plan.source.parallelism, inputTables: [] },
          job.registry,
        );
        await source.prepare?.();
      }
      this.enumerator = new EnumeratorHost(source, this.plan.source.parallelism, () => this.checkpoints.request());
      await this.enumerator.open(restore?.enumeratorStates.get(this.plan.source.vertexId));
      this.committers = new Map();
      this.sinks = [];
      for (const s of this.plan.sinks) {
        const sink = createSink(
          s.plugin,
          { jobId: job.jobId, jobMode: job.jobMode, parallelism: s.parallelism, inputTables: s.inputTables },
          job.registry,
        );
        this.sinks.push(sink);
        // Save modes (create/drop/truncate the target) run once, before the first writer starts.
        if (!this.sinksPrepared && !restore && sink.prepare) {
          await this.deps.records?.fence();
          await sink.prepare();
        }
        const committer = sink.createAggregatedCommitter?.();
        if (committer) this.committers.set(s.vertexId, committer);
      }
      if (!this.sinksPrepared) {
        this.sinksPrepared = true;
        // Recorded before any writer starts, so that no later leader runs the save modes again.
        await this.deps.records?.persist();
      }
      if (restore) await this.recommit(restore);
      if (this.status !== 'DEPLOYING') {
        // Cancelled while the enumerator and committers opened: close them again, deploy nothing.
        await this.closeCoordinatorParts(false);
        return;
      }
      const peers = Object.fromEntries(this.taskGroups.map((t) => [t.index, t.slot!.workerAddress]));
      await Promise.all(
        this.plan.taskGroups.map(async (tg) => {
          const track = this.taskGroups[tg.index];
          // A restored task group gets its state by NotifyTaskRestore once deployed (it waits
          // in WAITING_RESTORE meanwhile), not inside the descriptor.
          const descriptor: TaskGroupDescriptor = { ...tg.descriptor, attempt: this.attempt, peers };
          // Cancelled or failed meanwhile: nothing more goes out (its track was cancelled already).
          if (this.status !== 'DEPLOYING') return;
          this.setTaskState(track, 'DEPLOYING');
          await this.deployOrCancel(
            track,
            descriptorCodec.encode(descriptor),
            restore && { checkpointId: restore.checkpointId, state: restore.taskStates.get(tg.index) },
          );
        }),
      );
    } catch (err) {
      this.onFailure({
        code: (err as { code?: string }).code ?? 'TW-INTERNAL-001',
        message: `could not deploy pipeline ${this.pipelineId}: ${(err as Error).message}`,
        retryable: true,
      });
    }
  }

  /**
   * Deploys one task group. A cancel that reached the worker before this deploy found nothing
   * to stop there, so it is sent again once the deploy is acknowledged; a deploy that fails
   * while the pipeline is already stopping leaves nothing running, so the task group counts
   * as cancelled.
   */
  private async deployOrCancel(
    track: TaskGroupTrack,
    descriptor: Buffer,
    restore?: { checkpointId: number; state: TaskGroupState | undefined },
  ): Promise<void> {
    const attempt = this.attempt;
    const stopping = () => this.attempt === attempt && (this.status === 'CANCELING' || this.status === 'FAILING');
    const address = track.slot!.workerAddress;
    try {
      await this.deps.workers.deploy(address, this.location(track.index), track.slot!, descriptor, restore?.checkpointId ?? 0);
      if (restore && !stopping()) {
        await this.deps.workers.restore(
          address,
          this.location(track.index),
          restore.checkpointId,
          taskGroupStateCodec.encodeOptional(restore.state),
        );
      }
    } catch (err) {
      if (!stopping()) throw err;
      this.onTaskState(track.index, attempt, 'CANCELED');
      return;
    }
    if (!stopping() || EXECUTION_STATE.isTerminal(track.state)) return;
    this.deps.workers
      .cancel(track.slot!.workerAddress, this.location(track.index), 'cancelled while deploying')
      .catch(() => this.onTaskState(track.index, attempt, 'CANCELED'));
  }

  /** Commits a restored checkpoint's prepared work again: committers are idempotent. */
  private async recommit(restore: RestorePoint): Promise<void> {
    if (this.committers.size > 0) await this.deps.records?.fence();
    for (const [vertexId, committer] of this.committers) {
      const infos = restore.pendingCommits.get(vertexId);
      if (infos && infos.length > 0) await this.commitWithRetries(vertexId, committer, infos, restore.checkpointId);
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
    if (state === 'CANCELED' && (this.status === 'RUNNING' || this.status === 'DEPLOYING') && t.state !== 'CANCELING') {
      // Cancelled on its worker without this pipeline asking (the worker lost its leader, or
      // an operator): its rows since the last checkpoint are gone, so the pipeline restarts.
      state = 'FAILED';
      error ??= { code: 'TW-TASK-001', message: `task group ${index} was cancelled on its worker`, retryable: true };
    }
    if (error) t.error = error;
    this.setTaskState(t, state);
    if (state === 'RUNNING') {
      if (this.status === 'DEPLOYING' && this.taskGroups.every((x) => x.state === 'RUNNING' || EXECUTION_STATE.isTerminal(x.state))) {
        this.setStatus('RUNNING');
        this.checkpoints.start();
        this.maybeTriggerFinal();
      }
    } else if (state === 'FAILED') {
      this.onFailure(error ?? { code: 'TW-TASK-001', message: `task group ${index} failed`, retryable: true });
    }
    this.maybeEnd();
  }

  onMetrics(index: number, attempt: number, metrics: TaskGroupMetrics): void {
    const t = this.taskGroups[index];
    if (t && attempt === this.attempt) t.metrics = metrics;
  }

  async onAck(
    index: number,
    attempt: number,
    checkpointId: number,
    state: TaskGroupState | undefined,
    infos: CommitInfos | undefined,
    error?: SerializedError,
  ): Promise<void> {
    if (attempt !== this.attempt) return;
    await this.checkpoints.acknowledge(index, checkpointId, state, infos, error);
  }

  requestSplits(index: number, attempt: number, register: boolean, request: boolean, events: unknown[] = []) {
    if (attempt !== this.attempt || !this.enumerator || (this.status !== 'RUNNING' && this.status !== 'DEPLOYING'))
      return Promise.resolve({ splits: [], noMoreSplits: false });
    return this.enumerator.request(this.plan.taskGroups[index].descriptor.subtaskIndex, register, request, events);
  }

  /**
   * Stop-with-savepoint: resolves true once the savepoint completed (task groups then end). A
   * pipeline still deploying (or restarting) is waited for, up to the checkpoint timeout.
   */
  async savepoint(): Promise<boolean> {
    const until = Date.now() + this.settings.checkpoint.timeoutMs;
    while (this.status !== 'RUNNING') {
      if (this.isEnded() || this.status === 'FAILING' || this.status === 'CANCELING' || Date.now() > until) return false;
      await sleep(50);
    }
    return this.checkpoints.trigger('SAVEPOINT');
  }

  /** Bounded pipelines end with a final checkpoint once every reader is done. */
  private maybeTriggerFinal(): void {
    if (this.finalTriggered || this.status !== 'RUNNING') return;
    if (!this.taskGroups.every((t) => t.readyToClose || EXECUTION_STATE.isTerminal(t.state))) return;
    this.finalTriggered = true;
    void this.triggerFinal();
  }

  private async triggerFinal(): Promise<void> {
    const attempt = this.attempt;
    for (let i = 0; !this.isEnded() && this.status === 'RUNNING' && this.attempt === attempt; i++) {
      if (await this.checkpoints.trigger('COMPLETED_POINT')) return;
      await sleep(Math.min(5000, 200 * 2 ** i));
    }
  }

  /**
   * Completes a checkpoint on the coordinator: the data goes to storage first (so a restore
   * finds what was committed), then the aggregated committers commit.
   */
  private async persistAndCommit(cp: CompletedCheckpoint): Promise<void> {
    const stored = toStored(this.job.jobId, this.pipelineId, cp, this.plan.source.vertexId, this.undelivered);
    const ref = await this.deps.storage.write(stored);
    // The pointer in the state store is what makes the checkpoint complete: it is fenced, so a
    // leader that lost its place can never commit (its pointer write fails first).
    await this.deps.records?.checkpointCompleted(this.pipelineId, {
      pipelineId: this.pipelineId,
      checkpointId: cp.checkpointId,
      key: ref.key,
      timestamp: cp.timestamp,
      kind: cp.kind,
    });
    this.lastStored = restorePointOf(stored);
    this.lastCheckpointTime = cp.timestamp;
    for (const [vertexId, committer] of this.committers) {
      const infos = cp.commitInfos[vertexId];
      if (infos && infos.length > 0) await this.commitWithRetries(vertexId, committer, infos, cp.checkpointId);
    }
  }

  private async commitWithRetries(
    vertexId: number,
    committer: SinkAggregatedCommitter<unknown, unknown>,
    infos: unknown[],
    checkpointId: number,
  ): Promise<void> {
    let pending = [committer.combine(infos)];
    for (let i = 0; pending.length > 0; i++) {
      if (i === COMMIT_ATTEMPTS)
        throw new Error(`sink vertex ${vertexId} could not commit checkpoint ${checkpointId} after ${COMMIT_ATTEMPTS} attempts`);
      pending = await committer.commit(pending);
    }
  }

  /** A task group failed (or deploying failed): restart from the latest checkpoint, or fail. */
  private onFailure(error: SerializedError): void {
    if (this.isEnded() || this.status === 'FAILING' || this.status === 'CANCELING') {
      this.error ??= error;
      return;
    }
    this.error = error;
    this.restarting = shouldRestart(error, this.failuresSinceCheckpoint, this.settings);
    this.failuresSinceCheckpoint++;
    log.warn(
      { jobId: this.job.jobId, pipelineId: this.pipelineId, attempt: this.attempt, restart: this.restarting, error: error.message },
      'pipeline failed',
    );
    this.deps.listener.onFailover?.(this, error.message);
    this.checkpoints.stop();
    this.setStatus('FAILING');
    this.cancelTaskGroups(`pipeline ${this.pipelineId} failed: ${error.message}`);
    this.maybeEnd();
  }

  /** Public entry for a failure found outside the task groups. */
  fail(error: SerializedError): void {
    this.onFailure(error);
  }

  /**
   * Stops the pipeline. `abandon` (the job itself was cancelled, not another pipeline failed):
   * once every task group has stopped, the sinks drop what was prepared and never committed.
   */
  cancel(abandon = false): void {
    if (this.isEnded()) return;
    if (abandon) this.abandonOnEnd = true;
    if (this.status === 'CANCELING') return;
    this.restarting = false;
    this.checkpoints.stop();
    if (this.status === 'FAILING') return; // already stopping; it will end FAILED
    if (this.status === 'INITIALIZING') {
      this.setStatus('CANCELING');
      this.maybeEnd();
      return;
    }
    this.setStatus('CANCELING');
    this.cancelTaskGroups('job cancelled');
    this.maybeEnd();
  }

  private cancelTaskGroups(reason: string): void {
    for (const t of this.taskGroups) {
      if (EXECUTION_STATE.isTerminal(t.state)) continue;
      if (t.state === 'CREATED' || !t.slot) {
        t.state = EXECUTION_STATE.transition(t.state, 'CANCELING');
        t.state = EXECUTION_STATE.transition(t.state, 'CANCELED');
        continue;
      }
      if (t.state !== 'CANCELING' && t.state !== 'FAILING') t.state = EXECUTION_STATE.transition(t.state, 'CANCELING');
      const attempt = this.attempt;
      this.deps.workers.cancel(t.slot.workerAddress, this.location(t.index), reason).catch((err: unknown) => {
        // The worker is gone or never got the task group: nothing of it runs there.
        log.warn(
          { err: (err as Error).message, jobId: this.job.jobId, pipelineId: this.pipelineId, taskGroup: t.index, attempt },
          'cancel not delivered; the task group counts as cancelled',
        );
        this.onTaskState(t.index, attempt, 'CANCELED');
      });
    }
  }

  /** Task groups on a lost worker have failed; their slots must be replaced on restart. */
  onWorkerLost(address: string): void {
    this.lostWorkers.add(address);
    for (const t of this.taskGroups) {
      if (t.slot?.workerAddress === address && !EXECUTION_STATE.isTerminal(t.state)) {
        this.onTaskState(t.index, this.attempt, 'FAILED', { code: 'TW-TASK-001', message: `worker ${address} was lost`, retryable: true });
      }
    }
  }

  private maybeEnd(): void {
    if (this.isEnded() || this.ending) return;
    if (this.status === 'INITIALIZING' && this.restarting) return;
    if (!this.taskGroups.every((t) => EXECUTION_STATE.isTerminal(t.state))) return;
    void this.end();
  }

  private async end(): Promise<void> {
    this.ending = true;
    try {
      this.checkpoints.stop();
      await this.closeCoordinatorParts(this.status === 'RUNNING');
      if (this.status === 'FAILING' && this.restarting) {
        await this.restart();
        return;
      }
      if (this.status === 'FAILING' || this.status === 'CANCELING' || this.status === 'INITIALIZING') {
        if (this.status === 'INITIALIZING') this.setStatus('CANCELING');
        if (this.abandonOnEnd) await this.abandonSinks();
        this.setStatus(this.status === 'FAILING' ? 'FAILED' : 'CANCELED');
        return;
      }
      // Every checkpoint is committed: what a sink still holds uncommitted (leftovers of failed
      // attempts that no checkpoint kept) can never be committed; drop it as a cancel does.
      await this.abandonSinks();
      this.setStatus('FINISHED');
    } catch (err) {
      this.error ??= { code: (err as { code?: string }).code ?? 'TW-TASK-001', message: (err as Error).message, retryable: false };
      if (this.status !== 'FAILING') this.setStatus('FAILING');
      this.setStatus('FAILED');
    } finally {
      this.ending = false;
    }
    // Reports that came in meanwhile (a restarted attempt that failed at once) are looked at now.
    this.maybeEnd();
  }

  /** Sink.abandon of every sink (before the job reports its end, so a CLI exiting then waits for it). */
  private async abandonSinks(): Promise<void> {
    if (this.sinks.some((s) => s.abandon !== undefined)) await this.deps.records?.fence();
    for (const sink of this.sinks) {
      try {
        await sink.abandon?.();
      } catch (err) {
        log.warn(
          { err: (err as Error).message, jobId: this.job.jobId, pipelineId: this.pipelineId },
          'a sink could not drop uncommitted work of an ended job',
        );
      }
    }
  }

  /**
   * Closes the enumerator and committers. After a successful run the committers' close() is
   * the end-of-job hook (Assert checks its row counts there) and its error fails the job.
   */
  private async closeCoordinatorParts(success: boolean): Promise<void> {
    const committers = [...this.committers.values()];
    this.committers = new Map();
    if (success) {
      for (const c of committers) await c.close?.();
      await this.enumerator?.close();
      return;
    }
    for (const c of committers) await Promise.resolve(c.close?.()).catch(() => undefined);
    await this.enumerator?.close().catch(() => undefined);
  }

  /** The failover: a new attempt from the latest completed checkpoint. */
  private async restart(): Promise<void> {
    this.restarts++;
    this.attempt++;
    this.setStatus('INITIALIZING');
    await sleep(this.settings.retryIntervalMs);
    if (this.status !== 'INITIALIZING') return; // cancelled while waiting
    this.restorePoint = this.lastStored ?? (await this.readLatestStored());
    await this.replaceLostSlots();
    if (!(await this.acquireMissingSlots())) return;
    if ((this.status as PipelineStatus) !== 'INITIALIZING') return;
    for (const t of this.taskGroups) {
      if (t.metrics) t.previousMetrics = mergeMetrics(t.previousMetrics, t.metrics);
      t.metrics = undefined;
      t.state = 'CREATED';
      t.readyToClose = false;
      t.error = undefined;
    }
    this.finalTriggered = false;
    this.restarting = false;
    this.completedBefore += this.checkpoints.completed;
    this.failedBefore += this.checkpoints.failed;
    this.checkpoints = this.newCheckpointCoordinator(this.restorePoint?.checkpointId ?? this.checkpoints.lastId);
    log.info(
      { jobId: this.job.jobId, pipelineId: this.pipelineId, attempt: this.attempt, checkpoint: this.restorePoint?.checkpointId ?? 0 },
      'pipeline restarting',
    );
    this.setStatus('CREATED');
    await this.startAttempt();
  }

  private async readLatestStored(): Promise<RestorePoint | undefined> {
    const pointer = this.deps.records?.latestPointer(this.pipelineId);
    // With a state store, only a checkpoint whose pointer was recorded counts as completed:
    // data a deposed leader wrote later was never confirmed.
    if (this.deps.records && !pointer) return undefined;
    const latest = await this.deps.storage.readLatest(
      this.job.jobId,
      this.pipelineId,
      pointer && { checkpointId: pointer.checkpointId, key: pointer.key },
    );
    if (latest?.warning) log.warn({ jobId: this.job.jobId, pipelineId: this.pipelineId }, latest.warning);
    return latest ? restorePointOf(latest.checkpoint) : undefined;
  }

  /**
   * Before a restart deploys anything: every worker the task groups sit on is checked now (a
   * dead worker refuses connections long before its heartbeats time out), and task groups on
   * workers that are lost or do not answer lose their slots, to be replaced.
   */
  private async replaceLostSlots(): Promise<void> {
    const probe = this.deps.resources.probe?.bind(this.deps.resources);
    const addresses = [...new Set(this.taskGroups.map((t) => t.slot?.workerAddress).filter((a): a is string => a !== undefined))];
    for (const address of addresses) {
      if (this.lostWorkers.has(address) || !probe) continue;
      const r = await probe(address).catch(() => ({ alive: true, lost: false, reason: '' }));
      if (!r.alive) {
        log.warn(
          { jobId: this.job.jobId, pipelineId: this.pipelineId, worker: address, reason: r.reason },
          'not restarting on a worker that does not answer',
        );
        this.lostWorkers.add(address);
      }
    }
    const gone = this.taskGroups.filter((t) => t.slot && this.lostWorkers.has(t.slot.workerAddress));
    if (gone.length === 0) return;
    const ids = gone.map((t) => t.slot!.slotId);
    for (const t of gone) t.slot = undefined;
    // The slots on a worker that is only unresponsive would otherwise stay granted.
    await this.deps.resources
      .release(this.job.jobId, ids)
      .catch((err: unknown) =>
        log.warn({ err: (err as Error).message, jobId: this.job.jobId }, 'could not release the slots of a lost worker'),
      );
  }

  /**
   * Gets slots for task groups without one, all at once. While none are free (or the resource
   * manager is away) it waits with backoff instead of failing: a restart that finds no slot
   * does not spend the job's retries. Returns false when the pipeline stopped meanwhile.
   */
  private async acquireMissingSlots(): Promise<boolean> {
    const status = this.status;
    for (let attempt = 0; ; attempt++) {
      const missing = this.taskGroups.filter((t) => !t.slot);
      if (missing.length === 0) return true;
      try {
        const fresh = await this.deps.resources.apply(
          this.job.jobId,
          missing.map((t) => `${this.pipelineId}/${t.index}`),
          this.job.env.tagFilter ?? {},
        );
        missing.forEach((t, i) => (t.slot = fresh[i]));
        this.lostWorkers.clear();
        void this.deps.records?.persist().catch(() => undefined);
        return true;
      } catch (err) {
        const e = err as { code?: string; retryable?: boolean; message: string };
        if (e.code === ErrorCode.NOT_LEADER || (e.code !== ErrorCode.NO_ENOUGH_RESOURCE && !e.retryable)) throw err;
        if (attempt === 0)
          log.warn({ jobId: this.job.jobId, pipelineId: this.pipelineId, reason: e.message }, 'restart waits for free slots');
        await sleep(backoffDelay(attempt, 250, 5000) + 100);
        if (this.status !== status) return false;
      }
    }
  }

  slotIds(): string[] {
    return this.taskGroups.map((t) => t.slot?.slotId).filter((s): s is string => s !== undefined);
  }

  /** Counters of every attempt of a task group. */
  metricsOf(t: TaskGroupTrack): TaskGroupMetrics | undefined {
    return t.previousMetrics ? mergeMetrics(t.previousMetrics, t.metrics) : t.metrics;
  }
}

/** Counters summed table by table (attempts of a task group, or task groups of a pipeline). */
export function mergeMetrics(...all: Array<TaskGroupMetrics | undefined>): TaskGroupMetrics {
  const byTable = new Map<string, TaskGroupMetrics['tables'][number]>();
  for (const m of all) {
    for (const t of m?.tables ?? []) {
      const e = byTable.get(t.table);
      if (!e) byTable.set(t.table, { ...t });
      else {
        e.sourceReceivedCount += t.sourceReceivedCount;
        e.sinkWriteCount += t.sinkWriteCount;
        e.sourceReceivedBytes += t.sourceReceivedBytes;
        e.sinkWriteBytes += t.sinkWriteBytes;
      }
    }
  }
  return { tables: [...byTable.values()] };
}

export type { CheckpointKind };
