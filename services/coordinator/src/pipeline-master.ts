import type { Source } from '@tideway/api';
import type { CheckpointStorage } from '@tideway/checkpoint';
import type { StoredCheckpointRecord } from '@tideway/cluster';
import { ErrorCode, detach, logger, sleep, type SerializedError, serializeError } from '@tideway/common';
import type { SlotProfile, TaskGroupLocation } from '@tideway/contracts';
import { EXECUTION_STATE, PIPELINE_STATUS, type ExecutionState, type PipelineStatus } from '@tideway/dag';
import type { PluginConfig } from '@tideway/config';
import type { PlannedJob, PlannedPipeline } from '@tideway/planner';
import { createSource } from '@tideway/plugins/lazy';
import type { CheckpointKind, CommitInfos, TaskGroupMetrics, TaskGroupState } from '@tideway/runtime';
import type { CheckpointCoordinator } from './checkpoint-coordinator.js';
import type { RestorePoint } from './checkpoint-records.js';
import { CommitterHost } from './committer-host.js';
import { EnumeratorHost, type SplitEnumeration } from './enumerator-host.js';
import type { ResourceGateway, WorkerGateway } from './gateways.js';
import { PipelineCheckpoints } from './pipeline-checkpoints.js';
import type { PipelineRecords, PipelineResume, PipelineSettings } from './pipeline-deps.js';
import { PipelineFailover } from './pipeline-failover.js';
import { isPluginPackage, PluginThread } from './plugin-thread.js';
import { placementsOf } from './rescale.js';
import { deployTaskGroups, type DeploymentContext } from './task-deployment.js';
import { freshTrack, mergeAttempts, mergeMetrics, moveTrack, type TaskGroupTrack } from './task-group-track.js';

const log = logger('pipeline');

export { mergeMetrics, type TaskGroupTrack };
export type { PipelineRecords, PipelineResume, PipelineSettings };

export interface PipelineListener {
  onStatus(pipeline: PipelineMaster): void;
  /** A failure is making the pipeline restart (or fail). */
  onFailover?(pipeline: PipelineMaster, reason: string): void;
  /** A checkpoint ended (completed, failed or aborted) and joined the pipeline's history. */
  onCheckpoint?(pipeline: PipelineMaster, record: StoredCheckpointRecord): void;
  /** A source reader of the current attempt emitted a schema change. */
  onSchemaChange?(pipeline: PipelineMaster, change: SchemaChangeNotice): void;
}

/** A schema change a source reader reported: the table, its column changes in words, or that it was created. */
export interface SchemaChangeNotice {
  tableId: string;
  changes: string[];
  created: boolean;
}

export interface PipelineDeps {
  workers: WorkerGateway;
  resources: ResourceGateway;
  storage: CheckpointStorage;
  listener: PipelineListener;
  /** Where the pipeline's progress is recorded (the state store); none in unit tests. */
  records?: PipelineRecords;
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
  /** The checkpoints of every attempt (the current attempt's coordinator is `checkpoints`). */
  private readonly cps: PipelineCheckpoints;
  /** Whether the sinks' save modes ran (a restart or take-over never runs them again). */
  sinksPrepared = false;
  private enumerator?: SplitEnumeration;
  /** The attempt's thread for plugin packages' coordinator-side code, if it has any (plugin-thread.ts). */
  private pluginThread?: PluginThread;
  /** The sinks' coordinator side: save modes, aggregated commits, abandon. */
  private readonly committers: CommitterHost;
  /** Restart decisions and slot replacement. */
  private readonly failover: PipelineFailover;
  /** The job was cancelled: its sinks roll back what was prepared but never committed. */
  private abandonOnEnd = false;
  private finalTriggered = false;
  private restarting = false;
  private ending = false;
  /** The start of an attempt in progress: its end waits for it (the two never interleave). */
  private starting?: Promise<void>;
  /** The checkpoint the next attempt starts from (a restore, or the latest completed). */
  private restorePoint?: RestorePoint;
  /** A move off a draining worker is under way (moveOff). */
  private moving = false;
  /** The restart under way moves task groups off a draining worker: no failure, no pause. */
  private relocating = false;
  /** When this pipeline first saw each draining worker it runs on (ms), for the batch timeout. */
  private readonly drainSeen = new Map<string, number>();

