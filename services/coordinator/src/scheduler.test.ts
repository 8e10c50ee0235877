import { describe, expect, it } from 'vitest';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { SlotProfile } from '@tideway/contracts';
import { planJobText } from '@tideway/planner';
import { FakeWorkers, MemoryStorage, slot, tick, until } from './gateway-fakes.js';
import type { ResourceGateway } from './gateways.js';
import { JobMaster } from './job-master.js';
import { Scheduler, type JobScheduleStrategy, type QueuePolicy, type Quota } from './scheduler.js';

/** A resource manager with `free` slots: a request for more answers NoEnoughResource, as the real one does. */
class CountedResources implements ResourceGateway {
  private granted = 0;
  constructor(public free: number) {}
  async apply(jobId: string, owners: string[]): Promise<SlotProfile[]> {
    if (owners.length > this.free)
      throw new TidewayError(ErrorCode.NO_ENOUGH_RESOURCE, `job ${jobId} needs ${owners.length} slots, ${this.free} are free`, {
        retryable: true,
      });
    this.free -= owners.length;
    return owners.map((o) => slot(jobId, this.granted++, o));
  }
  async release(_jobId: string, slotIds: string[]): Promise<void> {
    this.free += slotIds.length;
  }
}

interface Setup {
  strategy?: JobScheduleStrategy;
  free?: number;
  quotas?: Record<string, Partial<Quota>>;
}

/** A scheduler over real JobMasters (FakeSource -> Console) and a hand-written quota policy that counts started jobs. */
function harness(s: Setup = {}) {
  const resources = new CountedResources(s.free ?? 100);
  const namespaces = new Map<string, string>();
  const started: string[] = [];
  const running = new Map<string, number>();
  const policy: QueuePolicy = {
    namespaceOf: (job) => namespaces.get(job.jobId) ?? '',
    quotaOf: (ns) => ({ maxRunningJobs: s.quotas?.[ns]?.maxRunningJobs ?? 0, maxSlots: s.quotas?.[ns]?.maxSlots ?? 0 }),
    usageOf: (ns) => {
      const mine = [...running].filter(([id]) => namespaces.get(id) === ns);
      return { runningJobs: mine.length, slots: mine.reduce((n, [, slots]) => n + slots, 0) };
    },
  };
  const scheduler = new Scheduler(resources, s.strategy ?? 'WAIT', 50, policy);
  let submitTime = 1000;
  const jobs = new Map<string, JobMaster>();
  const submit = async (jobId: string, ns: string, opts: { parallelism?: number; priority?: number } = {}) => {
    const planned = await planJobText(
      `env { job.mode = "STREAMING", parallelism = ${opts.parallelism ?? 1}, job.priority = ${opts.priority ?? 0} }
source { FakeSource { schema = { fields { id = "int" } } } }
sink { Console {} }`,
      { jobId, file: 'job.conf' },
    );
    namespaces.set(jobId, ns);
    const job = new JobMaster(
      planned,
      { workers: new FakeWorkers(), resources, storage: new MemoryStorage(), submitTime: submitTime++ },
      {
        onJobStatus: (j) => {
          if (j.status === 'SCHEDULED') {
            started.push(j.jobId);
            running.set(j.jobId, j.job.slots);
          }
        },
        onPipelineEnded: () => undefined,
      },
      { checkpoint: { intervalMs: 0, timeoutMs: 1000, minPauseMs: 0 }, retryTimes: 0, retryIntervalMs: 0 },
    );
    jobs.set(jobId, job);
    scheduler.submit(job);
    return job;
  };
  /** A started job ends: its slots and its place in the quota come back. */
  const finish = async (jobId: string) => {
    await resources.release(
      jobId,
      Array.from({ length: running.get(jobId) ?? 0 }, (_, i) => `x${i}`),
    );
    running.delete(jobId);
    scheduler.kick();
  };
  return { scheduler, resources, started, submit, finish, jobs };
}

describe('the queue: fair between namespaces, within their quotas', () => {
  it('interleaves the namespaces round-robin, each in submission order', async () => {
    const h = harness({ free: 0 });
    for (const id of ['a1', 'a2', 'a3']) await h.submit(id, 'team-a');
    for (const id of ['b1', 'b2']) await h.submit(id, 'team-b');
    expect(h.scheduler.order().map((j) => j.jobId)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
    // The passes that found no free slot are over; then slots free up.
    await tick(100);
    h.resources.free = 100;
    h.scheduler.kick();
    await until(() => h.started.length === 5, 'every job started');
    expect(h.started).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('orders a namespace by job.priority, then submission', async () => {
    const h = harness({ free: 0 });
    await h.submit('low', 'team-a');
    await h.submit('high', 'team-a', { priority: 5 });
    await h.submit('mid', 'team-a', { priority: 1 });
    expect(h.scheduler.order().map((j) => j.jobId)).toEqual(['high', 'mid', 'low']);
  });

  it('a job that does not fit does not block a smaller one behind it (no head-of-line blocking)', async () => {
    const h = harness({ free: 2 });
    await h.submit('big', 'team-a', { parallelism: 4 });
    await h.submit('small', 'team-a', { parallelism: 2 });
    await until(() => h.started.includes('small'), 'the small job started');
    expect(h.jobs.get('big')!.status).toBe('PENDING');
    await h.finish('small');
    h.resources.free = 4;
    h.scheduler.kick();
    await until(() => h.started.includes('big'), 'the big job started once slots were free');
  });

  it('WAIT: a namespace at max-running-jobs waits while another namespace runs; it starts when one of its jobs ends', async () => {
    const h = harness({ quotas: { 'team-a': { maxRunningJobs: 1 } } });
    await h.submit('a1', 'team-a');
    await h.submit('a2', 'team-a');
    await h.submit('b1', 'team-b');
    await until(() => h.started.includes('b1'), 'team-b ran');
    expect(h.started).toEqual(['a1', 'b1']);
    expect(h.jobs.get('a2')!.status).toBe('PENDING');
    await h.finish('a1');
    await until(() => h.started.includes('a2'), 'a2 started once a1 ended');
  });

  it('REJECT: a job over its namespace quota fails with a sentence naming the quota', async () => {
    const h = harness({ strategy: 'REJECT', quotas: { 'team-a': { maxSlots: 3 } } });
    await h.submit('a1', 'team-a', { parallelism: 2 });
    await h.submit('a2', 'team-a', { parallelism: 2 });
    await until(() => h.jobs.get('a2')!.status === 'FAILED', 'a2 refused');
    expect(h.jobs.get('a2')!.error?.message).toBe(
      "namespace team-a's jobs hold 2 of its max-slots of 3 and job a2 needs 2: it is refused (job-schedule-strategy REJECT)",
    );
    expect(h.jobs.get('a2')!.error?.code).toBe(ErrorCode.NO_ENOUGH_RESOURCE);
  });

  it('a job needing more slots than its namespace may ever hold is refused even with WAIT', async () => {
    const h = harness({ quotas: { 'team-a': { maxSlots: 2 } } });
    await h.submit('huge', 'team-a', { parallelism: 3 });
    await until(() => h.jobs.get('huge')!.status === 'FAILED', 'refused');
    expect(h.jobs.get('huge')!.error?.message).toBe("job huge needs 3 slots, more than namespace team-a's max-slots of 2");
  });
});
