import { describe, expect, it } from 'vitest';
import { planJobText } from '@tideway/planner';
import { FakeResources, FakeWorkers, MemoryStorage, ackState as state, slot, tick } from './gateway-fakes.js';
import { JobMaster } from './job-master.js';

const CONFIG = `
env { job.mode = "BATCH", parallelism = 2, job.retry.times = 1, job.retry.interval.seconds = 0 }
source { FakeSource { row.num = 10, schema = { fields { id = "int" } } } }
sink { Console {} }
`;

async function newJob() {
  const planned = await planJobText(CONFIG, { jobId: 'j1', file: 'job.conf' });
  const workers = new FakeWorkers();
  const storage = new MemoryStorage();
  const statuses: string[] = [];
  const released: string[][] = [];
  const job = new JobMaster(
    planned,
    { workers, resources: new FakeResources(), storage },
    { onJobStatus: (j) => statuses.push(j.status), onPipelineEnded: (_j, ids) => released.push(ids) },
    { checkpoint: { intervalMs: 0, timeoutMs: 1000, minPauseMs: 0 }, retryTimes: planned.env.jobRetryTimes, retryIntervalMs: 0 },
  );
  return { job, workers, storage, statuses, released, slots: [slot('j1', 0), slot('j1', 1)] };
}

/** Drives a pipeline's task groups as workers would: running, done reading, final checkpoint, finished. */
async function finishAll(job: JobMaster, workers: FakeWorkers, attempt = 0): Promise<void> {
  const p = job.pipelines[0];
  for (const i of [0, 1]) p.onTaskState(i, attempt, 'RUNNING');
  for (const i of [0, 1]) p.onTaskState(i, attempt, 'PREPARE_CLOSE');
  await tick();
  const final = workers.triggered.filter((t) => t.kind === 'COMPLETED_POINT' && t.loc.attempt === attempt);
  expect(final).toHaveLength(2);
  for (const t of final) await p.onAck(t.loc.taskGroupIndex, attempt, t.id, state, {});
  await tick();
  for (const i of [0, 1]) p.onTaskState(i, attempt, 'FINISHED');
  await tick();
}

