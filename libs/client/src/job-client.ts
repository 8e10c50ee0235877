import {
  JobServiceClient,
  JobStatus,
  jobStatusToJSON,
  type GetJobLogsRequest,
  type JobEvent,
  type SubmitJobRequest,
} from '@tideway/contracts';
import { ErrorCode, backoffDelay, newJobId, sleep, type TidewayError } from '@tideway/common';
import {
  LeaderCaller,
  bearerInterceptor,
  forwardedCertificateInterceptor,
  call,
  clientOptions,
  fromServiceError,
  channelCredentials,
  isUnreachable,
  leaderOf,
  mutualTlsChannelCredentials,
  type TlsFiles,
} from '@tideway/rpc';

/** How a JobClient reaches the cluster: its credentials and transport. */
export interface JobClientOptions {
  /**
   * The bearer token sent with every call, for a cluster with tideway.auth tokens (a function is
   * asked at each call: the REST API passes on its caller's).
   */
  token?: string | (() => string | undefined);
  /** The REST API's caller authenticated by certificate, named in each call (forwardedCertificateInterceptor). */
  certificateCaller?: () => string | undefined;
  /**
   * Mutual TLS with these PEM files: the cluster's CA, this client's certificate and its key
   * (read again every few seconds, so a renewed certificate is used without a restart). Without
   * it the process's transport is used: what configureTls set, else TIDEWAY_TLS_CA/CERT/KEY when
   * set, else plaintext.
   */
  tls?: TlsFiles;
}

const ENDED = new Set([JobStatus.FINISHED, JobStatus.FAILED, JobStatus.CANCELED, JobStatus.SAVEPOINT_DONE]);

/**
 * How long a call may spend finding the leader: with several coordinators a fail-over takes
 * about a lease; a single one is either there or not, and a user should hear so soon.
 */
const FIND_LEADER_MS = 30_000;
const SINGLE_COORDINATOR_MS = 5_000;

/**
 * A promise API over JobService that talks to the leader among the coordinators given: it
 * follows a follower's redirect, tries the others when one is down, and keeps a WatchJob
 * going across a fail-over. Submits carry a job id made here, so a submit retried on the new
 * leader finds the job instead of starting it twice.
 */
export class JobClient {
  private readonly leader: LeaderCaller<JobServiceClient>;
  private readonly budgetMs: number;

  /** `addresses`: the coordinators' `host:port`, one or several (the client finds the leader). */
  constructor(addresses: string | readonly string[], opts: JobClientOptions = {}) {
    const list = typeof addresses === 'string' ? [addresses] : addresses;
    const interceptors = [
      ...(opts.token ? [bearerInterceptor(opts.token)] : []),
      ...(opts.certificateCaller ? [forwardedCertificateInterceptor(opts.certificateCaller)] : []),
    ];
    const options = interceptors.length ? { ...clientOptions, interceptors } : clientOptions;
    const own = opts.tls ? mutualTlsChannelCredentials(opts.tls) : undefined;
    this.leader = new LeaderCaller(list, (a) => new JobServiceClient(a, own ?? channelCredentials(), options));
    this.budgetMs = new Set(list).size > 1 ? FIND_LEADER_MS : SINGLE_COORDINATOR_MS;
  }

  /** The coordinator believed to lead. */
  get address(): string {
    return this.leader.leader;
  }

  private unary<Res>(fn: (c: JobServiceClient) => Promise<Res>): Promise<Res> {
    return this.leader.call((c) => fn(c), this.budgetMs);
  }

  submit(req: Partial<SubmitJobRequest> & { configText: string }) {
    const full: SubmitJobRequest = {
      configFile: '',
      format: '',
      variables: {},
      jobName: '',
      jobId: '',
      restoreJobId: '',
      restoreWithCheckpoint: '',
      ...req,
    };
    if (!full.jobId && !full.restoreJobId) full.jobId = newJobId();
    return this.unary((c) => call(c, 'submitJob', full, { deadlineMs: 120_000 }));
  }

  plan(req: Partial<SubmitJobRequest> & { configText: string }) {
    return this.unary((c) =>
      call(
        c,
        'planJob',
        { configFile: '', format: '', variables: {}, jobName: '', jobId: '', restoreJobId: '', restoreWithCheckpoint: '', ...req },
        { deadlineMs: 120_000 },
      ),
    );
  }

  get(jobId: string) {
    return this.unary((c) => call(c, 'getJob', { jobId }, { deadlineMs: 10_000 }));
  }

  list() {
    return this.unary((c) => call(c, 'listJobs', {}, { deadlineMs: 10_000 }));
  }

  cancel(jobId: string) {
    return this.unary((c) => call(c, 'cancelJob', { jobId }, { deadlineMs: 10_000 }));
  }

  savepoint(jobId: string) {
    return this.unary((c) => call(c, 'savepointJob', { jobId }, { deadlineMs: 600_000 }));
  }

  /** A checkpoint of every running pipeline of the job, now; answers once each completed or failed. */
  checkpoint(jobId: string) {
    return this.unary((c) => call(c, 'checkpointJob', { jobId }, { deadlineMs: 600_000 }));
  }