  constructor(
    private readonly job: PlannedJob,
    readonly plan: PlannedPipeline,
    private readonly deps: PipelineDeps,
    private readonly settings: PipelineSettings,
    restoreFrom?: RestorePoint,
  ) {
    this.taskGroups = plan.taskGroups.map((tg) => freshTrack(tg.index));
    this.committers = new CommitterHost(job, plan, () => deps.records?.fence() ?? Promise.resolve());
    const persist = deps.records && (() => deps.records!.persist());
    this.failover = new PipelineFailover({ jobId: job.jobId, env: job.env, pipelineId: plan.pipelineId, ...deps, settings, persist });
    this.restorePoint = restoreFrom;
    this.cps = new PipelineCheckpoints(
      {
        jobId: job.jobId,
        pipelineId: plan.pipelineId,
        sourceVertexId: plan.source.vertexId,
        settings: settings.checkpoint,
        workers: deps.workers,
        storage: deps.storage,
        records: deps.records,
        committers: this.committers,
        liveTaskGroups: () => this.taskGroups.filter((t) => !EXECUTION_STATE.isTerminal(t.state)).map((t) => t.index),
        isSource: (tg) => this.plan.taskGroups[tg].isSource,
        address: (tg) => this.taskGroups[tg].slot!.workerAddress,
        location: (tg) => this.location(tg),
        enumerator: () => this.enumerator,
        onCompleted: () => this.failover.onCheckpointCompleted(),
        onCommitFailed: (err) => this.onFailure(serializeError(err)),
        onRecorded: (record) => this.deps.listener.onCheckpoint?.(this, record),
        placements: placementsOf(plan),
        restoredFrom: restoreFrom,
      },
      restoreFrom?.checkpointId ?? 0,
    );
  }

  /** The checkpoint coordinator of the current attempt. */
  get checkpoints(): CheckpointCoordinator {
    return this.cps.coordinator;
  }

  get pipelineId(): number {
    return this.plan.pipelineId;
  }

  location(index: number): TaskGroupLocation {
    return { jobId: this.job.jobId, pipelineId: this.pipelineId, taskGroupIndex: index, attempt: this.attempt };
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
    const taskState = status === 'FINISHED' ? 'FINISHED' : status === 'FAILED' ? 'FAILED' : 'CANCELED';
    this.taskGroups.forEach((t, i) => {
      this.taskGroups[i] = { ...t, slot: undefined, state: EXECUTION_STATE.restored(taskState) };
    });
    if (error) this.error ??= error;
    this.checkpoints.stop();
    this.status = PIPELINE_STATUS.restored(status);
    this.deps.listener.onStatus(this);
  }

  /** Checkpoints completed over every attempt. */
  get completedCheckpoints(): number {
    return this.cps.completed;
  }

  get failedCheckpoints(): number {
    return this.cps.failed;
  }

  /** Time of the latest completed checkpoint (ms since epoch, 0 if none). */
  get lastCheckpointTime(): number {
    return this.cps.lastCheckpointTime;
  }

  /** The last checkpoints, newest first (tideway.checkpoint-history.size of them). */
  get checkpointHistory(): StoredCheckpointRecord[] {
    return this.cps.history.list();
  }

  /** The history an earlier leader recorded, for a pipeline taken over (ended or not). */
  resumeCheckpointHistory(recorded: StoredCheckpointRecord[] | undefined): void {
    this.cps.history.resume(recorded);
  }

