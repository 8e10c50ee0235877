import { EventEmitter } from 'node:events';
import type * as grpc from '@grpc/grpc-js';
import {
  CoordinatorServiceService,
  type Ack,
  type AcknowledgeCheckpointRequest,
  type ReportMetricsRequest,
  type ReportTaskGroupsRequest,
  type ReportTaskStateRequest,
  type RequestSplitsRequest,
  type RequestSplitsResponse,
  type SlotProfile,
  type SubmitJobRequest,
  type WorkerLostRequest,
} from '@tideway/contracts';
import { ErrorCode, TidewayError, logger, newJobId, serializeError } from '@tideway/common';
import { JobServiceService, TokenServiceService } from '@tideway/contracts';
import type { ConfigLimits, NamespaceLimits } from '@tideway/config';
import { TidewayServer, unaryHandler, required, useStoredTokens } from '@tideway/rpc';
import { planJobText, type PlanRequest } from '@tideway/planner';
import {
  MemoryStateStore,
  SoleLeaderElection,
  type LeaderElection,
  type StateStore,
  type StoredJob,
  type StoredJobInfo,
  type TokenStore,
} from '@tideway/cluster';
import { commitInfosCodec, reportedStateFromWire, sourceEventCodec, splitCodec, taskGroupStateCodec } from '@tideway/runtime';
import type { CheckpointStorage } from '@tideway/checkpoint';
import type { PipelineSettings } from './pipeline-master.js';
import { restorePointOf, type RestorePoint } from './checkpoint-records.js';
import { JobMaster } from './job-master.js';
import { JobRecorder } from './job-recorder.js';
import { jobServiceHandlers } from './job-service.js';
import { jobDagInfo } from './job-dag-info.js';
import type { PlanningJob } from './job-info.js';
import { rateCounters } from './job-info.js';
import { Leadership } from './leadership.js';
import { RateTracker } from './rate-tracker.js';
import { RemoteResourceManager, RemoteWorkers } from './remote-gateways.js';
import { Scheduler, type JobScheduleStrategy } from './scheduler.js';
import { reconcileWorkers, reusableSlots } from './take-over.js';
import { checkAccess, namespaceOf, type Caller } from './namespace-access.js';
import { admitBlocks, admitSinkTables, checkAllowedPlugins } from './namespace-limits.js';
import { storedTokenEntries, tokenServiceHandlers } from './token-service.js';

const log = logger('coordinator');
const OK: Ack = { ok: true, error: undefined };
/** How often the leader hands the resource manager the list of slots its jobs hold. */
const SLOT_SYNC_INTERVAL_MS = 30_000;
/** Ended jobs stay in memory this long (for watchers); their history lives in the state store. */
const ENDED_IN_MEMORY_MS = 60_000;

export interface CoordinatorOptions {
  host: string;
  port: number;
  /** The address others reach this coordinator at (default host:port). */
  advertisedAddress?: string;
  resourceManagerAddress: string;
  jobScheduleStrategy: JobScheduleStrategy;
  /** Ended jobs stay listed this long (history-job-expire-minutes). */
  historyExpireMs: number;
  /** Engine-level checkpoint defaults (seatunnel.engine.checkpoint). */
  checkpoint: { intervalMs: number; timeoutMs: number; minPauseMs: number };
  /** Where completed checkpoints and savepoints go (local directory or S3). */
  checkpointStorage: CheckpointStorage;
  /** The coordinators' shared state (default: in memory, for a single coordinator). */
  store?: StateStore;
  /**
   * Leader election (default: this coordinator is the sole leader). `epochFloor` is the highest
   * epoch others refused this coordinator with: the next claim must be higher.
   */
  election?: (address: string, store: StateStore, epochFloor: () => number) => LeaderElection;
  /** How often running jobs' counters are written to the store (job-metrics-backup-interval). */
  metricsBackupIntervalMs?: number;
  /** What the jobs of each namespace may touch (tideway.auth.namespaces), checked at submit and plan. */
  namespaces?: Readonly<Record<string, NamespaceLimits>>;
  /**
   * Where TokenService keeps the tokens it adds (the Redis state store); without one it refuses
   * to add any (a token in memory would be lost at the restart).
   */
  tokenStore?: TokenStore;
  /** Size and nesting limits of submitted job configs (tideway.limits; default their defaults). */
  configLimits?: ConfigLimits;
}

