import { EventEmitter } from 'node:events';
import type { SlotProfile, SubmitJobRequest } from '@tideway/contracts';
import { ErrorCode, TidewayError, detach, logger, newJobId, redactSecrets, runForJob, serializeError } from '@tideway/common';
import type { ConfigLimits, JobConfig, NamespaceLimits } from '@tideway/config';
import { planJobText, type PlannedJob, type PlanRequest } from '@tideway/planner';
import type { StateStore, StoredJob, StoredJobInfo } from '@tideway/cluster';
import type { CheckpointStorage } from '@tideway/checkpoint';
import type { CallLimits } from '@tideway/runtime';
import type { JobEventReporter } from './job-events.js';
import type { PipelineSettings } from './pipeline-deps.js';
import { restorePointOf, type RestorePoint } from './checkpoint-records.js';
import { JobMaster } from './job-master.js';
import { countersForTakeOver, JobRecorder } from './job-recorder.js';
import { jobDagInfo } from './job-dag-info.js';
import { rateCounters, type PlanningJob } from './job-info.js';
import type { Leadership } from './leadership.js';
import { RateTracker } from './rate-tracker.js';
import type { RemoteResourceManager, RemoteWorkers } from './remote-gateways.js';
import { Scheduler, type JobScheduleStrategy } from './scheduler.js';
import { reusableSlots } from './take-over.js';
import { checkAccess, namespaceOf, type Caller } from './namespace-access.js';
import { admitBlocks, admitSinkTables } from './namespace-limits.js';
import { CheckpointRetention } from './checkpoint-retention.js';
import { fitRestorePoints, restoreSourceOf } from './restore-from.js';
import { PluginDistribution, type PluginDistributionOptions } from './plugin-distribution.js';
import { PlanningThreadHost } from './plugin-thread.js';
import { namespaceUsage, quotaPolicy, type QuotaSource } from './namespace-quotas.js';
import type { NamespaceUsage } from '@tideway/contracts';

const log = logger('coordinator');
/** Ended jobs stay in memory this long (for watchers); their history lives in the state store. */
const ENDED_IN_MEMORY_MS = 60_000;

/** What the dispatcher needs of the coordinator's options. */
export interface DispatcherOptions {
  jobScheduleStrategy: JobScheduleStrategy;
  /** Ended jobs stay listed this long (history-job-expire-minutes). */
  historyExpireMs: number;
  /** Engine-level checkpoint defaults (seatunnel.engine.checkpoint). */
  checkpoint: { intervalMs: number; timeoutMs: number; minPauseMs: number; historySize?: number };
  checkpointStorage: CheckpointStorage;
  namespaces?: Readonly<Record<string, NamespaceLimits>>;
  configLimits?: ConfigLimits;
  /** Where job events are pushed (event-report-http, tideway.events.webhooks); none when unset. */
  events?: JobEventReporter;
  /** seatunnel.engine.jar-storage: plugin packages stored and shipped to the workers (default on, in a temporary cache folder). */
  pluginStorage?: PluginDistributionOptions;
  /** Time limits of plugin packages' coordinator-side calls (tideway.plugin-call-timeout); absent: none. */
  pluginCallTimeout?: CallLimits;
}

/** The parts of the coordinator process the dispatcher works through. */
export interface DispatcherDeps {
  store: StateStore;
  fence: Leadership;
  rm: RemoteResourceManager;
  workers: RemoteWorkers;
}

/**
 * Flink's Dispatcher: owns the jobs of this leadership. It plans and admits submitted jobs,
 * finds the restore points of a restore (-r), records each job in the state store, runs a
 * JobMaster per job and queues it with the Scheduler, adopts the recorded jobs at a take-over,
 * and forgets them all when the leadership ends.
 *
 * Every change to job state happens in one event-loop turn (Node's main thread is Flink's
 * main-thread executor): a handler reads and writes the state of its job with no await in
 * between, and a continuation after an await is a new event that checks again that its job,
 * pipeline attempt and status are still the ones it started from (docs/architecture.md).
 */
/** A job config as its log shows it: env and each plugin's options, secrets masked by key and value. */
function shownConfig(c: JobConfig): Record<string, unknown> {
  const plugins = (list: JobConfig['sources']) => list.map((p) => ({ [p.name]: redactSecrets(p.options) }));
  return { env: redactSecrets(c.env), source: plugins(c.sources), transform: plugins(c.transforms), sink: plugins(c.sinks) };
}