  /**
   * A new leader takes the pipeline over: the next attempt restores from the latest recorded
   * checkpoint into the slots its task groups still hold (fresh ones for the others), and its
   * counters go on from the recorded ones.
   */
  async resume(r: PipelineResume): Promise<void> {
    const s = r.stored;
    this.attempt = s.attempt + 1;
    this.restarts = s.restarts;
    this.sinksPrepared = s.sinksPrepared;
    this.taskGroups.forEach((t, i) => {
      t.slot = r.slots[i];
      t.previousMetrics = i === 0 && s.counters.length > 0 ? { tables: s.counters.map((c) => ({ ...c })) } : undefined;
    });
    this.cps.resume(s);
    this.restorePoint = await this.cps.latestRecorded();
    this.cps.renew(this.restorePoint?.checkpointId ?? 0);
    const status = this.status;
    if (!(await this.failover.acquireMissingSlots(this.taskGroups, () => this.status === status))) return;
    log.info(
      { jobId: this.job.jobId, pipelineId: this.pipelineId, attempt: this.attempt, checkpoint: this.restorePoint?.checkpointId ?? 0 },
      'pipeline taken over',
    );
    await this.startAttempt();
  }

  isEnded(): boolean {
    return PIPELINE_STATUS.isTerminal(this.status);
  }

  /** Starts the first attempt in the granted slots (one per task group). */
  async deploy(slots: SlotProfile[]): Promise<void> {
    this.taskGroups.forEach((t, i) => (t.slot = slots[i]));
    await this.startAttempt();
  }

  /** Starts an attempt; an end that comes meanwhile waits for it (see end()). */
  private async startAttempt(): Promise<void> {
    const run = this.runAttemptStart();
    this.starting = run;
    try {
      await run;
    } finally {
      if (this.starting === run) this.starting = undefined;
    }
  }

  private async runAttemptStart(): Promise<void> {
    const attempt = this.attempt;
    this.setStatus('SCHEDULED');
    this.setStatus('DEPLOYING');
    try {
      const restore = this.restorePoint;
      // The first attempt reuses the source planning prepared; a restart reads its schema afresh.
      const thread = this.startPluginThread(attempt);
      const src = this.plan.source;
      if (thread && isPluginPackage('source', src.plugin.name)) {
        // A plugin package's enumerator runs in the thread, on a source prepared there.
        const spec = { jobId: this.job.jobId, jobMode: this.job.jobMode, parallelism: src.parallelism, inputTables: [] };
        this.enumerator = thread.enumerator(src.vertexId, src.plugin, spec);
      } else {
        const source = this.attempt > 0 || !src.prepared ? await preparedSource(this.job, this.plan) : src.prepared;
        this.enumerator = new EnumeratorHost(source, src.parallelism, () => this.checkpoints.request());
      }
      const enumerator = this.enumerator;
      const opened = (async () => {
        await enumerator.open(restore?.enumeratorStates.get(src.vertexId));
        // A restore at another source parallelism: the old readers' splits go back to the enumerator.
        for (const back of restore?.splitsBack ?? []) await enumerator.addSplitsBack(back.splits, back.subtask);
      })();
      // A built-in source's enumerator makes its split plan (a Jdbc source's bounds and COUNT(*))
      // while the save modes run (docs/decisions/0096); both are done before anything deploys. A
      // plugin package's enumerator, in its thread, opens first.
      if (!(enumerator instanceof EnumeratorHost)) await opened;
      // Save modes (create/drop/truncate the target) run once, before the first writer starts.
      const sinksOpened = this.committers.open(!this.sinksPrepared && !restore, () => this.status === 'DEPLOYING', thread);
      const [enumeration, sinks] = await Promise.allSettled([opened, sinksOpened]);
      if (sinks.status === 'fulfilled' && this.status === 'DEPLOYING' && !this.sinksPrepared) {
        this.sinksPrepared = true;
        // Recorded before any writer starts, so that no later leader runs the save modes again
        // (nor this pipeline's restart, when it was the enumerator that failed).
        await this.deps.records?.persist();
      }
      if (enumeration.status === 'rejected') throw enumeration.reason;
      if (sinks.status === 'rejected') throw sinks.reason;
      if (restore) await this.committers.recommit(restore);
      if (this.status !== 'DEPLOYING') {
        // Cancelled while the enumerator and committers opened: close them again, deploy nothing.
        await this.closeCoordinatorParts(false);
        return;
      }
      await deployTaskGroups(this.deployment(attempt), this.plan, this.taskGroups, restore);
    } catch (err) {
      // A failure of an attempt that was replaced meanwhile is no news.
      if (this.attempt !== attempt) return;
      this.onFailure({
        code: (err as { code?: string }).code ?? ErrorCode.INTERNAL,
        message: `could not deploy pipeline ${this.pipelineId}: ${(err as Error).message}`,
        retryable: true,
      });
    }
  }

