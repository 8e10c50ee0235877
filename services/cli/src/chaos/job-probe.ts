import { JobServiceClient, jobStatusToJSON } from '@tideway/contracts';
import { ClientPool, call, channelCredentials, clientOptions } from '@tideway/rpc';

/** One look at the job, as the leader answered it. */
export interface JobSample {
  /** When the answer came (ms since the epoch). */
  at: number;
  /** The coordinator that answered (the leader). */
  leader: string;
  /** FINISHED, RUNNING, … */
  status: string;
  /** Each pipeline's status and attempt. */
  pipelines: Array<{ status: string; attempt: number }>;
  /** Rows read by the job's sources (its metrics, continued across fail-overs). */
  rows: number;
  completedCheckpoints: number;
  /** Addresses of the workers running the job's task groups. */
  workers: Set<string>;
}

/** The highest pipeline attempt of a sample. */
export const maxAttempt = (s: JobSample): number => Math.max(0, ...s.pipelines.map((p) => p.attempt));

/** Whether the job and every pipeline of it run. */
export const allRunning = (s: JobSample): boolean =>
  s.status === 'RUNNING' && s.pipelines.length > 0 && s.pipelines.every((p) => p.status === 'RUNNING');

const ENDED = new Set(['FINISHED', 'FAILED', 'CANCELED', 'SAVEPOINT_DONE']);
/** Whether a job status is final. */
export const isEnded = (status: string): boolean => ENDED.has(status);

/**
 * Looks at a job through whichever coordinator leads, with a short deadline per call, and
 * never through a coordinator the chaos run has paused or killed: a paused leader accepts
 * connections and never answers, so a leader-following client would wait out its deadline
 * and the recovery times measured would include that wait.
 */
export class JobProbe {
  private readonly clients = new ClientPool((address) => new JobServiceClient(address, channelCredentials(), clientOptions));
  private last = 0;

  constructor(
    private readonly addresses: readonly string[],
    private readonly jobId: string,
    /** Whether the coordinator at an address may answer (not paused, not killed). */
    private readonly isUp: (address: string) => boolean,
    private readonly deadlineMs = 1500,
  ) {}

  private client(address: string): JobServiceClient {
    return this.clients.get(address);
  }

  /** The job as the leader sees it now, or undefined when no coordinator answered as leader. */
  async sample(): Promise<JobSample | undefined> {
    for (let i = 0; i < this.addresses.length; i++) {
      const index = (this.last + i) % this.addresses.length;
      const address = this.addresses[index];
      if (!this.isUp(address)) continue;
      const c = this.client(address);
      try {
        const ctx = { deadlineMs: this.deadlineMs };
        const [job, metrics] = await Promise.all([
          call(c, 'getJob', { jobId: this.jobId }, ctx),
          call(c, 'getJobMetrics', { jobId: this.jobId }, ctx),
        ]);
        this.last = index;
        return {
          at: Date.now(),
          leader: address,
          status: jobStatusToJSON(job.status),
          pipelines: job.pipelines.map((p) => ({ status: p.status, attempt: p.attempt })),
          rows: Number(metrics.sourceReceivedCount),
          completedCheckpoints: job.completedCheckpoints,
          workers: new Set(job.pipelines.flatMap((p) => p.taskGroups.map((t) => t.workerAddress)).filter((a) => a !== '')),
        };
      } catch {
        // A follower (NOT_LEADER), a coordinator starting up or taking over: ask the next one.
      }
    }
    return undefined;
  }

  close(): void {
    this.clients.close();
  }
}