export class Dispatcher {
  /** Jobs of this leadership: running ones, and ended ones for a minute. */
  readonly jobs = new Map<string, JobMaster>();
  readonly recorders = new Map<string, JobRecorder>();
  /** Jobs submitted and still being planned (no JobMaster yet), by id. */
  readonly planning = new Map<string, PlanningJob>();
  readonly rates = new Map<string, RateTracker>();
  /** Job changes, by job id (watchers listen). */
  readonly events = new EventEmitter();
  private scheduler: Scheduler;
  /** Deletes ended jobs' checkpoints when their time comes (checkpoint-retention.ts). */
  private readonly retention: CheckpointRetention;
  /** The cluster's plugin store and the packages this coordinator unpacked. */
  readonly plugins: PluginDistribution;

  constructor(
    private readonly options: DispatcherOptions,
    private readonly deps: DispatcherDeps,
  ) {
    this.scheduler = this.newScheduler();
    this.events.setMaxListeners(0);
    this.plugins = new PluginDistribution(
      options.checkpointStorage,
      options.pluginStorage ?? { enable: true, cacheDir: '', expiryMs: 600_000, cleanupIntervalMs: 3_600_000 },
    );
    this.retention = new CheckpointRetention(
      options.checkpointStorage,
      deps.store,
      options.historyExpireMs,
      (id) => this.planning.has(id) || (this.jobs.has(id) && !this.jobs.get(id)!.isEnded()),
    );
  }

