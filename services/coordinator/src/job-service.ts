import * as grpc from '@grpc/grpc-js';
import type {
  CancelJobRequest,
  CancelJobResponse,
  CheckpointJobRequest,
  CheckpointJobResponse,
  ClusterOverview,
  GetJobLogsRequest,
  GetJobLogsResponse,
  GetJobMetricsRequest,
  GetJobRequest,
  JobEvent,
  JobInfo,
  JobMetrics,
  ListJobsResponse,
  PlanJobResponse,
  SavepointJobRequest,
  SavepointJobResponse,
  SubmitJobRequest,
  SubmitJobResponse,
  WatchJobRequest,
  DrainWorkerRequest,
  DrainWorkerResponse,
  StepDownResponse,
  WorkerInfo,
  WorkerProfile,
} from '@tideway/contracts';
import { JOB_STATUS, type JobStatus } from '@tideway/dag';
import { ErrorCode, TidewayError, detach } from '@tideway/common';
import { NotLeaderError, failStream, unaryHandler } from '@tideway/rpc';
import { describePlan } from '@tideway/planner';
import type { EventEmitter } from 'node:events';
import type { StateStore, StoredJob } from '@tideway/cluster';
import type { Dispatcher } from './dispatcher.js';
import { jobInfo, jobMetrics, planningJobInfo, storedJobInfo, storedJobMetrics } from './job-info.js';
import type { JobMaster } from './job-master.js';
import type { RemoteResourceManager } from './remote-gateways.js';
import { callerOfCall, checkAccess, mayAccess, type Caller } from './namespace-access.js';
import type { JobLogCollector } from './job-logs.js';

/** What JobService reaches of the coordinator process. */
export interface JobServiceContext {
  /** The jobs of this leadership. */
  readonly dispatcher: Dispatcher;
  /** Ended jobs (of any leader), and the coordinators alive. */
  readonly store: Pick<StateStore, 'job' | 'endedJobs' | 'coordinators'>;
  readonly resources: Pick<RemoteResourceManager, 'listWorkers' | 'setDraining'>;
  /** Emits 'step-down' when this coordinator stops leading. */
  readonly leadership: EventEmitter;
  /** Waits for a take-over in progress; throws NotLeader unless this coordinator leads. */
  ready(): Promise<void>;
  /** This coordinator's address and epoch, and the leader it knows of. */
  whereabouts(): { address: string; epoch: number; knownLeader: string };
  /** Hands the leadership over (CoordinatorServer.handOver). */
  stepDown(): Promise<{ address: string; epoch: number }>;
  /** Collects a job's log lines from every process. */
  readonly logs: JobLogCollector;
}

/** A job's info as this coordinator knows it (planning, live, or from the state store), undefined when unknown. */
export async function knownJobInfo(c: Pick<JobServiceContext, 'dispatcher' | 'store'>, jobId: string): Promise<JobInfo | undefined> {
  const init = c.dispatcher.planning.get(jobId);
  if (init) return planningJobInfo(jobId, init);
  const running = c.dispatcher.jobs.get(jobId);
  if (running) return jobInfo(running, c.dispatcher.namespaceOf(jobId));
  const stored = await c.store.job(jobId);
  return stored ? storedJobInfo(stored) : undefined;
}

/** A job as the API sees it: running here (live), or known from the state store only. */
type JobView = { live: JobMaster } | { stored: StoredJob };

async function findJob(c: JobServiceContext, jobId: string): Promise<JobView> {
  const live = c.dispatcher.jobs.get(jobId);
  if (live) return { live };
  const stored = await c.store.job(jobId);
  if (stored) return { stored };
  throw new TidewayError(ErrorCode.NOT_FOUND, `job ${jobId} does not exist (or its history expired)`, { jobId });
}

/** The namespace a job was submitted in ('' for jobs of no namespace). */
function namespaceOfView(c: JobServiceContext, v: JobView): string {
  return 'live' in v ? c.dispatcher.namespaceOf(v.live.jobId) : (v.stored.info.namespace ?? '');
}

const liveInfo = (c: JobServiceContext, job: JobMaster): JobInfo =>
  jobInfo(job, c.dispatcher.namespaceOf(job.jobId), c.dispatcher.startedWithSavepoint(job.jobId));
