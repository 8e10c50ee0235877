import { ErrorCode, TidewayError, backoffDelay, detach, logger, runForJob, serializeError } from '@tideway/common';
import type { ResourceGateway } from './gateways.js';
import type { JobMaster } from './job-master.js';

const log = logger('scheduler');

/** SeaTunnel's job-schedule-strategy. */
export type JobScheduleStrategy = 'WAIT' | 'REJECT';

/** A namespace's quota (tideway.auth.namespaces.<ns>.max-running-jobs, max-slots; 0: no limit). */
export interface Quota {
  maxRunningJobs: number;
  maxSlots: number;
}

/** What the queue needs to know of jobs and namespaces. */
export interface QueuePolicy {
  /** The namespace of a job ('' for none). */
  namespaceOf(job: JobMaster): string;
  quotaOf(namespace: string): Quota;
  /** The jobs of the namespace that hold slots now, and the slots they hold. */
  usageOf(namespace: string): { runningJobs: number; slots: number };
}

/** One queue, no quota: every job is of namespace ''. */
export const NO_QUOTAS: QueuePolicy = {
  namespaceOf: () => '',
  quotaOf: () => ({ maxRunningJobs: 0, maxSlots: 0 }),
  usageOf: () => ({ runningJobs: 0, slots: 0 }),
};

/** Within a namespace: higher job.priority first, then submission order (then id, so any leader orders alike). */
function byPriority(a: JobMaster, b: JobMaster): number {
  return (
    b.job.env.jobPriority - a.job.env.jobPriority || a.submitTime - b.submitTime || (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0)
  );
}

/**
 * The pending queue: jobs wait here for slots. Each namespace has its own queue, ordered by
 * job priority then submission time; the namespaces take turns (round-robin, in name order from
 * the one after the namespace served last), so one team's burst does not hold another's jobs
 * back. A job that cannot start (its namespace is at its quota, or there are not enough free
 * slots) does not block the jobs behind it: each is tried in turn, and a smaller one that fits
 * starts. With REJECT a job that cannot get its slots, or whose namespace is at its quota, fails
 * with NoEnoughResource and a sentence naming what it lacks; with WAIT it stays PENDING and is
 * tried again when slots are released (and on a timer, for workers that join). A job that needs
 * more slots than its namespace's max-slots could ever give is refused with either strategy.
 * While the resource manager cannot be reached every job waits whatever the strategy, retried
 * with backoff; that wait is logged once. The order depends only on what the state store
 * records (namespace, priority, submission time), so a new leader that queues the recorded
 * PENDING jobs again rebuilds it.
 */
export class Scheduler {
  private readonly queue: JobMaster[] = [];
  private running = false;
  private again = false;
  private timer?: NodeJS.Timeout;
  /** Jobs whose wait was logged (cleared when they leave the queue). */
  private readonly told = new Set<string>();
  /** Consecutive attempts that found the resource manager unavailable (0: it answered). */
  private unavailableAttempts = 0;
  /** The namespace that got slots last: the round-robin goes on after it. */
  private lastServed?: string;

  constructor(
    private readonly resources: ResourceGateway,
    private readonly strategy: JobScheduleStrategy,
    private readonly retryMs = 2000,
    private readonly policy: QueuePolicy = NO_QUOTAS,
  ) {}

  submit(job: JobMaster): void {
    job.enqueue();
    this.queue.push(job);
    this.kick();
  }

  pendingCount(): number {
    return this.queue.length;
  }

  /** Jobs waiting, per namespace. */
  pendingByNamespace(): Map<string, number> {
    const out = new Map<string, number>();
    for (const j of this.queue) {
      const ns = this.policy.namespaceOf(j);
      out.set(ns, (out.get(ns) ?? 0) + 1);
    }
    return out;
  }

  /** The queue in the order jobs are tried: the namespaces' queues interleaved, round-robin. */
  order(): JobMaster[] {
    const byNs = new Map<string, JobMaster[]>();
    for (const j of this.queue) {
      const ns = this.policy.namespaceOf(j);
      byNs.set(ns, [...(byNs.get(ns) ?? []), j]);
    }
    const names = [...byNs.keys()].sort();
    const start = this.lastServed === undefined ? 0 : names.findIndex((n) => n > this.lastServed!);
    const turn = [...names.slice(Math.max(0, start)), ...names.slice(0, Math.max(0, start))];
    const lanes = turn.map((n) => byNs.get(n)!.sort(byPriority));
    const out: JobMaster[] = [];
    for (let i = 0; out.length < this.queue.length; i++) for (const lane of lanes) if (i < lane.length) out.push(lane[i]);
    return out;
  }