/**
 * The coordinator process: JobService for clients, CoordinatorService for workers and the
 * resource manager. Every coordinator serves both; only the leader acts (a follower answers
 * UNAVAILABLE with the leader's address). The leader runs a JobMaster per job, the Scheduler
 * and its pending queue, and records every job in the state store, so that a new leader can
 * take every job over.
 */
export class CoordinatorServer {
  private readonly server = new TidewayServer();
  /** Jobs of this leadership: running ones, and ended ones for a minute. */
  readonly jobs = new Map<string, JobMaster>();
  readonly recorders = new Map<string, JobRecorder>();
  /** Jobs submitted and still being planned (no JobMaster yet), by id. */
  readonly planning = new Map<string, PlanningJob>();
  readonly rates = new Map<string, RateTracker>();
  /** Job changes, by job id (watchers listen). */
  readonly events = new EventEmitter();
  /** 'step-down' when this coordinator stops leading (open watches end with a redirect). */
  readonly leadership = new EventEmitter();
  readonly store: StateStore;
  readonly fence: Leadership;
  readonly rm: RemoteResourceManager;
  readonly workers: RemoteWorkers;
  private scheduler: Scheduler;
  private election?: LeaderElection;
  private ticker?: NodeJS.Timeout;
  private lastMetricsBackup = 0;
  private lastSlotSync = 0;
  /** The epoch this coordinator took the lease with; 0 while following. */
  private leadingEpoch = 0;
  /** The take-over in progress: client calls wait for it. */
  private takingOver?: Promise<void>;
  private stopped = false;
  /** Workers the resource manager reported lost since the start (a Prometheus counter). */
  workersLost = 0;
  port = 0;

  constructor(private readonly options: CoordinatorOptions) {
    checkAllowedPlugins(options.namespaces ?? {});
    this.store = options.store ?? new MemoryStateStore();
    this.fence = new Leadership(
      '',
      () => this.election?.leading ?? false,
      (reason) => void this.stepDown(reason, true),
    );
    this.rm = new RemoteResourceManager(options.resourceManagerAddress, this.fence);
    this.workers = new RemoteWorkers(this.fence, (address) => this.suspectWorker(address));
    this.scheduler = new Scheduler(this.rm, options.jobScheduleStrategy);
    this.events.setMaxListeners(0);
  }

  get address(): string {
    return this.options.advertisedAddress ?? `${this.options.host}:${this.port}`;
  }

  get leading(): boolean {
    return this.fence.leading;
  }

  get epoch(): number {
    return this.fence.epoch;
  }

  /**
   * Listens, then contends for leadership. With `waitForLeadership` (a sole coordinator) it
   * resolves once this coordinator leads and has taken the recorded jobs over.
   */
  async start(opts: { waitForLeadership?: boolean } = {}): Promise<string> {
    await this.store.open();
    this.server.add('tideway.v1.JobService', JobServiceService, jobServiceHandlers(this));
    this.server.add('tideway.v1.TokenService', TokenServiceService, tokenServiceHandlers(this.options.tokenStore));
    const tokens = this.options.tokenStore;
    // This process (its JobService, TokenService and REST API) accepts the state store's tokens too.
    if (tokens) useStoredTokens(() => storedTokenEntries(tokens));
    this.server.add('tideway.v1.CoordinatorService', CoordinatorServiceService, this.coordinatorService());
    this.port = await this.server.listen(this.options.host, this.options.port);
    this.fence.address = this.address;
    let elected!: () => void;
    const firstLead = new Promise<void>((r) => (elected = r));
    this.contend(async (epoch) => {
      await this.lead(epoch);
      elected();
    });
    this.ticker = setInterval(() => void this.tick(), 1000);
    this.ticker.unref();
    void this.tick();
    log.info({ address: this.address, election: this.election?.description }, 'coordinator listening');
    if (opts.waitForLeadership) await firstLead;
    return this.address;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    this.scheduler.stop();
    for (const j of this.jobs.values()) for (const p of j.pipelines) p.checkpoints.stop();
    await this.election?.stop();
    await this.options.checkpointStorage.close();
    this.rm.close();
    this.workers.close();
    await this.server.close(500);
    await this.store.close();
  }