const infoOf = (c: JobServiceContext, v: JobView): JobInfo => ('live' in v ? liveInfo(c, v.live) : storedJobInfo(v.stored));

/** The job, when the caller may act on it (PERMISSION_DENIED naming both namespaces otherwise). */
async function accessibleJob(c: JobServiceContext, caller: Caller, method: string, jobId: string): Promise<JobView> {
  const view = await findJob(c, jobId);
  checkAccess(caller, method, jobId, namespaceOfView(c, view));
  return view;
}

function live(v: JobView, jobId: string): JobMaster {
  if ('live' in v) return v.live;
  // Recorded as active but not taken over by this leader (yet): nothing to act on here.
  throw new TidewayError(ErrorCode.ILLEGAL_TRANSITION, `job ${jobId} is ${v.stored.state.status} and not running on this coordinator`, {
    jobId,
  });
}

/** Waits until a job has ended (or the timeout passed). */
function waitEnded(c: JobServiceContext, job: JobMaster, timeoutMs: number): Promise<void> {
  if (job.isEnded()) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (!job.isEnded()) return;
      clearTimeout(timer);
      c.dispatcher.events.off(job.jobId, done);
      resolve();
    };
    const timer = setTimeout(() => {
      c.dispatcher.events.off(job.jobId, done);
      resolve();
    }, timeoutMs);
    c.dispatcher.events.on(job.jobId, done);
  });
}

/**
 * JobService, the client API. Only the leader answers; a follower (or a leader still taking
 * over) answers UNAVAILABLE with the leader's address, which the CLI follows by itself. Jobs
 * running here answer from their JobMaster; ended jobs (of any leader) from the state store.
 */
