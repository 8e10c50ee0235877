import {
  CoordinatorServiceClient,
  WorkerServiceClient,
  type GetJobLogsRequest,
  type GetJobLogsResponse,
  type JobInfo,
  type JobLogFile,
  type MissingLogNode,
} from '@tideway/contracts';
import { DEFAULT_LOG_LINES, ErrorCode, LOG_LEVELS, TidewayError, readLocalJobLogs } from '@tideway/common';
import { ClientPool, call, channelCredentials, clientOptions } from '@tideway/rpc';
import type { StateStore } from '@tideway/cluster';
import type { Dispatcher } from './dispatcher.js';
import { mayAccess, checkAccess, type Caller } from './namespace-access.js';
import type { RemoteResourceManager } from './remote-gateways.js';

/** How long one process is given to answer with its lines. */
const ASK_DEADLINE_MS = 5_000;

/** What the log collector reaches of the coordinator process. */
export interface JobLogsContext {
  readonly dispatcher: Dispatcher;
  readonly store: Pick<StateStore, 'job' | 'endedJobs' | 'coordinators'>;
  readonly resources: Pick<RemoteResourceManager, 'listWorkers'>;
  /** This coordinator's address. */
  address(): string;
  /** The job's info (live or stored) with its namespace, undefined when unknown. */
  jobInfo(jobId: string): Promise<JobInfo | undefined>;
}

/** A process to ask: a coordinator or a worker, by address. */
interface Peer {
  address: string;
  role: 'coordinator' | 'worker';
}

/**
 * Collects a job's log lines: this coordinator's own, and each other coordinator's and worker's
 * (asked over CoordinatorService / WorkerService ReadJobLogs, with no leader epoch: any
 * coordinator answers, a follower too). A process that does not answer is named in `missing`;
 * one process that is coordinator and worker answers once (its process id).
 */
export class JobLogCollector {
  private readonly workers = new ClientPool((a) => new WorkerServiceClient(a, channelCredentials(), clientOptions));
  private readonly coordinators = new ClientPool((a) => new CoordinatorServiceClient(a, channelCredentials(), clientOptions));

  constructor(private readonly c: JobLogsContext) {}

  async collect(req: GetJobLogsRequest, caller: Caller): Promise<GetJobLogsResponse> {
    if (req.minLevel && LOG_LEVELS[req.minLevel.toLowerCase()] === undefined)
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `GetJobLogs min_level '${req.minLevel}': expected one of ${Object.keys(LOG_LEVELS).join(', ')}`,
      );
    if (req.maxLines < 0) throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `GetJobLogs max_lines ${req.maxLines}: must be 0 or more`);
    const local = { ...req, minLevel: req.minLevel.toLowerCase() };
    let ran: string[] = [];
    if (req.jobId) {
      const info = await this.c.jobInfo(req.jobId);
      if (!info)
        throw new TidewayError(ErrorCode.NOT_FOUND, `job ${req.jobId} does not exist (or its history expired)`, { jobId: req.jobId });
      checkAccess(caller, 'GetJobLogs', req.jobId, info.namespace);
      ran = info.pipelines.flatMap((p) => p.taskGroups.map((t) => t.workerAddress)).filter((a) => a !== '');
    }
    const peers = await this.peers(ran);
    const wanted = req.node ? peers.filter((p) => p.address === req.node) : peers;
    const here = this.c.address();
    const answers: GetJobLogsResponse[] = [];
    const missing: MissingLogNode[] = [];
    if (!req.node || req.node === here) answers.push(readLocalJobLogs(local));
    await Promise.all(
      wanted.map(async (p) => {
        try {
          answers.push(await this.ask(p, local));
        } catch (err) {
          missing.push({ node: p.address, role: p.role, reason: (err as Error).message });
        }
      }),
    );
    const seen = new Set<string>();
    const unique = answers.filter((a) => !seen.has(a.processId) && seen.add(a.processId));
    const max = req.maxLines > 0 ? req.maxLines : DEFAULT_LOG_LINES;
    const lines = unique.flatMap((a) => a.lines).sort((a, b) => a.timeMs - b.timeMs);
    let files = unique.flatMap((a) => a.files);
    if (!req.jobId) files = await this.visible(files, caller);
    return {
      lines: lines.length > max ? lines.slice(lines.length - max) : lines,
      files: files.sort((a, b) => a.logName.localeCompare(b.logName)),
      missing: missing.sort((a, b) => a.node.localeCompare(b.node)),
      processId: '',
    };
  }

  /**
   * The other coordinators alive, the workers the resource manager knows, and the workers the
   * job's task groups run on (one that is gone is then named as missing).
   */
  private async peers(ran: string[]): Promise<Peer[]> {
    const here = this.c.address();
    const [coordinators, workers] = await Promise.all([
      this.c.store.coordinators().catch(() => []),
      this.c.resources
        .listWorkers()
        .then((r) => r.workers.map((w) => w.address))
        .catch(() => [] as string[]),
    ]);
    const out = new Map<string, Peer>();
    for (const a of [...workers, ...ran]) out.set(a, { address: a, role: 'worker' });
    for (const x of coordinators) if (x.address !== here) out.set(x.address, { address: x.address, role: 'coordinator' });
    out.delete(here);
    return [...out.values()];
  }

  private ask(p: Peer, req: GetJobLogsRequest): Promise<GetJobLogsResponse> {
    const opts = { deadlineMs: ASK_DEADLINE_MS };
    return p.role === 'worker'
      ? call(this.workers.get(p.address), 'readJobLogs', req, opts)
      : call(this.coordinators.get(p.address), 'readJobLogs', req, opts);
  }

  /** The files of the jobs the caller may see (an expired job's leftovers: admins only). */
  private async visible(files: JobLogFile[], caller: Caller): Promise<JobLogFile[]> {
    const namespaces = new Map<string, string | undefined>();
    for (const id of new Set(files.map((f) => f.jobId))) namespaces.set(id, (await this.c.jobInfo(id))?.namespace);
    return files.filter((f) => {
      const ns = namespaces.get(f.jobId);
      return ns === undefined ? !caller || caller.role === 'admin' : mayAccess(caller, ns);
    });
  }

  close(): void {
    this.workers.close();
    this.coordinators.close();
  }
}