  /** Waits for a take-over in progress; throws NotLeader unless this coordinator leads. */
  async ready(): Promise<void> {
    if (this.takingOver) await this.takingOver.catch(() => undefined);
    this.fence.check();
  }

  /** This coordinator now holds the lease with `epoch`: it takes every recorded job over. */
  private async lead(epoch: number): Promise<void> {
    this.fence.begin(epoch);
    this.leadingEpoch = epoch;
    this.scheduler = new Scheduler(this.rm, this.options.jobScheduleStrategy);
    log.info({ address: this.address, epoch }, 'leading the cluster');
    const run = this.takeOver(epoch);
    this.takingOver = run;
    try {
      await run;
    } catch (err) {
      log.error({ err, epoch }, 'take-over failed');
    } finally {
      if (this.takingOver === run) this.takingOver = undefined;
    }
  }

  private async takeOver(epoch: number): Promise<void> {
    const stored = (await this.store.activeJobs()).sort((a, b) => a.info.submitTimeMs - b.info.submitTimeMs);
    const snapshot = await reconcileWorkers(this.fence, this.rm, this.workers);
    for (const job of stored) {
      this.fence.check();
      await this.adopt(job, epoch, snapshot.slots);
    }
    await this.syncSlots();
    this.lastSlotSync = Date.now();
    if (stored.length > 0) log.info({ epoch, jobs: stored.length }, 'take-over done');
  }

  /** Slots granted to jobs this leader does not run (they ended, or were never recorded) go back. */
  private async syncSlots(): Promise<void> {
    const held = [...this.jobs.values()].flatMap((j) => j.pipelines.flatMap((p) => p.slotIds()));
    await this.rm.syncSlots(held).catch((err: unknown) => log.debug({ err: (err as Error).message }, 'could not sync the slot table'));
  }