export function jobServiceHandlers(c: JobServiceContext): grpc.UntypedServiceImplementation {
  const leaderUnary = <Req, Res>(fn: (req: Req, caller: Caller) => Promise<Res> | Res) =>
    unaryHandler<Req, Res>(async (req, call) => {
      await c.ready();
      return fn(req, callerOfCall(call));
    });
  return {
    submitJob: leaderUnary<SubmitJobRequest, SubmitJobResponse>(async (req, caller) => {
      const job = await c.dispatcher.submit(req, caller);
      return { jobId: job.jobId, job: liveInfo(c, job) };
    }),
    // Planning changes nothing: any coordinator answers.
    planJob: unaryHandler<SubmitJobRequest, PlanJobResponse>(async (req, call) =>
      describePlan(await c.dispatcher.plan(req, req.jobId || 'plan', callerOfCall(call), false)),
    ),
    getJob: leaderUnary<GetJobRequest, JobInfo>(async (req, caller) => {
      const init = c.dispatcher.planning.get(req.jobId);
      if (init) {
        checkAccess(caller, 'GetJob', req.jobId, init.namespace);
        return planningJobInfo(req.jobId, init);
      }
      return infoOf(c, await accessibleJob(c, caller, 'GetJob', req.jobId));
    }),
    // Viewers and operators see their namespace's jobs only; an admin every job.
    listJobs: leaderUnary<object, ListJobsResponse>(async (_req, caller) => {
      const running = [...c.dispatcher.jobs.values()];
      const here = new Set(running.map((j) => j.jobId));
      const ended = (await c.store.endedJobs()).filter((s) => !here.has(s.info.jobId));
      return {
        jobs: [
          ...[...c.dispatcher.planning].map(([id, init]) => planningJobInfo(id, init)),
          ...running.map((j) => liveInfo(c, j)),
          ...ended.map(storedJobInfo),
        ]
          .filter((j) => mayAccess(caller, j.namespace))
          .sort((a, b) => a.submitTimeMs - b.submitTimeMs),
      };
    }),
    cancelJob: leaderUnary<CancelJobRequest, CancelJobResponse>(async (req, caller) => {
      const init = c.dispatcher.planning.get(req.jobId);
      if (init) {
        checkAccess(caller, 'CancelJob', req.jobId, init.namespace);
        init.cancelRequested = true;
        return { job: planningJobInfo(req.jobId, init) };
      }
      const view = await accessibleJob(c, caller, 'CancelJob', req.jobId);
      if ('stored' in view) return { job: storedJobInfo(view.stored) }; // ended already: nothing to do
      view.live.cancel();
      return { job: liveInfo(c, view.live) };
    }),
    savepointJob: leaderUnary<SavepointJobRequest, SavepointJobResponse>(async (req, caller) => {
      const job = live(await accessibleJob(c, caller, 'SavepointJob', req.jobId), req.jobId);
      const ids = await job.savepoint();
      // The task groups stop after the savepoint completed; answer once the job has ended.
      await waitEnded(c, job, 60_000);
      return { job: liveInfo(c, job), checkpointId: Math.max(0, ...ids) };
    }),
    checkpointJob: leaderUnary<CheckpointJobRequest, CheckpointJobResponse>(async (req, caller) => {
      const init = c.dispatcher.planning.get(req.jobId);
      if (init) {
        checkAccess(caller, 'CheckpointJob', req.jobId, init.namespace);
        throw new TidewayError(ErrorCode.ILLEGAL_TRANSITION, `job ${req.jobId} is being planned; only a RUNNING job takes a checkpoint`, {
          jobId: req.jobId,
        });
      }
      const job = live(await accessibleJob(c, caller, 'CheckpointJob', req.jobId), req.jobId);
      const checkpoints = await job.checkpoint();
      return { job: liveInfo(c, job), checkpoints };
    }),
    getJobMetrics: leaderUnary<GetJobMetricsRequest, JobMetrics>(async (req, caller) => {
      const view = await accessibleJob(c, caller, 'GetJobMetrics', req.jobId);
      return 'live' in view ? jobMetrics(view.live, c.dispatcher.rates.get(req.jobId)) : storedJobMetrics(view.stored);
    }),
    // Any coordinator answers (a follower too): it asks the other processes for their lines.
    getJobLogs: unaryHandler<GetJobLogsRequest, GetJobLogsResponse>((req, call) => c.logs.collect(req, callerOfCall(call))),
    getClusterOverview: leaderUnary<object, ClusterOverview>(async (_req, caller) => overview(c, caller)),
    // Operators drain and undrain (docs/security.md); the leader moves the task groups on its tick.
    drainWorker: leaderUnary<DrainWorkerRequest, DrainWorkerResponse>(async (req) => ({
      worker: workerInfo(await c.resources.setDraining(workerName(req), true)),
    })),
    undrainWorker: leaderUnary<DrainWorkerRequest, DrainWorkerResponse>(async (req) => ({
      worker: workerInfo(await c.resources.setDraining(workerName(req), false)),
    })),
    stepDown: leaderUnary<object, StepDownResponse>(async () => c.stepDown()),
    watchJob: (call: grpc.ServerWritableStream<WatchJobRequest, JobEvent>) => detach(watch(c, call), 'a WatchJob stream'),
  };
}

/** The worker of a DrainWorker call: its id or address, refused when empty. */
function workerName(req: DrainWorkerRequest): string {
  const worker = req.worker.trim();
  if (worker === '') throw new TidewayError(ErrorCode.BAD_REQUEST, 'name the worker to drain or undrain: its id or host:port');
  return worker;
}

/** A worker as the resource manager registers it, as clients see it. */
function workerInfo(w: WorkerProfile): WorkerInfo {
  return {
    workerId: w.workerId,
    address: w.address,
    attributes: w.attributes,
    totalSlots: w.dynamicSlot ? 0 : w.slotNum,
    freeSlots: w.dynamicSlot || w.draining ? 0 : Math.max(0, w.slotNum - w.assignedSlots.length),
    cpuCores: w.cpuCores,
    memoryMb: w.memoryMb,
    systemLoad: w.systemLoad,
    lastHeartbeatMs: 0,
    draining: w.draining,
    stopping: w.stopping,
    usedSlots: w.assignedSlots.length,
    dynamicSlot: w.dynamicSlot,
    freeMemoryMb: w.freeMemoryMb,
    heapUsedBytes: w.heapUsedBytes,
    heapTotalBytes: w.heapTotalBytes,
    heapMaxBytes: w.heapMaxBytes,
    health: w.health,
  };
}

