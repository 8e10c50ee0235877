import type { CheckpointStorage } from '@tideway/checkpoint';
import type { StateStore } from '@tideway/cluster';
import { detach, logger } from '@tideway/common';

const log = logger('coordinator');
/** setTimeout's longest delay; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How long an ended job's checkpoints stay in storage:
 * - FINISHED: deleted at once (as SeaTunnel: nothing is left to resume);
 * - CANCELED: kept as long as the job's history (history-job-expire-minutes), so that a new
 *   job can start from its latest completed checkpoint (--restore-with-checkpoint), then
 *   deleted. Storage keeps the latest and the older ones max-retained allows (a corrupt latest
 *   falls back to them);
 * - FAILED and SAVEPOINT_DONE: kept, as in SeaTunnel (restored with -r, or as a new job).
 * The deletion is a timer of the leader; a new leader arms the timers of the cancelled jobs the
 * state store still lists. A job the state store forgot while no coordinator led (or whose
 * coordinator had no state store and stopped) keeps its checkpoints, as a failed job's.
 */
export class CheckpointRetention {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly storage: CheckpointStorage,
    private readonly store: Pick<StateStore, 'job' | 'endedJobs'>,
    private readonly historyExpireMs: number,
    /** Whether this leadership runs (or plans) the job: its checkpoints are in use again. */
    private readonly inUse: (jobId: string) => boolean,
  ) {}

  /** A job ended with `status` at `finishTimeMs`. */
  ended(jobId: string, status: string, finishTimeMs: number): void {
    if (status === 'FINISHED') this.delete(jobId, 'the job finished');
    else if (status === 'CANCELED') this.schedule(jobId, finishTimeMs);
  }

  /** A new leadership: the cancelled jobs the state store lists get their deletion timers. */
  async arm(): Promise<void> {
    for (const s of await this.store.endedJobs()) {
      if (s.state.status === 'CANCELED') this.schedule(s.info.jobId, s.state.finishTimeMs);
    }
  }

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private schedule(jobId: string, finishTimeMs: number): void {
    clearTimeout(this.timers.get(jobId));
    const due = finishTimeMs + this.historyExpireMs;
    const timer = setTimeout(
      () => {
        this.timers.delete(jobId);
        if (Date.now() < due) this.schedule(jobId, finishTimeMs);
        else detach(this.expire(jobId, finishTimeMs), `deleting the checkpoints of cancelled job ${jobId}`);
      },
      Math.min(MAX_TIMER_MS, Math.max(0, due - Date.now())),
    );
    timer.unref();
    this.timers.set(jobId, timer);
  }

  /** The history expired: delete, unless the job id runs again (a restore -r of it). */
  private async expire(jobId: string, finishTimeMs: number): Promise<void> {
    if (this.inUse(jobId)) return;
    const now = await this.store.job(jobId);
    if (now && !(now.state.status === 'CANCELED' && now.state.finishTimeMs === finishTimeMs)) return;
    this.delete(jobId, 'its history expired');
  }

  private delete(jobId: string, why: string): void {
    this.storage
      .deleteJob(jobId)
      .then(() => log.debug({ jobId, why }, 'checkpoints deleted'))
      .catch((err: unknown) => log.warn({ err, jobId }, 'could not delete checkpoints'));
  }
}