  /**
   * The attempt's plugin thread, when its source or a sink comes from a plugin package (built-ins
   * stay on this thread: docs/decisions/0086). A call there past its limit fails the attempt.
   */
  private startPluginThread(attempt: number): PluginThread | undefined {
    const hosted = new Map<number, PluginConfig>();
    const src = this.plan.source;
    if (isPluginPackage('source', src.plugin.name)) hosted.set(src.vertexId, src.plugin);
    for (const s of this.plan.sinks) if (isPluginPackage('sink', s.plugin.name)) hosted.set(s.vertexId, s.plugin);
    if (hosted.size === 0) return undefined;
    const thread: PluginThread = new PluginThread(
      this.job.jobId,
      this.pipelineId,
      hosted,
      this.settings.pluginCallTimeout ?? {},
      {
        onFailure: (err) => {
          if (this.attempt === attempt && this.pluginThread === thread) this.onFailure(serializeError(err));
        },
        onCheckpointRequest: () => {
          if (this.attempt === attempt) this.checkpoints.request();
        },
      },
      this.job.packageDirs,
    );
    // An earlier attempt's thread (none is left when a restart starts one) goes.
    const previous = this.pluginThread;
    this.pluginThread = thread;
    previous?.close().catch(() => undefined);
    return thread;
  }

  /** Ends the plugin thread of the last attempt, if it has one (at a restart, at the pipeline's end, when the coordinator stops). */
  async stopPluginThread(): Promise<void> {
    const thread = this.pluginThread;
    this.pluginThread = undefined;
    await thread?.close();
  }

  private deployment(attempt: number): DeploymentContext {
    return {
      workers: this.deps.workers,
      attempt,
      location: (i) => this.location(i),
      deploying: () => this.status === 'DEPLOYING',
      stopping: () => this.attempt === attempt && (this.status === 'CANCELING' || this.status === 'FAILING'),
      onCancelled: (i) => this.onTaskState(i, attempt, 'CANCELED'),
    };
  }