/** The cluster's workers and slots, and the counts of the jobs the caller may see. */
async function overview(c: JobServiceContext, caller: Caller): Promise<ClusterOverview> {
  const [{ workers }, ended, coordinators] = await Promise.all([c.resources.listWorkers(), c.store.endedJobs(), c.store.coordinators()]);
  const here = c.whereabouts();
  const statuses = [
    ...[...c.dispatcher.jobs.values()].filter((j) => mayAccess(caller, c.dispatcher.namespaceOf(j.jobId))).map((j) => j.status as string),
    ...ended.filter((s) => !c.dispatcher.jobs.has(s.info.jobId) && mayAccess(caller, s.info.namespace ?? '')).map((s) => s.state.status),
  ];
  const count = (s: string) => statuses.filter((x) => x === s).length;
  const totalSlots = workers.reduce((n, w) => n + (w.dynamicSlot ? 0 : w.slotNum), 0);
  const used = workers.reduce((n, w) => n + w.assignedSlots.length, 0);
  if (!coordinators.some((x) => x.address === here.address)) coordinators.push({ address: here.address, lastSeenMs: Date.now() });
  return {
    workers: workers.map(workerInfo),
    totalSlots,
    // A draining worker's free slots are not given out.
    freeSlots: Math.max(
      0,
      totalSlots -
        used -
        workers.reduce((n, w) => n + (w.draining && !w.dynamicSlot ? Math.max(0, w.slotNum - w.assignedSlots.length) : 0), 0),
    ),
    runningJobs: count('RUNNING'),
    pendingJobs: count('PENDING'),
    finishedJobs: count('FINISHED'),
    failedJobs: count('FAILED'),
    canceledJobs: count('CANCELED'),
    leaderAddress: here.address,
    coordinators: coordinators.map((x) => ({ address: x.address, leader: x.address === here.address, lastSeenMs: x.lastSeenMs })),
    epoch: here.epoch,
    namespaces: c.dispatcher.namespaceUsage().filter((u) => mayAccess(caller, u.namespace)),
  };
}

/**
 * Streams a job's state and metrics until it ends. When this coordinator stops leading the
 * stream fails with UNAVAILABLE and the leader's address, and the client watches there.
 */
async function watch(c: JobServiceContext, call: grpc.ServerWritableStream<WatchJobRequest, JobEvent>): Promise<void> {
  const jobId = call.request.jobId;
  let view: JobView;
  try {
    await c.ready();
    view = await accessibleJob(c, callerOfCall(call), 'WatchJob', jobId);
  } catch (err) {
    failStream(call, err);
    return;
  }
  if ('stored' in view) {
    call.write({ job: storedJobInfo(view.stored), metrics: storedJobMetrics(view.stored) });
    if (JOB_STATUS.isTerminal(view.stored.state.status as JobStatus)) call.end();
    else failStream(call, Object.assign(new Error(`job ${jobId} is not running on this coordinator`), { code: grpc.status.UNAVAILABLE }));
    return;
  }
  const job = view.live;
  const interval = call.request.intervalMs || 1000;
  let closed = false;
  const send = () => {
    if (closed) return;
    call.write({ job: liveInfo(c, job), metrics: jobMetrics(job, c.dispatcher.rates.get(jobId)) });
    if (job.isEnded()) finish();
  };
  const onChange = () => send();
  const timer = setInterval(send, interval);
  const cleanup = () => {
    closed = true;
    clearInterval(timer);
    c.dispatcher.events.off(jobId, onChange);
    c.leadership.off('step-down', onStepDown);
  };
  const finish = () => {
    if (closed) return;
    cleanup();
    call.end();
  };
  const onStepDown = () => {
    if (closed) return;
    cleanup();
    const { address, knownLeader } = c.whereabouts();
    const err = new NotLeaderError(address, knownLeader || undefined);
    failStream(call, err);
  };
  c.dispatcher.events.on(jobId, onChange);
  c.leadership.on('step-down', onStepDown);
  call.on('cancelled', finish);
  call.on('error', finish);
  send();
}