  /** Asks the scheduler to look at the queue again (slots were released, a worker joined). */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    detach(this.drain(), 'scheduling the queued jobs');
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private remove(job: JobMaster): void {
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    this.told.delete(job.jobId);
  }

  /** Why the job's namespace cannot take it now (undefined: it can), and whether it never could. */
  private overQuota(job: JobMaster): { reason: string; never: boolean } | undefined {
    const ns = this.policy.namespaceOf(job);
    const quota = this.policy.quotaOf(ns);
    const usage = this.policy.usageOf(ns);
    const need = job.job.slots;
    if (quota.maxSlots > 0 && need > quota.maxSlots)
      return { reason: `job ${job.jobId} needs ${need} slots, more than namespace ${ns}'s max-slots of ${quota.maxSlots}`, never: true };
    if (quota.maxRunningJobs > 0 && usage.runningJobs >= quota.maxRunningJobs)
      return {
        reason: `namespace ${ns} runs ${usage.runningJobs} jobs, its max-running-jobs of ${quota.maxRunningJobs}: job ${job.jobId} ${this.strategy === 'WAIT' ? 'waits' : 'is refused (job-schedule-strategy REJECT)'}`,
        never: false,
      };
    if (quota.maxSlots > 0 && usage.slots + need > quota.maxSlots)
      return {
        reason: `namespace ${ns}'s jobs hold ${usage.slots} of its max-slots of ${quota.maxSlots} and job ${job.jobId} needs ${need}: it ${this.strategy === 'WAIT' ? 'waits' : 'is refused (job-schedule-strategy REJECT)'}`,
        never: false,
      };
    return undefined;
  }

  private waits(job: JobMaster, reason: string): void {
    // Said once per job, not at every retry.
    if (!this.told.has(job.jobId)) log.info({ jobId: job.jobId, reason }, 'job waits');
    this.told.add(job.jobId);
  }

  private refuse(job: JobMaster, error: TidewayError): void {
    this.remove(job);
    if (!job.isEnded()) job.reject(serializeError(error));
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      do {
        this.again = false;
        let started = false;
        let waiting = false;
        for (const job of this.order()) {
          if (job.isEnded()) {
            this.remove(job);
            continue;
          }
          const over = this.overQuota(job);
          if (over) {
            if (over.never || this.strategy === 'REJECT')
              this.refuse(job, new TidewayError(ErrorCode.NO_ENOUGH_RESOURCE, over.reason, { jobId: job.jobId }));
            else {
              this.waits(job, over.reason);
              waiting = true;
            }
            continue;
          }
          const owners = job.pipelines.flatMap((p) => p.taskGroups.map((t) => `${p.pipelineId}/${t.index}`));
          try {
            const slots = await this.resources.apply(job.jobId, owners, job.job.env.tagFilter ?? {});
            this.resourcesAnswered();
            this.remove(job);
            if (job.isEnded()) {
              // Cancelled while its slots were being granted.
              await this.resources.release(
                job.jobId,
                slots.map((s) => s.slotId),
              );
              continue;
            }
            this.lastServed = this.policy.namespaceOf(job);
            void runForJob(job.jobId, () => job.run(slots)).catch((err: unknown) => log.error({ err, jobId: job.jobId }, 'job run failed'));
            // The next turn goes to the next namespace: the order is made again.
            started = true;
            break;
          } catch (err) {
            const e = err instanceof TidewayError ? err : new TidewayError(ErrorCode.INTERNAL, String((err as Error).message ?? err));
            if (e.code !== ErrorCode.NO_ENOUGH_RESOURCE && e.retryable) {
              this.waitForResources(e);
              return;
            }
            this.resourcesAnswered();
            if (e.code === ErrorCode.NO_ENOUGH_RESOURCE && this.strategy === 'WAIT') {
              this.waits(job, e.message);
              waiting = true;
              continue; // no head-of-line blocking: a job behind it may fit
            }
            this.refuse(job, e);
          }
        }
        if (started) this.again = true;
        else if (waiting) this.retryLater();
      } while (this.again);
    } finally {
      this.running = false;
    }
  }

  private retryLater(delayMs = this.retryMs): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), delayMs);
    this.timer.unref();
  }

  private waitForResources(e: TidewayError): void {
    if (this.unavailableAttempts === 0) log.warn({ reason: e.message }, 'waiting for the resource manager before scheduling jobs');
    this.retryLater(Math.max(50, backoffDelay(this.unavailableAttempts++, 200, this.retryMs)));
  }

  private resourcesAnswered(): void {
    if (this.unavailableAttempts > 0) log.info('the resource manager answers again; scheduling resumes');
    this.unavailableAttempts = 0;
  }
}
