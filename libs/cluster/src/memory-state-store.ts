import { ErrorCode, TidewayError } from '@tideway/common';
import {
  StaleEpochError,
  type CheckpointPointer,
  type CoordinatorRecord,
  type LeaderRecord,
  type StateStore,
  type StoredJob,
  type StoredJobInfo,
  type StoredJobState,
} from './state-store.js';

interface Entry {
  job: StoredJob;
  /** Ms since epoch after which an ended job is forgotten; undefined while active. */
  expiresAt?: number;
}

/**
 * The state store of local mode (one coordinator, in one process): the same contract as the
 * Redis store, epochs included, kept in memory. Values are copied in and out (structuredClone)
 * so callers can never share objects with the store, as with Redis.
 */
export class MemoryStateStore implements StateStore {
  readonly description = 'memory';
  private epoch = 0;
  private leaderRecord?: LeaderRecord;
  private readonly jobs = new Map<string, Entry>();
  private readonly seen = new Map<string, { lastSeenMs: number; ttlMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async open(): Promise<void> {}

  async close(): Promise<void> {}

  async claimEpoch(leaderAddress: string, atLeast = 0): Promise<number> {
    this.epoch = Math.max(this.epoch, atLeast) + 1;
    this.leaderRecord = { address: leaderAddress, epoch: this.epoch, sinceMs: this.now() };
    return this.epoch;
  }

  async leader(): Promise<LeaderRecord | undefined> {
    return this.leaderRecord ? { ...this.leaderRecord } : undefined;
  }

  async assertEpoch(epoch: number): Promise<void> {
    this.fence(epoch);
  }

  /** As in Redis: a stale writer is refused; a writer ahead of the count raises it (never handed out again). */
  private fence(epoch: number): void {
    if (epoch < this.epoch) throw new StaleEpochError(epoch, this.epoch);
    this.epoch = epoch;
  }

  async submitJob(epoch: number, info: StoredJobInfo, state: StoredJobState): Promise<void> {
    this.fence(epoch);
    this.expire();
    const existing = this.jobs.get(info.jobId);
    if (existing && existing.expiresAt === undefined) {
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `job id ${info.jobId} is already in use (${existing.job.state.status})`, {
        jobId: info.jobId,
      });
    }
    this.jobs.set(info.jobId, { job: structuredClone({ info, state, checkpoints: {} }) });
  }

  async updateJob(epoch: number, jobId: string, state: StoredJobState): Promise<void> {
    this.fence(epoch);
    const e = this.jobs.get(jobId);
    if (e && e.expiresAt === undefined) e.job.state = structuredClone(state);
  }

  async putCheckpoint(epoch: number, jobId: string, pointer: CheckpointPointer): Promise<void> {
    this.fence(epoch);
    const e = this.jobs.get(jobId);
    if (e) e.job.checkpoints[pointer.pipelineId] = { ...pointer };
  }

  async endJob(epoch: number, jobId: string, state: StoredJobState, expireMs: number): Promise<void> {
    this.fence(epoch);
    const e = this.jobs.get(jobId);
    if (!e) return;
    e.job.state = structuredClone(state);
    e.expiresAt = this.now() + expireMs;
  }

  async activeJobs(): Promise<StoredJob[]> {
    return [...this.jobs.values()].filter((e) => e.expiresAt === undefined).map((e) => structuredClone(e.job));
  }

  async job(jobId: string): Promise<StoredJob | undefined> {
    this.expire();
    const e = this.jobs.get(jobId);
    return e ? structuredClone(e.job) : undefined;
  }

  async endedJobs(page?: { offset: number; limit: number }): Promise<StoredJob[]> {
    this.expire();
    const ended = [...this.jobs.values()]
      .filter((e) => e.expiresAt !== undefined)
      .sort((a, b) => b.expiresAt! - a.expiresAt! || (a.job.info.jobId < b.job.info.jobId ? 1 : -1));
    const slice = page ? ended.slice(page.offset, page.offset + page.limit) : ended;
    return slice.map((e) => structuredClone(e.job));
  }

  async announceCoordinator(address: string, ttlMs: number): Promise<void> {
    this.seen.set(address, { lastSeenMs: this.now(), ttlMs });
  }

  async coordinators(): Promise<CoordinatorRecord[]> {
    const now = this.now();
    return [...this.seen]
      .filter(([, s]) => now - s.lastSeenMs <= s.ttlMs)
      .map(([address, s]) => ({ address, lastSeenMs: s.lastSeenMs }))
      .sort((a, b) => (a.address < b.address ? -1 : 1));
  }

  private expire(): void {
    const now = this.now();
    for (const [id, e] of this.jobs) if (e.expiresAt !== undefined && e.expiresAt <= now) this.jobs.delete(id);
  }
}