  /** Removes the stored plugin packages no job named for connector-jar-expiry-time (the leader's tick; at its own interval). */
  cleanupPlugins(now: number): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => !j.isEnded());
    return this.plugins.cleanup(new Set(running.flatMap((j) => j.job.packages.map((p) => p.hash))), now);
  }

  /** The jobs not ended (running, or about to) whose task deployments name the stored package `hash`, as `id (name)`. */
  jobsUsingPackage(hash: string): string[] {
    return [...this.jobs.values()]
      .filter((j) => !j.isEnded() && j.job.packages.some((p) => p.hash === hash))
      .map((j) => `${j.job.jobId} (${j.job.jobName})`);
  }

  /** A new leadership begins: a fresh scheduler and queue; cancelled jobs' checkpoints get their expiry. */
  beginLeadership(): void {
    this.scheduler = this.newScheduler();
    this.retention
      .arm()
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not list ended jobs for their checkpoints expiry'));
  }

  /** The queue, fair between namespaces and within their quotas (tideway.auth.namespaces). */
  private newScheduler(): Scheduler {
    return new Scheduler(this.deps.rm, this.options.jobScheduleStrategy, undefined, quotaPolicy(this.quotaSource()));
  }

  private quotaSource(): QuotaSource {
    return { jobs: () => this.jobs.values(), namespaceOf: (id) => this.namespaceOf(id), limits: this.options.namespaces };
  }

  /** Usage against quota per namespace (tideway overview). */
  namespaceUsage(): NamespaceUsage[] {
    return namespaceUsage(this.quotaSource(), this.scheduler.pendingByNamespace());
  }

  /** The process stops: no more scheduling, no more checkpoints. */
  stop(): void {
    this.retention.stop();
    this.scheduler.stop();
    for (const j of this.jobs.values())
      for (const p of j.pipelines) {
        p.checkpoints.stop();
        p.stopPluginThread().catch(() => undefined);
      }
  }

  /** The leadership is gone: stop acting at once and forget the jobs (the next leader resumes them). */
  forgetAll(): void {
    this.stop();
    this.jobs.clear();
    this.recorders.clear();
    this.planning.clear();
    this.rates.clear();
  }

  /** Slots this leader's jobs hold. */
  heldSlots(): string[] {
    return [...this.jobs.values()].flatMap((j) => j.pipelines.flatMap((p) => p.slotIds()));
  }

  /** Whether a job of this leader has a task group running on the worker. */
  runsOn(address: string): boolean {
    return [...this.jobs.values()].some((j) => !j.isEnded() && j.pipelines.some((p) => p.runsOn(address)));
  }

  /**
   * A worker drains: every pipeline with a task group on it moves off (PipelineMaster.moveOff:
   * at its next completed checkpoint, or after `batchTimeoutMs` without checkpoints).
   */
  moveOff(address: string, batchTimeoutMs: number): void {
    for (const j of this.jobs.values()) {
      if (j.isEnded()) continue;
      for (const p of j.pipelines)
        if (p.runsOn(address)) detach(p.moveOff(address, batchTimeoutMs), `moving job ${j.jobId} off ${address}`);
    }
  }

  /** Task groups on a lost worker fail (their pipelines fail over). */
  workerLost(address: string): void {
    for (const j of this.jobs.values()) if (!j.isEnded()) j.onWorkerLost(address);
  }

  /** The ticker's work on the jobs: rates sampled, counters backed up, ended jobs forgotten. */
  tick(now: number, backup: boolean): void {
    for (const [id, job] of this.jobs) {
      if (!job.isEnded()) {
        this.rates.get(id)?.sample(rateCounters(job), now);
        if (backup) this.recorders.get(id)?.changed();
      } else if (now - job.finishTime > ENDED_IN_MEMORY_MS) {
        this.jobs.delete(id);
        this.rates.delete(id);
        this.recorders.delete(id);
      }
    }
  }

  /** Takes one recorded job over: re-planned from its config, then resumed or queued again. */
  adopt(stored: StoredJob, epoch: number, slots: Map<string, SlotProfile>): Promise<void> {
    return runForJob(stored.info.jobId, () => this.adoptAs(stored, epoch, slots));
  }

  private async adoptAs(stored: StoredJob, epoch: number, slots: Map<string, SlotProfile>): Promise<void> {
    const { info, state } = stored;
    const { store, fence, rm } = this.deps;
    const recorder = new JobRecorder(store, fence, info, this.options.historyExpireMs, stored.checkpoints);
    let job: JobMaster;
    try {
      const planned = await this.plan(requestOf(info), info.jobId);
      // A restored job restarts from what it was restored from until its own first checkpoint.
      const from = restoreSourceOf(info);
      const none = new Map<number, RestorePoint>();
      const restore = from ? fitRestorePoints(await this.restorePoints(from).catch(() => none), planned, from) : none;
      job = this.newJobMaster(planned, recorder, info.submitTimeMs, restore);
    } catch (err) {
      const e = serializeError(err);
      log.warn({ jobId: info.jobId, err: e.message }, 'take-over: the job could not be planned again; it fails');
      const failed = {
        ...state,
        status: 'FAILED',
        finishTimeMs: Date.now(),
        error: { ...e, message: `taken over by a new leader but could not be planned again: ${e.message}` },
      };
      await fence.run((ep) => store.endJob(ep, info.jobId, failed, this.options.historyExpireMs)).catch(() => undefined);
      // Its task groups were cancelled with the others; its slots go back now.
      await rm
        .release(info.jobId, [])
        .catch((err: unknown) =>
          log.warn({ err: (err as Error).message, jobId: info.jobId }, 'could not release the slots of a job that failed on take-over'),
        );
      return;
    }
    this.register(job, recorder);
    if (state.status === 'CREATED' || state.status === 'PENDING') {
      this.scheduler.submit(job);
      log.info({ jobId: info.jobId }, 'take-over: job queued again');
      return;
    }
    const pipelines = state.pipelines.map((p) => ({ ...p, counters: countersForTakeOver(p.counters, stored.checkpoints[p.pipelineId]) }));
    await job.resume({ ...state, pipelines }, epoch, (p) => reusableSlots(stored, p.pipelineId, slots));
    log.info({ jobId: info.jobId, status: job.status }, 'take-over: job resumed');
  }

  /**
   * The latest checkpoint or savepoint of each pipeline of a job being restored (-r): the
   * pointers the state store recorded when it knows the job, the storage's own otherwise.
   */
  private async restorePoints(jobId: string): Promise<Map<number, RestorePoint>> {
    const storage = this.options.checkpointStorage;
    const recorded = (await this.deps.store.job(jobId))?.checkpoints ?? {};
    const refs = await storage.listCheckpoints(jobId);
    const pipelines = [...new Set([...refs.map((r) => r.pipelineId), ...Object.keys(recorded).map(Number)])];
    const points = new Map<number, RestorePoint>();
    for (const pid of pipelines) {
      const pointer = recorded[pid];
      const latest = await storage.readLatest(jobId, pid, pointer && { checkpointId: pointer.checkpointId, key: pointer.key });
      if (!latest) continue;
      if (latest.warning) log.warn({ jobId, pipelineId: pid }, latest.warning);
      points.set(pid, restorePointOf(latest.checkpoint));
    }
    if (points.size === 0) {
      throw new TidewayError(ErrorCode.NOT_FOUND, `job ${jobId} has no checkpoint or savepoint to restore from in ${storage.description}`, {
        jobId,
      });
    }
    return points;
  }

  /**
   * Plans a job. With `caller` (a submit or PlanJob; not a take-over, whose job was admitted
   * already), the limits of the caller's namespace (tideway.auth.namespaces) are checked: the plugins and local paths
   * before any plugin is created, a LocalFile sink's folders with its tables' names once planned.
   * With `record` (not for PlanJob), the job is noted as a user of its plugin packages.
   */
  async plan(req: SubmitJobRequest, jobId: string, caller?: Caller, record = true): Promise<PlannedJob> {
    const ns = namespaceOf(caller);
    const limits = ns ? this.options.namespaces?.[ns] : undefined;
    let packageDirs: readonly string[] = [];
    // Plugin packages' planning-time code runs in a thread under the call clock (decision 0093).
    const host = new PlanningThreadHost(jobId, this.options.pluginCallTimeout ?? {}, () => packageDirs);
    const planReq: PlanRequest = {
      jobId,
      jobName: req.jobName || undefined,
      file: req.configFile || '<config>',
      format: req.format === 'json' ? 'json' : req.format === 'hocon' ? 'hocon' : undefined,
      variables: req.variables,
      admit: limits && ((blocks) => admitBlocks(ns, limits, blocks)),
      // A job keeps the package versions it ran (a take-over, -r), or those of the job it restores from.
      packages: async (blocks) => {
        const resolved = await this.plugins.resolve(blocks, [jobId, ...(restoreSourceOf(req) ? [restoreSourceOf(req)!] : [])]);
        packageDirs = resolved.dirs;
        return resolved;
      },
      limits: this.options.configLimits,
      host,
    };
    const planned = await planJobText(req.configText, planReq).finally(() => host.close());
    for (const p of planned.pipelines) admitSinkTables(ns, limits, p.sinks);
    if (record) await this.plugins.markUsed(planned.packages, jobId);
    return planned;
  }

  /** The namespace of a job of this leadership ('' when none, or not known here). */
  namespaceOf(jobId: string): string {
    return this.recorders.get(jobId)?.info.namespace ?? this.planning.get(jobId)?.namespace ?? '';
  }

  /** Whether the job resumed from its own savepoint or latest checkpoint (-r). */
  startedWithSavepoint(jobId: string): boolean {
    return Boolean(this.recorders.get(jobId)?.info.restoreJobId ?? this.planning.get(jobId)?.startWithSavepoint);
  }

  /**
   * A restore (-r) or a repeated submit acts on a job that exists: only a caller that may act on
   * that job's namespace may. A job the state store no longer knows has no known namespace:
   * only an admin (or anyone, without tokens) restores it.
   */
  private async checkSubmitAccess(req: SubmitJobRequest, jobId: string, caller: Caller): Promise<void> {
    if (!caller || caller.role === 'admin') return;
    const recorded = this.recorders.get(jobId)?.info ?? (await this.deps.store.job(jobId))?.info;
    if (recorded) checkAccess(caller, req.restoreJobId ? 'SubmitJob (restore)' : 'SubmitJob', jobId, recorded.namespace ?? '');
    else if (req.restoreJobId) {
      throw new TidewayError(
        ErrorCode.PERMISSION_DENIED,
        `SubmitJob (restore) of job ${jobId} is refused: the state store no longer knows the job (its history expired), so its namespace is unknown; an admin token may restore it`,
        { jobId },
      );
    }
  }

  /**
   * A new job restored from another job's checkpoint (--restore-with-checkpoint): both ids are
   * given apart, the source job has ended, and the caller may act on the source job's
   * namespace (only an admin when the state store no longer knows it).
   */
  private async checkRestoreSource(req: SubmitJobRequest, jobId: string, caller: Caller): Promise<void> {
    const from = req.restoreWithCheckpoint;
    const bad = (message: string, code: ErrorCode = ErrorCode.CONFIG_BAD_VALUE) => new TidewayError(code, message, { jobId: from });
    if (req.restoreJobId)
      throw bad(
        `-r ${req.restoreJobId} and --restore-with-checkpoint ${from} cannot be given together: -r resumes a job under its own id, --restore-with-checkpoint starts a new job from another job's checkpoint`,
      );
    if (jobId === from)
      throw bad(
        `--restore-with-checkpoint ${from} starts a new job and needs a new job id; to resume job ${from} under its own id use -r ${from}`,
      );
    const live = this.jobs.get(from);
    const recorded = live ? undefined : await this.deps.store.job(from);
    const status = live?.status ?? recorded?.state.status;
    if (
      live
        ? !live.isEnded()
        : this.planning.has(from) || (recorded && !['FINISHED', 'FAILED', 'CANCELED', 'SAVEPOINT_DONE'].includes(status!))
    )
      throw bad(
        `--restore-with-checkpoint ${from}: job ${from} is ${status ?? 'being planned'}; a new job starts only from an ended job's checkpoint (cancel it, or stop it with a savepoint, first)`,
        ErrorCode.ILLEGAL_TRANSITION,
      );
    if (!caller || caller.role === 'admin') return;
    const info = this.recorders.get(from)?.info ?? recorded?.info;
    if (info) checkAccess(caller, 'SubmitJob (restore with checkpoint)', from, info.namespace ?? '');
    else
      throw bad(
        `SubmitJob (restore with checkpoint) from job ${from} is refused: the state store no longer knows the job (its history expired), so its namespace is unknown; an admin token may restore from it`,
        ErrorCode.PERMISSION_DENIED,
      );
  }

  private newJobMaster(planned: PlannedJob, recorder: JobRecorder, submitTime: number, restore: Map<number, RestorePoint>): JobMaster {
    const storage = this.options.checkpointStorage;
    const job = new JobMaster(
      planned,
      {
        workers: this.deps.workers,
        resources: this.deps.rm,
        storage,
        records: recorder,
        submitTime,
        epoch: () => this.deps.fence.epoch,
      },
      {
        onJobStatus: (j) => {
          this.events.emit(j.jobId, j);
          this.options.events?.jobStatus(j, this.deps.fence.epoch);
          if (!j.isEnded()) return;
          detach(recorder.end(), `recording the end of job ${j.jobId}`);
          // A finished job's checkpoints go; a cancelled job's stay as long as its history; a
          // failed job's and a savepoint stay (restored with -r, or as a new job).
          this.retention.ended(j.jobId, j.status, j.finishTime);
        },
        onCheckpoint: (j, pipelineId, record) => this.options.events?.checkpoint(j, this.deps.fence.epoch, pipelineId, record),
        onFailover: (j, failover) => this.options.events?.failover(j, this.deps.fence.epoch, failover),
        onSchemaChange: (j, pipelineId, change) => this.options.events?.schemaChange(j, this.deps.fence.epoch, pipelineId, change),
        onPipelineEnded: (j, slotIds) => {
          if (slotIds.length === 0) return;
          this.deps.rm
            .release(j.jobId, slotIds)
            .catch((err: unknown) => log.warn({ err: (err as Error).message, jobId: j.jobId }, 'could not release slots'))
            .finally(() => this.scheduler.kick());
        },
      },
      pipelineSettings(planned, this.options.checkpoint, this.options.pluginCallTimeout),
      restore,
    );
    recorder.attach(job);
    return job;
  }

  private register(job: JobMaster, recorder: JobRecorder): void {
    this.jobs.set(job.jobId, job);
    this.recorders.set(job.jobId, recorder);
    this.rates.set(job.jobId, new RateTracker());
  }

  /**
   * Submits a job: planned (parsed, validated, schemas read) first, so a bad config changes
   * nothing; then recorded in the state store, then queued. A submit repeated with the same id
   * and config (a client retrying across a fail-over) answers with the job already there.
   */
  submit(req: SubmitJobRequest, caller?: Caller): Promise<JobMaster> {
    const jobId = req.restoreJobId || req.jobId || newJobId();
    // Everything the job's submit starts (planning, recording, its run) logs under its id.
    return runForJob(jobId, () => this.submitAs(jobId, req, caller));
  }

  private async submitAs(jobId: string, req: SubmitJobRequest, caller?: Caller): Promise<JobMaster> {
    // The plugin store's folder in checkpoint storage (plugin-packages/) is no job's.
    if (jobId === 'plugin-packages')
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        "--set-job-id plugin-packages: that is the plugin store's folder in checkpoint storage; choose another job id",
        { jobId },
      );
    const namespace = namespaceOf(caller);
    await this.checkSubmitAccess(req, jobId, caller);
    if (req.restoreWithCheckpoint) await this.checkRestoreSource(req, jobId, caller);
    const existing = this.jobs.get(jobId);
    if (!existing && !req.restoreJobId) {
      // A job id from an earlier leader's history is not reused (a restore -r reuses it on purpose).
      const recorded = await this.deps.store.job(jobId);
      if (recorded)
        throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (${recorded.state.status})`, { jobId });
    }
    // Checked again after the await above: another submit of the id may have come in meanwhile.
    const current = this.jobs.get(jobId);
    if (current && this.recorders.get(jobId)?.info.configText === req.configText && !current.isEnded()) return current;
    if (current && !(req.restoreJobId && current.isEnded())) {
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (${current.status})`, { jobId });
    }
    if (this.planning.has(jobId))
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (being planned)`, { jobId });
    // Planning may take long (sources read schemas from their systems): the job can be seen
    // and cancelled meanwhile.
    const init: PlanningJob = {
      jobName: req.jobName,
      submitTimeMs: Date.now(),
      cancelRequested: false,
      namespace,
      startWithSavepoint: Boolean(req.restoreJobId),
    };
    this.planning.set(jobId, init);
    let planned: PlannedJob;
    let restore: Map<number, RestorePoint>;
    let recorder: JobRecorder;
    try {
      planned = await this.plan(req, jobId, caller);
      const from = restoreSourceOf(req);
      // A restore at other parallelisms is refused here, naming the plugin, when one cannot change.
      restore = from ? fitRestorePoints(await this.restorePoints(from), planned, from) : new Map<number, RestorePoint>();
      const info: StoredJobInfo = {
        jobId,
        jobName: planned.jobName,
        configText: req.configText,
        configFile: req.configFile,
        format: req.format,
        variables: { ...req.variables },
        restoreJobId: req.restoreJobId,
        ...(req.restoreWithCheckpoint ? { restoreWithCheckpoint: req.restoreWithCheckpoint } : {}),
        namespace,
        submitTimeMs: init.submitTimeMs,
        // The DAG as shown (SeaTunnel's jobDag), kept for the job's history after a fail-over.
        planJson: JSON.stringify(jobDagInfo(planned)),
      };
      recorder = new JobRecorder(this.deps.store, this.deps.fence, info, this.options.historyExpireMs);
      await recorder.submit();
    } finally {
      this.planning.delete(jobId);
    }
    const job = this.newJobMaster(planned, recorder, init.submitTimeMs, restore);
    this.register(job, recorder);
    if (init.cancelRequested) {
      // Cancelled while it was being planned: it ends CANCELED without asking for a slot.
      job.cancel();
      log.info({ jobId, jobName: planned.jobName }, 'job cancelled while it was being planned');
      return job;
    }
    this.scheduler.submit(job);
    // The job's config, in its log: decrypted (env.shade.identifier) and every secret masked.
    log.info({ jobId, jobName: planned.jobName, config: shownConfig(planned.config) }, 'job submitted');
    return job;
  }

  pendingCount(): number {
    return this.scheduler.pendingCount();
  }
}

/** A job's checkpoint and restart settings: its env over the engine's defaults. */
function pipelineSettings(job: PlannedJob, d: DispatcherOptions['checkpoint'], pluginCallTimeout?: CallLimits): PipelineSettings {
  const env = job.env;
  // SeaTunnel: STREAMING jobs checkpoint by default; BATCH jobs only when the env sets an interval.
  const intervalMs = env.checkpointInterval ?? (job.jobMode === 'STREAMING' ? d.intervalMs : 0);
  // and, as SeaTunnel, checkpoint.timeout applies only then: a BATCH job without an interval
  // (checkpointing off) never aborts its final checkpoint for taking long
  const enabled = job.jobMode === 'STREAMING' || env.checkpointInterval !== undefined;
  return {
    checkpoint: {
      intervalMs,
      timeoutMs: env.checkpointTimeout ?? d.timeoutMs,
      minPauseMs: d.minPauseMs,
      expires: enabled,
      historySize: d.historySize,
    },
    retryTimes: env.jobRetryTimes,
    retryIntervalMs: env.jobRetryIntervalSeconds * 1000,
    ...(pluginCallTimeout ? { pluginCallTimeout } : {}),
  };
}

/** A stored job's submit request, for planning it again on a take-over. */
function requestOf(info: StoredJobInfo): SubmitJobRequest {
  return {
    configText: info.configText,
    configFile: info.configFile,
    format: info.format,
    variables: info.variables,
    jobName: info.jobName,
    jobId: info.jobId,
    restoreJobId: '',
    restoreWithCheckpoint: '',
  };
}