  /** A task group's state report from its worker. */
  onTaskState(index: number, attempt: number, state: ExecutionState | 'PREPARE_CLOSE', error?: SerializedError): void {
    const t = this.taskGroups[index];
    if (!t || attempt !== this.attempt) return;
    // The worker's error of the current attempt is kept even when the task group has ended here.
    if (error) t.error = error;
    if (EXECUTION_STATE.isTerminal(t.state)) return;
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
      error ??= { code: ErrorCode.TASK_FAILED, message: `task group ${index} was cancelled on its worker`, retryable: true };
    }
    if (error) t.error = error;
    moveTrack(t, state);
    if (state === 'RUNNING') {
      if (this.status === 'DEPLOYING' && this.taskGroups.every((x) => x.state === 'RUNNING' || EXECUTION_STATE.isTerminal(x.state))) {
        this.setStatus('RUNNING');
        this.checkpoints.start();
        this.maybeTriggerFinal();
      }
    } else if (state === 'FAILED') {
      this.onFailure(error ?? { code: ErrorCode.TASK_FAILED, message: `task group ${index} failed`, retryable: true });
    }
    this.maybeEnd();
  }

  onMetrics(index: number, attempt: number, metrics: TaskGroupMetrics): void {
    const t = this.taskGroups[index];
    if (t && attempt === this.attempt) t.metrics = metrics;
  }

  /** A reader's schema change (an earlier attempt's late report is ignored). */
  onSchemaChange(index: number, attempt: number, change: SchemaChangeNotice): void {
    if (this.taskGroups[index] && attempt === this.attempt) this.deps.listener.onSchemaChange?.(this, change);
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

  requestSplits(index: number, attempt: number, register: boolean, request: boolean, events: unknown[] = [], answerBy?: number) {
    if (attempt !== this.attempt || !this.enumerator || (this.status !== 'RUNNING' && this.status !== 'DEPLOYING'))
      return Promise.resolve({ splits: [], noMoreSplits: false });
    return this.enumerator.request(this.plan.taskGroups[index].descriptor.subtaskIndex, register, request, events, answerBy);
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

  /**
   * A checkpoint asked for by hand (tideway checkpoint): taken now, after one in flight, without
   * the minimum pause. Resolves with the id of the checkpoint completed; throws with the reason
   * when the pipeline is not running or the checkpoint failed.
   */
  async checkpointNow(): Promise<number> {
    if (this.status !== 'RUNNING')
      throw new Error(`pipeline ${this.pipelineId} is ${this.status}; only a RUNNING pipeline takes a checkpoint`);
    const coordinator = this.checkpoints;
    if (!(await coordinator.trigger('CHECKPOINT', true))) {
      throw new Error(`the checkpoint of pipeline ${this.pipelineId} did not complete (aborted, timed out, or the pipeline stopped)`);
    }
    return coordinator.latestCompleted?.checkpointId ?? coordinator.lastId;
  }

  /** Bounded pipelines end with a final checkpoint once every reader is done. */
  private maybeTriggerFinal(): void {
    if (this.finalTriggered || this.status !== 'RUNNING') return;
    if (!this.taskGroups.every((t) => t.readyToClose || EXECUTION_STATE.isTerminal(t.state))) return;
    this.finalTriggered = true;
    const attempt = this.attempt;
    const running = () => !this.isEnded() && this.status === 'RUNNING' && this.attempt === attempt;
    detach(this.cps.triggerFinal(running), 'the final checkpoint');
  }

  /** A task group failed (or deploying failed): restart from the latest checkpoint, or fail. */
  private onFailure(error: SerializedError): void {
    if (this.isEnded() || this.status === 'FAILING' || this.status === 'CANCELING') {
      this.error ??= error;
      return;
    }
    this.error = error;
    this.relocating = false;
    this.restarting = this.failover.onFailure(error);
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
    if (this.status === 'FAILING') return; // already stopping: it ends FAILED (CANCELED when it was moving off a drained worker)
    // Between two attempts (INITIALIZING) no task group runs: there is nothing to tell.
    const between = this.status === 'INITIALIZING';
    this.setStatus('CANCELING');
    if (!between) this.cancelTaskGroups('job cancelled');
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

  /** Whether a task group of this pipeline runs (not ended) on the worker. */
  runsOn(address: string): boolean {
    return this.taskGroups.some((t) => t.slot?.workerAddress === address && !EXECUTION_STATE.isTerminal(t.state));
  }

  /**
   * The worker drains: this pipeline's task groups leave it. With checkpoints on (an interval
   * above 0), a checkpoint is taken now and, once it completed, the pipeline restarts from it at
   * once, its task groups on the worker in new slots on other workers (the others keep theirs).
   * The whole pipeline restarts because its failover works per pipeline: a task group's
   * restored state and its peers' shuffle channels belong to one attempt. The restart does not
   * count against job.retry.times. Without checkpoints (a BATCH job without
   * checkpoint.interval) the task groups may run to their end; after `batchTimeoutMs` they are
   * moved by the same restart (from the latest checkpoint, or from the start). Called on every
   * tick while the worker drains: it does nothing while a move is under way, while the pipeline
   * is not RUNNING (a restart, a deploy) or finishing, or once nothing of it runs there.
   */
  async moveOff(address: string, batchTimeoutMs: number): Promise<void> {
    if (this.moving || this.status !== 'RUNNING' || this.finalTriggered || !this.runsOn(address)) return;
    const now = Date.now();
    const seen = this.drainSeen.get(address) ?? now;
    this.drainSeen.set(address, seen);
    const checkpointed = this.settings.checkpoint.intervalMs > 0;
    if (!checkpointed && now - seen < batchTimeoutMs) return;
    const attempt = this.attempt;
    this.moving = true;
    try {
      let reason = `moved off draining worker ${address}`;
      if (checkpointed) reason += ` from checkpoint ${await this.checkpointNow()}`;
      else reason += ` after ${Math.round((now - seen) / 1000)} s without checkpoints (tideway.drain.batch-timeout)`;
      if (this.attempt !== attempt || this.status !== 'RUNNING' || this.finalTriggered || !this.runsOn(address)) return;
      this.relocate(address, reason);
    } catch (err) {
      log.warn(
        { jobId: this.job.jobId, pipelineId: this.pipelineId, worker: address, err: (err as Error).message },
        'could not move off a draining worker yet; trying again',
      );
    } finally {
      this.moving = false;
    }
  }

  /** Stops every task group and restarts the pipeline from its latest checkpoint, off `address`. */
  private relocate(address: string, reason: string): void {
    log.info({ jobId: this.job.jobId, pipelineId: this.pipelineId, attempt: this.attempt, worker: address }, reason);
    this.drainSeen.delete(address);
    this.failover.onWorkerDrained(address);
    this.deps.listener.onFailover?.(this, reason);
    this.restarting = true;
    this.relocating = true;
    this.checkpoints.stop();
    this.setStatus('FAILING');
    this.cancelTaskGroups(reason);
    this.maybeEnd();
  }

  /** Task groups on a lost worker have failed; their slots must be replaced on restart. */
  onWorkerLost(address: string): void {
    this.failover.onWorkerLost(address);
    for (const t of this.taskGroups) {
      if (t.slot?.workerAddress === address && !EXECUTION_STATE.isTerminal(t.state)) {
        const error = { code: ErrorCode.TASK_FAILED, message: `worker ${address} was lost`, retryable: true };
        this.onTaskState(t.index, this.attempt, 'FAILED', error);
      }
    }
  }

  private maybeEnd(): void {
    if (this.isEnded() || this.ending) return;
    if (this.status === 'INITIALIZING' && this.restarting) return;
    if (!this.taskGroups.every((t) => EXECUTION_STATE.isTerminal(t.state))) return;
    detach(this.end(), `the end of pipeline ${this.job.jobId}/${this.pipelineId}`);
  }

  /**
   * Every task group has stopped: the coordinator parts close, then the pipeline restarts,
   * or ends as its status says (a cancel that comes while it closes wins over finishing).
   */
  private async end(): Promise<void> {
    this.ending = true;
    try {
      // An attempt still starting (deploy calls in flight) is waited for, so that its sinks and
      // enumerator are not closed while they open.
      if (this.starting) await this.starting;
      this.checkpoints.stop();
      await this.closeCoordinatorParts(this.status === 'RUNNING');
      if (this.status === 'FAILING' && this.restarting) {
        // A restart called off by a cancel leaves the pipeline CANCELING: maybeEnd() below ends it.
        await this.restart();
      } else if (this.status === 'FAILING' || this.status === 'CANCELING' || this.status === 'INITIALIZING') {
        // A cancel during a move off a draining worker: no failure happened, the pipeline ends CANCELED.
        if (this.status === 'FAILING' && this.relocating) this.setStatus('INITIALIZING');
        this.relocating = false;
        if (this.status === 'INITIALIZING') this.setStatus('CANCELING');
        if (this.abandonOnEnd) await this.committers.abandon();
        this.setStatus(this.status === 'FAILING' ? 'FAILED' : 'CANCELED');
      } else {
        // Every checkpoint is committed: what a sink still holds uncommitted (leftovers of failed
        // attempts that no checkpoint kept) can never be committed; drop it as a cancel does.
        await this.committers.abandon();
        if ((this.status as PipelineStatus) === 'CANCELING') this.setStatus('CANCELED');
        else this.setStatus('FINISHED');
      }
    } catch (err) {
      this.error ??= { code: (err as { code?: string }).code ?? ErrorCode.TASK_FAILED, message: (err as Error).message, retryable: false };
      if (this.status === 'CANCELING') this.setStatus('CANCELED');
      else if (!this.isEnded()) {
        if (this.status !== 'FAILING') this.setStatus('FAILING');
        this.setStatus('FAILED');
      }
    } finally {
      this.ending = false;
      if (this.isEnded()) await this.stopPluginThread();
    }
    // Reports that came in meanwhile (a restarted attempt that failed at once) are looked at now.
    this.maybeEnd();
  }

  /**
   * Closes the enumerator and committers. After a successful run the committers' close() is
   * the end-of-job hook (Assert checks its row counts there) and its error fails the job.
   */
  private async closeCoordinatorParts(success: boolean): Promise<void> {
    await this.committers.close(success);
    if (success) await this.enumerator?.close();
    else await this.enumerator?.close().catch(() => undefined);
  }

  /** The failover: a new attempt from the latest completed checkpoint. */
  private async restart(): Promise<void> {
    await this.stopPluginThread();
    this.restarts++;
    this.attempt++;
    this.setStatus('INITIALIZING');
    const attempt = this.attempt;
    // false once the restart is called off (a cancel while waiting for the interval or slots)
    const current = () => this.attempt === attempt && this.status === 'INITIALIZING';
    const moving = this.relocating;
    this.relocating = false;
    if (!(await this.failover.prepareRestart(this.taskGroups, current, !moving))) return;
    this.restorePoint = await this.cps.latest();
    if (!current()) return;
    // The new attempt's task groups start CREATED, in the slots they keep.
    this.taskGroups.forEach((t, i) => {
      this.taskGroups[i] = freshTrack(t.index, t.slot, t.metrics ? mergeAttempts(t.previousMetrics, t.metrics) : t.previousMetrics);
    });
    this.finalTriggered = false;
    this.restarting = false;
    this.cps.renew(this.restorePoint?.checkpointId);
    log.info(
      { jobId: this.job.jobId, pipelineId: this.pipelineId, attempt: this.attempt, checkpoint: this.restorePoint?.checkpointId ?? 0 },
      'pipeline restarting',
    );
    this.setStatus('CREATED');
    await this.startAttempt();
  }

  slotIds(): string[] {
    return this.taskGroups.map((t) => t.slot?.slotId).filter((s): s is string => s !== undefined);
  }

  /** Counters of every attempt of a task group. */
  metricsOf(t: TaskGroupTrack): TaskGroupMetrics | undefined {
    return t.previousMetrics ? mergeAttempts(t.previousMetrics, t.metrics) : t.metrics;
  }
}

/** A fresh source for a restarted attempt (it reads its schema afresh). */
async function preparedSource(job: PlannedJob, plan: PlannedPipeline): Promise<Source> {
  const spec = { jobId: job.jobId, jobMode: job.jobMode, parallelism: plan.source.parallelism, inputTables: [] };
  const source = createSource(plan.source.plugin, spec, job.registry);
  await source.prepare?.();
  return source;
}

export type { CheckpointKind };
