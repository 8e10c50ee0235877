import { ErrorCode, backoffDelay, detach, logger, sleep, type SerializedError } from '@tideway/common';
import { shouldRestart, type RetrySettings } from './failover-policy.js';
import type { ResourceGateway } from './gateways.js';
import type { TaskGroupTrack } from './task-group-track.js';

const log = logger('pipeline');

/** What the failover of one pipeline works with. */
export interface FailoverContext {
  jobId: string;
  pipelineId: number;
  resources: ResourceGateway;
  settings: RetrySettings;
  /** The job's env; its tag_filter says which workers its slots may come from. */
  env: { tagFilter?: Record<string, string> };
  /** Writes the job's state (the slots changed); none in unit tests. */
  persist?: () => Promise<void>;
}

/**
 * Flink's failover strategy and slot replacement for one pipeline: whether a failure restarts
 * it (job.retry.times since the last completed checkpoint, errors a restart cannot cure fail
 * at once), the wait between attempts, and the slots of the next attempt: task groups on lost
 * or silent workers lose theirs, and the missing ones are granted again, waiting while no slot
 * is free.
 */
export class PipelineFailover {
  private failuresSinceCheckpoint = 0;
  private readonly lostWorkers = new Set<string>();

  constructor(private readonly ctx: FailoverContext) {}

  /** A failure: counts it, and says whether the pipeline restarts (true) or fails for good. */
  onFailure(error: SerializedError): boolean {
    const restart = shouldRestart(error, this.failuresSinceCheckpoint, this.ctx.settings);
    this.failuresSinceCheckpoint++;
    return restart;
  }

  /** A completed checkpoint proves progress: the restart budget starts again. */
  onCheckpointCompleted(): void {
    this.failuresSinceCheckpoint = 0;
  }

  /** The resource manager declared a worker lost: its slots are replaced at the next restart. */
  onWorkerLost(address: string): void {
    this.lostWorkers.add(address);
  }

  /** A drained worker: its slots are released and replaced at the next restart, as a lost worker's. */
  onWorkerDrained(address: string): void {
    this.lostWorkers.add(address);
  }

  /**
   * The steps between two attempts, before anything is deployed: the retry interval, then the
   * slots. Returns false when `current` says the restart was called off meanwhile (a cancel).
   * A move off a draining worker (`pause` false) is no failure: it restarts without the interval.
   */
  async prepareRestart(taskGroups: TaskGroupTrack[], current: () => boolean, pause = true): Promise<boolean> {
    if (pause) await sleep(this.ctx.settings.retryIntervalMs);
    if (!current()) return false;
    await this.replaceLostSlots(taskGroups);
    if (!current()) return false;
    return (await this.acquireMissingSlots(taskGroups, current)) && current();
  }

  /**
   * Every worker the task groups sit on is checked now (a dead worker refuses connections long
   * before its heartbeats time out), and task groups on workers that are lost or do not answer
   * lose their slots, to be replaced.
   */
  private async replaceLostSlots(taskGroups: TaskGroupTrack[]): Promise<void> {
    const { jobId, pipelineId, resources } = this.ctx;
    const probe = resources.probe?.bind(resources);
    const addresses = [...new Set(taskGroups.map((t) => t.slot?.workerAddress).filter((a): a is string => a !== undefined))];
    for (const address of addresses) {
      if (this.lostWorkers.has(address) || !probe) continue;
      const r = await probe(address).catch(() => ({ alive: true, lost: false, reason: '' }));
      if (!r.alive) {
        log.warn({ jobId, pipelineId, worker: address, reason: r.reason }, 'not restarting on a worker that does not answer');
        this.lostWorkers.add(address);
      }
    }
    const gone = taskGroups.filter((t) => t.slot && this.lostWorkers.has(t.slot.workerAddress));
    if (gone.length === 0) return;
    const ids = gone.map((t) => t.slot!.slotId);
    for (const t of gone) t.slot = undefined;
    // The slots on a worker that is only unresponsive would otherwise stay granted.
    await resources
      .release(jobId, ids)
      .catch((err: unknown) => log.warn({ err: (err as Error).message, jobId }, 'could not release the slots of a lost worker'));
  }

  /**
   * Gets slots for task groups without one, all at once. While none are free (or the resource
   * manager is away) it waits with backoff instead of failing: a restart that finds no slot
   * does not spend the job's retries. Returns false when `current` says the pipeline stopped
   * meanwhile.
   */
  async acquireMissingSlots(taskGroups: TaskGroupTrack[], current: () => boolean): Promise<boolean> {
    const { jobId, pipelineId, resources } = this.ctx;
    for (let attempt = 0; ; attempt++) {
      const missing = taskGroups.filter((t) => !t.slot);
      if (missing.length === 0) return true;
      try {
        const fresh = await resources.apply(
          jobId,
          missing.map((t) => `${pipelineId}/${t.index}`),
          this.ctx.env.tagFilter ?? {},
        );
        missing.forEach((t, i) => (t.slot = fresh[i]));
        this.lostWorkers.clear();
        if (this.ctx.persist) detach(this.ctx.persist(), 'recording the new slots', () => undefined);
        return true;
      } catch (err) {
        const e = err as { code?: string; retryable?: boolean; message: string };
        if (e.code === ErrorCode.NOT_LEADER || (e.code !== ErrorCode.NO_ENOUGH_RESOURCE && !e.retryable)) throw err;
        if (attempt === 0) log.warn({ jobId, pipelineId, reason: e.message }, 'restart waits for free slots');
        await sleep(backoffDelay(attempt, 250, 5000) + 100);
        if (!current()) return false;
      }
    }
  }
}
