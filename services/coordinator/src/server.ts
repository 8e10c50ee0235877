import { EventEmitter } from 'node:events';
import { deserialize } from 'node:v8';
import type * as grpc from '@grpc/grpc-js';
import {
  CoordinatorServiceService,
  ExecutionState as WireState,
  JobServiceService,
  type Ack,
  type AcknowledgeCheckpointRequest,
  type CancelJobRequest,
  type CancelJobResponse,
  type ClusterOverview,
  type GetJobMetricsRequest,
  type GetJobRequest,
  type JobEvent,
  type JobInfo,
  type JobMetrics,
  type ListJobsResponse,
  type PlanJobResponse,
  type ReportMetricsRequest,
  type ReportTaskStateRequest,
  type RequestSplitsRequest,
  type RequestSplitsResponse,
  type SavepointJobRequest,
  type SavepointJobResponse,
  type SubmitJobRequest,
  type SubmitJobResponse,
  type WatchJobRequest,
  type WorkerLostRequest,
} from '@tideway/contracts';
import { ErrorCode, TidewayError, logger, newJobId } from '@tideway/common';
import { TidewayServer, toServiceError, unaryHandler } from '@tideway/rpc';
import { describePlan, planJobText, type PlanRequest } from '@tideway/planner';
import type { CommitInfos, TaskGroupState } from '@tideway/runtime';
import type { ExecutionState } from '@tideway/dag';
import { serialize } from 'node:v8';
import type { CheckpointStorage } from '@tideway/checkpoint';
import type { PipelineSettings } from './pipeline-master.js';
import { restorePointOf, type RestorePoint } from './checkpoint-records.js';
import { JobMaster } from './job-master.js';
import { jobInfo, jobMetrics, planningJobInfo, rateCounters, type PlanningJob } from './job-info.js';
import { RateTracker } from './rate-tracker.js';
import { RemoteResourceManager, RemoteWorkers } from './remote-gateways.js';
import { Scheduler, type JobScheduleStrategy } from './scheduler.js';

const log = logger('coordinator');
const OK: Ack = { ok: true, error: undefined };

export interface CoordinatorOptions {
  host: string;
  port: number;
  resourceManagerAddress: string;
  jobScheduleStrategy: JobScheduleStrategy;
  /** Ended jobs stay listed this long (history-job-expire-minutes). */
  historyExpireMs: number;
  /** Engine-level checkpoint defaults (seatunnel.engine.checkpoint). */
  checkpoint: { intervalMs: number; timeoutMs: number; minPauseMs: number };
  /** Where completed checkpoints and savepoints go (local directory or S3). */
  checkpointStorage: CheckpointStorage;
  /** Leader epoch sent with every RPC (1 for a single coordinator). */
  epoch?: () => number;
}

const WIRE_TO_EXEC: Partial<Record<WireState, ExecutionState | 'PREPARE_CLOSE'>> = {
  [WireState.EXEC_RUNNING]: 'RUNNING',
  [WireState.PREPARE_CLOSE]: 'PREPARE_CLOSE',
  [WireState.EXEC_FINISHED]: 'FINISHED',
  [WireState.EXEC_FAILED]: 'FAILED',
  [WireState.EXEC_CANCELED]: 'CANCELED',
};

/**
 * The coordinator process: JobService for clients, CoordinatorService for workers and the
 * resource manager, a JobMaster per job, the Scheduler and its pending queue.
 */
export class CoordinatorServer {
  private readonly server = new TidewayServer();
  private readonly jobs = new Map<string, JobMaster>();
  /** Jobs submitted and still being planned (no JobMaster yet), by id. */
  private readonly planning = new Map<string, PlanningJob>();
  private readonly rates = new Map<string, RateTracker>();
  private readonly events = new EventEmitter();
  readonly rm: RemoteResourceManager;
  private readonly workers: RemoteWorkers;
  private readonly scheduler: Scheduler;
  private ticker?: NodeJS.Timeout;
  /** Workers the resource manager reported lost since the start (a Prometheus counter). */
  workersLost = 0;
  port = 0;