  metrics(jobId: string) {
    return this.unary((c) => call(c, 'getJobMetrics', { jobId }, { deadlineMs: 10_000 }));
  }

  /** A job's log lines from every coordinator and worker (any coordinator answers). */
  logs(req: Partial<GetJobLogsRequest>) {
    const full: GetJobLogsRequest = { jobId: '', minLevel: '', sinceMs: 0, maxLines: 0, node: '', ...req };
    return this.unary((c) => call(c, 'getJobLogs', full, { deadlineMs: 30_000 }));
  }

  overview() {
    return this.unary((c) => call(c, 'getClusterOverview', {}, { deadlineMs: 10_000 }));
  }

  /** Drains a worker (by id or host:port): no new slot on it, its task groups move away. Answers at once. */
  drain(worker: string) {
    return this.unary((c) => call(c, 'drainWorker', { worker }, { deadlineMs: 10_000 }));
  }

  /** Stores a packed plugin package in the cluster's plugin store (admin role). */
  installPluginPackage(archive: Uint8Array, source: string) {
    return this.unary((c) => call(c, 'installPluginPackage', { archive: Buffer.from(archive), source }, { deadlineMs: 120_000 }));
  }

  /** The cluster's stored plugin packages, and what each process has loaded. */
  listPluginPackages() {
    return this.unary((c) => call(c, 'listPluginPackages', {}, { deadlineMs: 30_000 }));
  }

  /** One stored package (name or name@version) with its plugins' options. */
  describePluginPackage(name: string, version: string) {
    return this.unary((c) => call(c, 'describePluginPackage', { name, version }, { deadlineMs: 60_000 }));
  }

  /** Removes a stored plugin package (admin role); refused while a running job uses it. */
  removePluginPackage(name: string, version: string) {
    return this.unary((c) => call(c, 'removePluginPackage', { name, version }, { deadlineMs: 60_000 }));
  }

  /** Ends a worker's drain: it gets slots again. */
  undrain(worker: string) {
    return this.unary((c) => call(c, 'undrainWorker', { worker }, { deadlineMs: 10_000 }));
  }

  /** The leader hands the leadership over to a follower at once (a rolling upgrade). */
  stepDown() {
    return this.unary((c) => call(c, 'stepDown', {}, { deadlineMs: 30_000 }));
  }

  /**
   * Follows a job until it ends; `onEvent` sees every event; resolves with the last one. When
   * the coordinator dies or steps down mid-watch, the watch goes on at the new leader. An
   * aborted `signal` cancels the stream (the dashboard's browser went away): the watch then
   * resolves with the last event seen, or rejects when there was none.
   */
  async watch(jobId: string, onEvent: (e: JobEvent) => void, intervalMs = 1000, signal?: AbortSignal): Promise<JobEvent> {
    let last: JobEvent | undefined;
    const deadline = () => Date.now() + this.budgetMs;
    let giveUpAt = deadline();
    for (let attempt = 0; ; attempt++) {
      try {
        await this.watchOnce(jobId, intervalMs, signal, (e) => {
          last = e;
          giveUpAt = deadline();
          onEvent(e);
        });
        if (!last) throw new Error(`the watch of job ${jobId} ended without news`);
        if (signal?.aborted) return last;
        if (ENDED.has(last.job?.status ?? JobStatus.JOB_STATUS_UNSPECIFIED)) return last;
        // The stream ended before the job did (its coordinator shut down): watch again.
        if (Date.now() > giveUpAt)
          throw new Error(`the watch of job ${jobId} ended while the job was still ${jobStatusToJSON(last.job!.status)}`);
      } catch (err) {
        const e = err as TidewayError;
        if (signal?.aborted) throw err;
        const moved =
          e.code === ErrorCode.NOT_LEADER || isUnreachable(e) || (last !== undefined && e.code === ErrorCode.INTERNAL && e.retryable);
        if (!moved || Date.now() > giveUpAt) throw err;
        const redirect = leaderOf(e);
        if (redirect) this.leader.noteLeader(redirect);
        else {
          // Find the leader the ordinary way (GetJob follows redirects and tries every address).
          await sleep(backoffDelay(attempt, 100, 1000));
          await this.get(jobId).catch(() => undefined);
        }
      }
    }
  }

  /** One WatchJob stream, until it ends or fails. */
  private watchOnce(jobId: string, intervalMs: number, signal: AbortSignal | undefined, onEvent: (e: JobEvent) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return resolve();
      const stream = this.leader.client(this.leader.leader).watchJob({ jobId, intervalMs });
      const abort = () => {
        stream.cancel();
        resolve();
      };
      signal?.addEventListener('abort', abort, { once: true });
      const done = () => signal?.removeEventListener('abort', abort);
      stream.on('data', onEvent);
      stream.on('error', (err) => {
        done();
        // A cancelled stream errors with CANCELLED: the abort already resolved.
        if (!signal?.aborted) reject(fromServiceError(err));
      });
      stream.on('end', () => {
        done();
        resolve();
      });
    });
  }

  close(): void {
    this.leader.close();
  }
}