describe('JobMaster', () => {
  it('runs a batch job to FINISHED through a final checkpoint and frees its slots', async () => {
    const { job, workers, statuses, released, slots, storage } = await newJob();
    job.enqueue();
    await job.run(slots);
    expect(workers.deployed).toHaveLength(2);
    await finishAll(job, workers);
    expect(job.status).toBe('FINISHED');
    expect(statuses).toEqual(['PENDING', 'SCHEDULED', 'RUNNING', 'FINISHED']);
    expect(released).toEqual([['s0', 's1']]);
    expect(storage.stored.map((c) => c.kind)).toEqual(['COMPLETED_POINT']);
  });

  it('restarts a failed pipeline from its latest checkpoint, then finishes', async () => {
    const { job, workers, slots } = await newJob();
    job.enqueue();
    await job.run(slots);
    const p = job.pipelines[0];
    for (const i of [0, 1]) p.onTaskState(i, 0, 'RUNNING');
    p.onTaskState(0, 0, 'FAILED', { code: 'TW-TASK-001', message: 'boom', retryable: true });
    expect(workers.cancelled.map((l) => l.taskGroupIndex)).toEqual([1]);
    p.onTaskState(1, 0, 'CANCELED');
    await tick(30);
    expect(p.attempt).toBe(1);
    expect(workers.deployed.filter((l) => l.attempt === 1)).toHaveLength(2);
    expect(job.status).toBe('RUNNING');
    await finishAll(job, workers, 1);
    expect(job.status).toBe('FINISHED');
  });

  it('a pipeline restarted after a checkpoint deploys its task groups waiting for their state, then sends it by NotifyTaskRestore', async () => {
    const { job, workers, slots } = await newJob();
    job.enqueue();
    await job.run(slots);
    const p = job.pipelines[0];
    for (const i of [0, 1]) p.onTaskState(i, 0, 'RUNNING');
    const cp = p.checkpoints.trigger('CHECKPOINT');
    await tick();
    for (const t of workers.triggered.filter((x) => x.kind === 'CHECKPOINT')) await p.onAck(t.loc.taskGroupIndex, 0, t.id, state, {});
    expect(await cp).toBe(true);
    p.onTaskState(0, 0, 'FAILED', { code: 'TW-TASK-001', message: 'boom', retryable: true });
    p.onTaskState(1, 0, 'CANCELED');
    await tick(30);
    expect(p.attempt).toBe(1);
    expect(workers.deployedFrom.slice(-2)).toEqual([1, 1]);
    expect(workers.restored.map((r) => [r.loc.taskGroupIndex, r.loc.attempt, r.id]).sort()).toEqual([
      [0, 1, 1],
      [1, 1, 1],
    ]);
    expect(p.completedCheckpoints).toBe(1);
  });

  it('fails at once on an error a restart cannot cure, with the cause', async () => {
    const { job, slots } = await newJob();
    job.enqueue();
    await job.run(slots);
    const p = job.pipelines[0];
    for (const i of [0, 1]) p.onTaskState(i, 0, 'RUNNING');
    p.onTaskState(0, 0, 'FAILED', { code: 'TW-DATA-001', message: "cannot cast 'x' to int", retryable: false });
    p.onTaskState(1, 0, 'CANCELED');
    await tick(30);
    expect(p.attempt).toBe(0);
    expect(job.status).toBe('FAILED');
    expect(job.error?.message).toContain("cannot cast 'x'");
  });

  it('fails when restarts are used up (job.retry.times)', async () => {
    const { job, slots } = await newJob();
    job.enqueue();
    await job.run(slots);
    const p = job.pipelines[0];
    for (const attempt of [0, 1]) {
      for (const i of [0, 1]) p.onTaskState(i, attempt, 'RUNNING');
      p.onTaskState(0, attempt, 'FAILED', { code: 'TW-TASK-001', message: `boom ${attempt}`, retryable: true });
      p.onTaskState(1, attempt, 'CANCELED');
      await tick(30);
    }
    expect(job.status).toBe('FAILED');
    expect(p.restarts).toBe(1);
  });

  it('cancels before scheduling (SeaTunnel #6881): CANCELED at once, nothing deployed', async () => {
    const { job, workers } = await newJob();
    job.enqueue();
    job.cancel();
    expect(job.status).toBe('CANCELED');
    expect(workers.deployed).toHaveLength(0);
  });

  it('cancels a running job: every task group is told, the job ends CANCELED, slots freed', async () => {
    const { job, workers, slots, released } = await newJob();
    job.enqueue();
    await job.run(slots);
    const p = job.pipelines[0];
    for (const i of [0, 1]) p.onTaskState(i, 0, 'RUNNING');
    job.cancel();
    expect(job.status).toBe('CANCELING');
    expect(workers.cancelled).toHaveLength(2);
    for (const i of [0, 1]) p.onTaskState(i, 0, 'CANCELED');
    await tick();
    expect(job.status).toBe('CANCELED');
    expect(released).toEqual([['s0', 's1']]);
  });

  it('stop-with-savepoint ends SAVEPOINT_DONE and frees slots (SeaTunnel #11473)', async () => {
    const { job, workers, slots, released, storage } = await newJob();
    job.enqueue();
    await job.run(slots);
    const p = job.pipelines[0];
    for (const i of [0, 1]) p.onTaskState(i, 0, 'RUNNING');
    const sp = job.savepoint();
    await tick();
    expect(job.status).toBe('DOING_SAVEPOINT');
    for (const t of workers.triggered.filter((x) => x.kind === 'SAVEPOINT')) await p.onAck(t.loc.taskGroupIndex, 0, t.id, state, {});
    expect(await sp).toEqual([1]);
    for (const i of [0, 1]) p.onTaskState(i, 0, 'FINISHED');
    await tick();
    expect(job.status).toBe('SAVEPOINT_DONE');
    expect(released).toEqual([['s0', 's1']]);
    expect(storage.stored[0].kind).toBe('SAVEPOINT');
  });

  it('a savepoint asked for while the task groups still deploy waits for them, then completes', async () => {
    const { job, workers, slots } = await newJob();
    job.enqueue();
    await job.run(slots);
    const p = job.pipelines[0];
    expect(p.status).toBe('DEPLOYING');
    const sp = job.savepoint();
    await tick(100);
    expect(workers.triggered).toHaveLength(0);
    for (const i of [0, 1]) p.onTaskState(i, 0, 'RUNNING');
    await tick(100);
    for (const t of workers.triggered.filter((x) => x.kind === 'SAVEPOINT')) await p.onAck(t.loc.taskGroupIndex, 0, t.id, state, {});
    expect(await sp).toEqual([1]);
  });

  it('a savepoint that times out leaves the job RUNNING, not stuck in DOING_SAVEPOINT', async () => {
    const { job, slots } = await newJob();
    job.enqueue();
    await job.run(slots);
    for (const i of [0, 1]) job.pipelines[0].onTaskState(i, 0, 'RUNNING');
    await expect(job.savepoint()).rejects.toThrow(/savepoint of job j1 failed/);
    expect(job.status).toBe('RUNNING');
  }, 5000);
});