  constructor(private readonly options: CoordinatorOptions) {
    const epoch = options.epoch ?? (() => 1);
    this.rm = new RemoteResourceManager(options.resourceManagerAddress, epoch);
    this.workers = new RemoteWorkers(epoch);
    this.scheduler = new Scheduler(this.rm, options.jobScheduleStrategy);
    this.events.setMaxListeners(0);
  }

  get address(): string {
    return `${this.options.host}:${this.port}`;
  }

  async start(): Promise<string> {
    this.server.add('tideway.v1.JobService', JobServiceService, this.jobService());
    this.server.add('tideway.v1.CoordinatorService', CoordinatorServiceService, this.coordinatorService());
    this.port = await this.server.listen(this.options.host, this.options.port);
    this.ticker = setInterval(() => this.tick(), 1000);
    this.ticker.unref();
    log.info({ address: this.address }, 'coordinator listening');
    return this.address;
  }

  async stop(): Promise<void> {
    if (this.ticker) clearInterval(this.ticker);
    this.scheduler.stop();
    for (const j of this.jobs.values()) for (const p of j.pipelines) p.checkpoints.stop();
    await this.options.checkpointStorage.close();
    this.rm.close();
    this.workers.close();
    await this.server.close(500);
  }

  /** Samples rates and forgets ended jobs older than the history expiry. */
  private tick(): void {
    const now = Date.now();
    for (const [id, job] of this.jobs) {
      if (!job.isEnded()) {
        this.rates.get(id)?.sample(rateCounters(job), now);
      } else if (now - job.finishTime > this.options.historyExpireMs) {
        this.jobs.delete(id);
        this.rates.delete(id);
      }
    }
  }

  /** Every job known here: running ones, and ended ones until their history expires. */
  jobMasters(): Iterable<JobMaster> {
    return this.jobs.values();
  }

  private job(jobId: string): JobMaster {
    const j = this.jobs.get(jobId);
    if (!j) throw new TidewayError(ErrorCode.NOT_FOUND, `job ${jobId} does not exist (or its history expired)`, { jobId });
    return j;
  }

  private pipelineSettings(job: JobMaster['job']): PipelineSettings {
    const env = job.env;
    const d = this.options.checkpoint;
    // SeaTunnel: STREAMING jobs checkpoint by default; BATCH jobs only when the env sets an interval.
    const intervalMs = env.checkpointInterval ?? (job.jobMode === 'STREAMING' ? d.intervalMs : 0);
    return {
      checkpoint: { intervalMs, timeoutMs: env.checkpointTimeout ?? d.timeoutMs, minPauseMs: d.minPauseMs },
      retryTimes: env.jobRetryTimes,
      retryIntervalMs: env.jobRetryIntervalSeconds * 1000,
    };
  }

  /** The latest checkpoint or savepoint of each pipeline of a job being restored (-r). */
  private async restorePoints(jobId: string): Promise<Map<number, RestorePoint>> {
    const storage = this.options.checkpointStorage;
    const refs = await storage.listCheckpoints(jobId);
    const pipelines = [...new Set(refs.map((r) => r.pipelineId))];
    const points = new Map<number, RestorePoint>();
    for (const pid of pipelines) {
      const latest = await storage.readLatest(jobId, pid);
      if (!latest) continue;
      if (latest.warning) log.warn({ jobId, pipelineId: pid }, latest.warning);
      points.set(pid, restorePointOf(latest.checkpoint));
    }
    if (points.size === 0) {
      throw new TidewayError(ErrorCode.NOT_FOUND, `job ${jobId} has no checkpoint or savepoint to restore from in ${storage.description}`, { jobId });
    }
    return points;
  }

  plan(req: SubmitJobRequest, jobId: string) {
    const planReq: PlanRequest = {
      jobId,
      jobName: req.jobName || undefined,
      file: req.configFile || '<config>',
      format: req.format === 'json' ? 'json' : req.format === 'hocon' ? 'hocon' : undefined,
      variables: req.variables,
    };
    return planJobText(req.configText, planReq);
  }

