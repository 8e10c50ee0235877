import { ErrorCode, TidewayError, backoffDelay, detach, logger, serializeError } from '@tideway/common';
import type { ResourceGateway } from './gateways.js';
import type { JobMaster } from './job-master.js';

const log = logger('scheduler');

/** SeaTunnel's job-schedule-strategy. */
export type JobScheduleStrategy = 'WAIT' | 'REJECT';

/**
 * The pending queue: jobs wait here for slots, in submission order. With REJECT a job that
 * cannot get its slots fails with NoEnoughResource; with WAIT it stays PENDING and is tried
 * again when slots are released (and on a timer, for workers that join). While the resource
 * manager cannot be reached (not started yet, restarting, rebuilding its registry) every job
 * waits whatever the strategy, retried with backoff; that wait is logged once.
 */
export class Scheduler {
  private readonly queue: JobMaster[] = [];
  private running = false;
  private again = false;
  private timer?: NodeJS.Timeout;
  /** Jobs whose wait for slots was logged (cleared when they leave the queue). */
  private readonly told = new Set<string>();
  /** Consecutive attempts that found the resource manager unavailable (0: it answered). */
  private unavailableAttempts = 0;

  constructor(
    private readonly resources: ResourceGateway,
    private readonly strategy: JobScheduleStrategy,
    private readonly retryMs = 2000,
  ) {}

  submit(job: JobMaster): void {
    job.enqueue();
    this.queue.push(job);
    this.kick();
  }

  pendingCount(): number {
    return this.queue.length;
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

  private async drain(): Promise<void> {
    this.running = true;
    try {
      do {
        this.again = false;
        while (this.queue.length > 0) {
          const job = this.queue[0];
          if (job.isEnded()) {
            this.told.delete(this.queue.shift()!.jobId);
            continue;
          }
          const owners = job.pipelines.flatMap((p) => p.taskGroups.map((t) => `${p.pipelineId}/${t.index}`));
          try {
            const slots = await this.resources.apply(job.jobId, owners, job.job.env.tagFilter ?? {});
            this.resourcesAnswered();
            this.told.delete(this.queue.shift()!.jobId);
            if (job.isEnded()) {
              // Cancelled while its slots were being granted.
              await this.resources.release(
                job.jobId,
                slots.map((s) => s.slotId),
              );
              continue;
            }
            void job.run(slots).catch((err: unknown) => log.error({ err, jobId: job.jobId }, 'job run failed'));
          } catch (err) {
            const e = err instanceof TidewayError ? err : new TidewayError(ErrorCode.INTERNAL, String((err as Error).message ?? err));
            if (e.code !== ErrorCode.NO_ENOUGH_RESOURCE && e.retryable) {
              this.waitForResources(e);
              return;
            }
            this.resourcesAnswered();
            if (e.code === ErrorCode.NO_ENOUGH_RESOURCE && this.strategy === 'WAIT') {
              // Said once per job, not at every retry.
              if (!this.told.has(job.jobId)) log.info({ jobId: job.jobId, reason: e.message }, 'job waits for slots');
              this.told.add(job.jobId);
              this.retryLater();
              return;
            }
            this.told.delete(this.queue.shift()!.jobId);
            if (!job.isEnded()) job.reject(serializeError(e));
          }
        }
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