  /** Takes one recorded job over: re-planned from its config, then resumed or queued again. */
  private async adopt(stored: StoredJob, epoch: number, slots: Map<string, SlotProfile>): Promise<void> {
    const { info, state } = stored;
    const recorder = new JobRecorder(this.store, this.fence, info, this.options.historyExpireMs, stored.checkpoints);
    let job: JobMaster;
    try {
      const planned = await this.plan(requestOf(info), info.jobId);
      job = this.newJobMaster(planned, recorder, info.submitTimeMs, new Map());
    } catch (err) {
      const e = serializeError(err);
      log.warn({ jobId: info.jobId, err: e.message }, 'take-over: the job could not be planned again; it fails');
      const failed = {
        ...state,
        status: 'FAILED',
        finishTimeMs: Date.now(),
        error: { ...e, message: `taken over by a new leader but could not be planned again: ${e.message}` },
      };
      await this.fence.run((ep) => this.store.endJob(ep, info.jobId, failed, this.options.historyExpireMs)).catch(() => undefined);
      // Its task groups were cancelled with the others; its slots go back now.
      await this.rm
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
    await job.resume(state, epoch, (p) => reusableSlots(stored, p.pipelineId, slots));
    log.info({ jobId: info.jobId, status: job.status }, 'take-over: job resumed');
  }

  /** The leadership is gone: stop acting at once and forget the jobs (the next leader resumes them). */
  private async stepDown(reason: string, resign: boolean): Promise<void> {
    const wasLeading = this.leadingEpoch > 0;
    this.leadingEpoch = 0;
    this.fence.end();
    this.scheduler.stop();
    for (const j of this.jobs.values()) for (const p of j.pipelines) p.checkpoints.stop();
    this.jobs.clear();
    this.recorders.clear();
    this.planning.clear();
    this.rates.clear();
    this.leadership.emit('step-down');
    if (wasLeading && !this.stopped) log.warn({ address: this.address, reason }, 'following: this coordinator stopped leading');
    if (resign && !this.stopped && this.election) {
      // Our epoch is stale although the lease may still look held: give it up and contend
      // again, with a new election (a stopped one has closed its connections).
      await this.election.stop();
      if (!this.stopped) this.contend((epoch) => this.lead(epoch));
    }
  }

  /** Starts contending for leadership with a new election. */
  private contend(onElected: (epoch: number) => Promise<void>): void {
    const make = this.options.election ?? ((address, store) => new SoleLeaderElection(store, address));
    this.election = make(this.address, this.store, () => this.fence.highestSeenEpoch);
    this.election.start({ onElected, onLost: (reason) => void this.stepDown(reason, false) });
  }

  /** Workers suspected dead lately, by address (one probe per address every few seconds). */
  private readonly suspected = new Map<string, number>();

  /**
   * A worker refused a connection: the resource manager probes it now (instead of waiting for
   * missed heartbeats) and, when it is gone, declares it lost, which fails its pipelines over.
   */
  private suspectWorker(address: string): void {
    const now = Date.now();
    if ((this.suspected.get(address) ?? 0) > now - 2000 || !this.fence.leading) return;
    this.suspected.set(address, now);
    void this.rm.probe(address).then(
      (r) => r.lost && log.warn({ worker: address, reason: r.reason }, 'a worker refusing connections was declared lost'),
      () => undefined,
    );
  }

  /** Samples rates, forgets ended jobs, backs metrics up, and says this coordinator is alive. */
  private async tick(): Promise<void> {
    const now = Date.now();
    await this.store.announceCoordinator(this.address, 5000).catch(() => undefined);
    if (!this.fence.leading) {
      const leader = await this.store.leader().catch(() => undefined);
      this.fence.knownLeader = leader?.address ?? '';
      return;
    }
    const backup = now - this.lastMetricsBackup >= (this.options.metricsBackupIntervalMs ?? 10_000);
    if (backup) this.lastMetricsBackup = now;
    if (now - this.lastSlotSync >= SLOT_SYNC_INTERVAL_MS && !this.takingOver) {
      this.lastSlotSync = now;
      void this.syncSlots();
    }
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

  private pipelineSettings(job: JobMaster['job']): PipelineSettings {
    const env = job.env;
    const d = this.options.checkpoint;
    // SeaTunnel: STREAMING jobs checkpoint by default; BATCH jobs only when the env sets an interval.
    const intervalMs = env.checkpointInterval ?? (job.jobMode === 'STREAMING' ? d.intervalMs : 0);
    // and, as SeaTunnel, checkpoint.timeout applies only then: a BATCH job without an interval
    // (checkpointing off) never aborts its final checkpoint for taking long
    const enabled = job.jobMode === 'STREAMING' || env.checkpointInterval !== undefined;
    return {
      checkpoint: { intervalMs, timeoutMs: env.checkpointTimeout ?? d.timeoutMs, minPauseMs: d.minPauseMs, expires: enabled },
      retryTimes: env.jobRetryTimes,
      retryIntervalMs: env.jobRetryIntervalSeconds * 1000,
    };
  }

  /**
   * The latest checkpoint or savepoint of each pipeline of a job being restored (-r): the
   * pointers the state store recorded when it knows the job, the storage's own otherwise.
   */
  private async restorePoints(jobId: string): Promise<Map<number, RestorePoint>> {
    const storage = this.options.checkpointStorage;
    const recorded = (await this.store.job(jobId))?.checkpoints ?? {};
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
   */
  async plan(req: SubmitJobRequest, jobId: string, caller?: Caller) {
    const ns = namespaceOf(caller);
    const limits = ns ? this.options.namespaces?.[ns] : undefined;
    const planReq: PlanRequest = {
      jobId,
      jobName: req.jobName || undefined,
      file: req.configFile || '<config>',
      format: req.format === 'json' ? 'json' : req.format === 'hocon' ? 'hocon' : undefined,
      variables: req.variables,
      admit: limits && ((blocks) => admitBlocks(ns, limits, blocks)),
      limits: this.options.configLimits,
    };
    const planned = await planJobText(req.configText, planReq);
    for (const p of planned.pipelines) admitSinkTables(ns, limits, p.sinks);
    return planned;
  }

  /** The namespace of a job of this leadership ('' when none, or not known here). */
  namespaceOf(jobId: string): string {
    return this.recorders.get(jobId)?.info.namespace ?? this.planning.get(jobId)?.namespace ?? '';
  }

  /**
   * A restore (-r) or a repeated submit acts on a job that exists: only a caller that may act on
   * that job's namespace may. A job the state store no longer knows has no known namespace:
   * only an admin (or anyone, without tokens) restores it.
   */
  private async checkSubmitAccess(req: SubmitJobRequest, jobId: string, caller: Caller): Promise<void> {
    if (!caller || caller.role === 'admin') return;
    const recorded = this.recorders.get(jobId)?.info ?? (await this.store.job(jobId))?.info;
    if (recorded) checkAccess(caller, req.restoreJobId ? 'SubmitJob (restore)' : 'SubmitJob', jobId, recorded.namespace ?? '');
    else if (req.restoreJobId) {
      throw new TidewayError(
        ErrorCode.PERMISSION_DENIED,
        `SubmitJob (restore) of job ${jobId} is refused: the state store no longer knows the job (its history expired), so its namespace is unknown; an admin token may restore it`,
        { jobId },
      );
    }
  }

  private newJobMaster(
    planned: Awaited<ReturnType<CoordinatorServer['plan']>>,
    recorder: JobRecorder,
    submitTime: number,
    restore: Map<number, RestorePoint>,
  ): JobMaster {
    const job = new JobMaster(
      planned,
      {
        workers: this.workers,
        resources: this.rm,
        storage: this.options.checkpointStorage,
        records: recorder,
        submitTime,
        epoch: () => this.fence.epoch,
      },
      {
        onJobStatus: (j) => {
          this.events.emit(j.jobId, j);
          if (!j.isEnded()) return;
          void recorder.end();
          // As in SeaTunnel: a cancelled or finished job's checkpoints go; a failed job keeps
          // them (it can be restored with -r), and so does a savepoint.
          if (j.status === 'CANCELED' || j.status === 'FINISHED') {
            this.options.checkpointStorage
              .deleteJob(j.jobId)
              .catch((err: unknown) => log.warn({ err, jobId: j.jobId }, 'could not delete checkpoints'));
          }
        },
        onPipelineEnded: (j, slotIds) => {
          if (slotIds.length === 0) return;
          this.rm
            .release(j.jobId, slotIds)
            .catch((err: unknown) => log.warn({ err: (err as Error).message, jobId: j.jobId }, 'could not release slots'))
            .finally(() => this.scheduler.kick());
        },
      },
      this.pipelineSettings(planned),
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
  async submit(req: SubmitJobRequest, caller?: Caller): Promise<JobMaster> {
    const jobId = req.restoreJobId || req.jobId || newJobId();
    const namespace = namespaceOf(caller);
    await this.checkSubmitAccess(req, jobId, caller);
    const existing = this.jobs.get(jobId);
    if (!existing && !req.restoreJobId) {
      // A job id from an earlier leader's history is not reused (a restore -r reuses it on purpose).
      const recorded = await this.store.job(jobId);
      if (recorded)
        throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (${recorded.state.status})`, { jobId });
    }
    if (existing && this.recorders.get(jobId)?.info.configText === req.configText && !existing.isEnded()) return existing;
    if (existing && !(req.restoreJobId && existing.isEnded())) {
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (${existing.status})`, { jobId });
    }
    if (this.planning.has(jobId))
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (being planned)`, { jobId });
    // Planning may take long (sources read schemas from their systems): the job can be seen
    // and cancelled meanwhile.
    const init: PlanningJob = { jobName: req.jobName, submitTimeMs: Date.now(), cancelRequested: false, namespace };
    this.planning.set(jobId, init);
    let planned: Awaited<ReturnType<CoordinatorServer['plan']>>;
    let restore: Map<number, RestorePoint>;
    let recorder: JobRecorder;
    try {
      planned = await this.plan(req, jobId, caller);
      restore = req.restoreJobId ? await this.restorePoints(jobId) : new Map<number, RestorePoint>();
      const info: StoredJobInfo = {
        jobId,
        jobName: planned.jobName,
        configText: req.configText,
        configFile: req.configFile,
        format: req.format,
        variables: { ...req.variables },
        restoreJobId: req.restoreJobId,
        namespace,
        submitTimeMs: init.submitTimeMs,
        // The DAG as shown (SeaTunnel's jobDag), kept for the job's history after a fail-over.
        planJson: JSON.stringify(jobDagInfo(planned)),
      };
      recorder = new JobRecorder(this.store, this.fence, info, this.options.historyExpireMs);
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
    log.info({ jobId, jobName: planned.jobName }, 'job submitted');
    return job;
  }

  /** Every job known here: running ones, and ended ones for a while. */
  jobMasters(): Iterable<JobMaster> {
    return this.jobs.values();
  }

  pendingCount(): number {
    return this.scheduler.pendingCount();
  }

  /** Workers call the leader only: a follower redirects them. */
  private leaderOnly<Req>(fn: (req: Req) => Promise<Ack> | Ack): grpc.handleUnaryCall<Req, Ack> {
    return unaryHandler<Req, Ack>(async (req) => {
      this.fence.check();
      return fn(req);
    });
  }

  private coordinatorService(): grpc.UntypedServiceImplementation {
    return {
      reportTaskState: this.leaderOnly<ReportTaskStateRequest>((req) => {
        const loc = required(req.location, 'location');
        const p = this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId);
        const state = reportedStateFromWire(req.state);
        if (p && state) {
          if (req.error && p.taskGroups[loc.taskGroupIndex] && loc.attempt === p.attempt)
            p.taskGroups[loc.taskGroupIndex].error = req.error;
          p.onTaskState(loc.taskGroupIndex, loc.attempt, state, req.error);
        }
        return OK;
      }),
      acknowledgeCheckpoint: this.leaderOnly<AcknowledgeCheckpointRequest>(async (req) => {
        const loc = required(req.location, 'location');
        const p = this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId);
        if (p) {
          const state = taskGroupStateCodec.decodeOptional(req.state);
          const infos = commitInfosCodec.decodeOptional(req.commitInfos);
          await p.onAck(loc.taskGroupIndex, loc.attempt, req.checkpointId, state, infos, req.error);
        }
        return OK;
      }),
      reportMetrics: this.leaderOnly<ReportMetricsRequest>((req) => {
        const loc = required(req.location, 'location');
        this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId)?.onMetrics(loc.taskGroupIndex, loc.attempt, { tables: req.tables });
        return OK;
      }),
      requestSplits: unaryHandler<RequestSplitsRequest, RequestSplitsResponse>(async (req) => {
        this.fence.check();
        const loc = required(req.location, 'location');
        const p = this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId);
        if (!p) throw new TidewayError(ErrorCode.NOT_FOUND, `pipeline ${loc.jobId}/${loc.pipelineId} is not running`);
        const res = await p.requestSplits(
          loc.taskGroupIndex,
          loc.attempt,
          req.register,
          req.request,
          req.events.map((e) => sourceEventCodec.decode(e)),
        );
        return { splits: res.splits.map((s) => splitCodec.encode(s)), noMoreSplits: res.noMoreSplits };
      }),
      workerLost: this.leaderOnly<WorkerLostRequest>((req) => {
        if (req.address === '') throw new TidewayError(ErrorCode.BAD_REQUEST, 'WorkerLost has no worker address');
        log.warn({ worker: req.address, reason: req.reason }, 'worker lost');
        this.workersLost++;
        for (const j of this.jobs.values()) if (!j.isEnded()) j.onWorkerLost(req.address);
        return OK;
      }),
      reportTaskGroups: this.leaderOnly<ReportTaskGroupsRequest>((req) => {
        if (this.takingOver) return OK; // the take-over reconciles them itself
        for (const g of req.taskGroups) {
          const loc = required(g.location, 'location of a task group');
          const p = this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId);
          if (p && !p.isEnded() && p.attempt === loc.attempt) continue;
          // No job of this leader runs it: an orphan of an earlier leader or attempt.
          log.warn(
            {
              jobId: loc.jobId,
              pipelineId: loc.pipelineId,
              taskGroup: loc.taskGroupIndex,
              attempt: loc.attempt,
              worker: req.workerAddress,
            },
            'cancelling an orphaned task group',
          );
          void this.workers.cancel(req.workerAddress, loc, 'no job of the leader runs this task group').catch(() => undefined);
        }
        return OK;
      }),
    };
  }
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
  };
}