  async submit(req: SubmitJobRequest): Promise<JobMaster> {
    const jobId = req.restoreJobId || req.jobId || newJobId();
    const existing = this.jobs.get(jobId);
    if (existing && !(req.restoreJobId && existing.isEnded())) {
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (${existing.status})`, { jobId });
    }
    if (this.planning.has(jobId)) throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${jobId} is already in use (being planned)`, { jobId });
    // Planning may take long (sources read schemas from their systems): the job can be seen
    // and cancelled meanwhile.
    const init: PlanningJob = { jobName: req.jobName, submitTimeMs: Date.now(), cancelRequested: false };
    this.planning.set(jobId, init);
    let planned: Awaited<ReturnType<CoordinatorServer['plan']>>;
    let restore: Map<number, RestorePoint>;
    try {
      planned = await this.plan(req, jobId);
      restore = req.restoreJobId ? await this.restorePoints(jobId) : new Map<number, RestorePoint>();
    } finally {
      this.planning.delete(jobId);
    }
    const job = new JobMaster(
      planned,
      { workers: this.workers, resources: this.rm, storage: this.options.checkpointStorage },
      {
        onJobStatus: (j) => {
          this.events.emit(j.jobId, j);
          // As in SeaTunnel: a cancelled or finished job's checkpoints go; a failed job keeps
          // them (it can be restored with -r), and so does a savepoint.
          if (j.status === 'CANCELED' || j.status === 'FINISHED') {
            this.options.checkpointStorage.deleteJob(j.jobId).catch((err: unknown) => log.warn({ err, jobId: j.jobId }, 'could not delete checkpoints'));
          }
        },
        onPipelineEnded: (j, slotIds) => {
          if (slotIds.length === 0) return;
          this.rm
            .release(j.jobId, slotIds)
            .catch((err: unknown) => log.warn({ err, jobId: j.jobId }, 'could not release slots'))
            .finally(() => this.scheduler.kick());
        },
      },
      this.pipelineSettings(planned),
      restore,
    );
    this.jobs.set(jobId, job);
    this.rates.set(jobId, new RateTracker());
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

  private waitEnded(job: JobMaster, timeoutMs: number): Promise<void> {
    if (job.isEnded()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        if (!job.isEnded()) return;
        clearTimeout(timer);
        this.events.off(job.jobId, done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.events.off(job.jobId, done);
        resolve();
      }, timeoutMs);
      this.events.on(job.jobId, done);
    });
  }

  private jobService(): grpc.UntypedServiceImplementation {
    return {
      submitJob: unaryHandler<SubmitJobRequest, SubmitJobResponse>(async (req) => {
        const job = await this.submit(req);
        return { jobId: job.jobId, job: jobInfo(job) };
      }),
      planJob: unaryHandler<SubmitJobRequest, PlanJobResponse>(async (req) => describePlan(await this.plan(req, req.jobId || 'plan'))),
      getJob: unaryHandler<GetJobRequest, JobInfo>((req) => {
        const init = this.planning.get(req.jobId);
        return init ? planningJobInfo(req.jobId, init) : jobInfo(this.job(req.jobId));
      }),
      listJobs: unaryHandler<object, ListJobsResponse>(() => ({
        jobs: [...[...this.planning].map(([id, init]) => planningJobInfo(id, init)), ...[...this.jobs.values()].map(jobInfo)],
      })),
      cancelJob: unaryHandler<CancelJobRequest, CancelJobResponse>((req) => {
        const init = this.planning.get(req.jobId);
        if (init) {
          init.cancelRequested = true;
          return { job: planningJobInfo(req.jobId, init) };
        }
        const job = this.job(req.jobId);
        job.cancel();
        return { job: jobInfo(job) };
      }),
      savepointJob: unaryHandler<SavepointJobRequest, SavepointJobResponse>(async (req) => {
        const job = this.job(req.jobId);
        const ids = await job.savepoint();
        // The task groups stop after the savepoint completed; answer once the job has ended.
        await this.waitEnded(job, 60_000);
        return { job: jobInfo(job), checkpointId: Math.max(0, ...ids) };
      }),
      getJobMetrics: unaryHandler<GetJobMetricsRequest, JobMetrics>((req) => jobMetrics(this.job(req.jobId), this.rates.get(req.jobId))),
      getClusterOverview: unaryHandler<object, ClusterOverview>(async () => {
        const { workers } = await this.rm.listWorkers();
        const jobs = [...this.jobs.values()];
        const count = (s: string) => jobs.filter((j) => j.status === s).length;
        const totalSlots = workers.reduce((n, w) => n + (w.dynamicSlot ? 0 : w.slotNum), 0);
        const used = workers.reduce((n, w) => n + w.assignedSlots.length, 0);
        return {
          workers: workers.map((w) => ({
            workerId: w.workerId,
            address: w.address,
            attributes: w.attributes,
            totalSlots: w.dynamicSlot ? 0 : w.slotNum,
            freeSlots: w.dynamicSlot ? 0 : Math.max(0, w.slotNum - w.assignedSlots.length),
            cpuCores: w.cpuCores,
            memoryMb: w.memoryMb,
            systemLoad: w.systemLoad,
            lastHeartbeatMs: 0,
          })),
          totalSlots,
          freeSlots: Math.max(0, totalSlots - used),
          runningJobs: count('RUNNING'),
          pendingJobs: count('PENDING'),
          finishedJobs: count('FINISHED'),
          failedJobs: count('FAILED'),
          canceledJobs: count('CANCELED'),
          leaderAddress: this.address,
        };
      }),
      watchJob: (call: grpc.ServerWritableStream<WatchJobRequest, JobEvent>) => this.watch(call),
    };
  }

  private watch(call: grpc.ServerWritableStream<WatchJobRequest, JobEvent>): void {
    const jobId = call.request.jobId;
    let job: JobMaster;
    try {
      job = this.job(jobId);
    } catch (err) {
      call.destroy(Object.assign(new Error((err as Error).message), toServiceError(err)));
      return;
    }
    const interval = call.request.intervalMs || 1000;
    let closed = false;
    const send = () => {
      if (closed) return;
      call.write({ job: jobInfo(job), metrics: jobMetrics(job, this.rates.get(jobId)) });
      if (job.isEnded()) finish();
    };
    const onChange = () => send();
    const timer = setInterval(send, interval);
    const finish = () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      this.events.off(jobId, onChange);
      call.end();
    };
    this.events.on(jobId, onChange);
    call.on('cancelled', finish);
    call.on('error', finish);
    send();
  }

  private coordinatorService(): grpc.UntypedServiceImplementation {
    return {
      reportTaskState: unaryHandler<ReportTaskStateRequest, Ack>((req) => {
        const loc = req.location!;
        const p = this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId);
        const state = WIRE_TO_EXEC[req.state];
        if (p && state) {
          if (req.error && p.taskGroups[loc.taskGroupIndex]) p.taskGroups[loc.taskGroupIndex]!.error = req.error;
          p.onTaskState(loc.taskGroupIndex, loc.attempt, state, req.error);
        }
        return OK;
      }),
      acknowledgeCheckpoint: unaryHandler<AcknowledgeCheckpointRequest, Ack>(async (req) => {
        const loc = req.location!;
        const p = this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId);
        if (p) {
          const state = req.state.length > 0 ? (deserialize(req.state) as TaskGroupState) : undefined;
          const infos = req.commitInfos.length > 0 ? (deserialize(req.commitInfos) as CommitInfos) : undefined;
          await p.onAck(loc.taskGroupIndex, loc.attempt, req.checkpointId, state, infos, req.error);
        }
        return OK;
      }),
      reportMetrics: unaryHandler<ReportMetricsRequest, Ack>((req) => {
        const loc = req.location!;
        this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId)?.onMetrics(loc.taskGroupIndex, loc.attempt, { tables: req.tables });
        return OK;
      }),
      requestSplits: unaryHandler<RequestSplitsRequest, RequestSplitsResponse>(async (req) => {
        const loc = req.location!;
        const p = this.jobs.get(loc.jobId)?.pipeline(loc.pipelineId);
        if (!p) throw new TidewayError(ErrorCode.NOT_FOUND, `pipeline ${loc.jobId}/${loc.pipelineId} is not running`);
        const res = await p.requestSplits(loc.taskGroupIndex, loc.attempt, req.register, req.request);
        return { splits: res.splits.map((s) => serialize(s)), noMoreSplits: res.noMoreSplits };
      }),
      workerLost: unaryHandler<WorkerLostRequest, Ack>((req) => {
        log.warn({ worker: req.address, reason: req.reason }, 'worker lost');
        this.workersLost++;
        for (const j of this.jobs.values()) if (!j.isEnded()) j.onWorkerLost(req.address);
        return OK;
      }),
    };
  }
}
