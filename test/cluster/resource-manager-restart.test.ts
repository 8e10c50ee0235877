import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatusToJSON } from '@tideway/contracts';
import { call } from '@tideway/rpc';
import { TestCluster, fakeJob } from './test-cluster.js';

/**
 * Process failures that must not disturb running jobs: the resource manager killed with
 * SIGKILL and restarted rebuilds its registry from worker heartbeats (the slots they hold);
 * a worker that stops heartbeating is declared lost and the coordinator is told.
 */
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    heartbeatMs: 300,
    heartbeatTimeoutMs: 2500,
  });
});

afterAll(async () => {
  await cluster?.stop();
});

const submit = async (text: string) =>
  (
    await call(cluster.jobs, 'submitJob', {
      configText: text,
      configFile: 'job.conf',
      format: 'hocon',
      variables: {},
      jobName: '',
      jobId: '',
      restoreJobId: '',
      restoreWithCheckpoint: '',
    })
  ).jobId;

const rowsRead = async (jobId: string) => (await call(cluster.jobs, 'getJobMetrics', { jobId })).sourceReceivedCount;

describe('resource manager restart and lost workers', () => {
  it('a resource manager killed with SIGKILL and restarted does not disturb a running streaming job, and never grants a held slot again', {
    timeout: 120_000,
  }, async () => {
    // 400 splits of 100 rows, one per 250 ms per reader: rows keep coming for about 50 s.
    const streaming = await submit(fakeJob({ mode: 'STREAMING', parallelism: 2, rowNum: 40_000, splitNum: 400, readIntervalMs: 250 }));
    await cluster.until('job running', async () => jobStatusToJSON((await cluster.job(streaming)).status) === 'RUNNING');
    await cluster.until('rows read', async () => (await rowsRead(streaming)) > 0);
    const held = (await cluster.workers()).flatMap((w) => w.assignedSlots.map((s) => s.slotId)).sort();
    expect(held).toHaveLength(2);

    // (A resource manager that just started grants no slot for three heartbeats, so the first
    // job of the cluster may have waited already.)
    const waitLine = 'waiting for the resource manager before scheduling jobs';
    const waitsBefore = cluster.logLines('coordinator', waitLine);
    await cluster.kill('resource-manager', 'SIGKILL');
    const beforeRestart = await rowsRead(streaming);
    // Submitted while the resource manager is down: the scheduler waits for it.
    const small = await submit(fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10 }));
    await cluster.until('coordinator says it waits', () => cluster.logLines('coordinator', waitLine) === waitsBefore + 1);
    await cluster.startProcess('resource-manager');

    // The registry is rebuilt from heartbeats: both workers, with the job's slots.
    await cluster.until('registry rebuilt', async () => {
      const workers = await cluster.workers();
      return (
        workers.length === 2 && workers.flatMap((w) => w.assignedSlots.map((s) => s.slotId)).filter((id) => held.includes(id)).length === 2
      );
    });
    await cluster.until('the waiting job ran', async () => jobStatusToJSON((await cluster.job(small)).status) === 'FINISHED');
    expect(cluster.logLines('coordinator', waitLine)).toBe(waitsBefore + 1);
    for (const w of ['worker-1', 'worker-2'] as const)
      expect(cluster.logLines(w, 'waiting for the resource manager: heartbeats fail')).toBe(1);

    // A job that wants three of the four slots waits: the running job's two slots, known
    // again from the workers' heartbeats, are not handed out twice.
    const greedy = await submit(fakeJob({ mode: 'BATCH', parallelism: 3, rowNum: 10 }));
    // The scheduler retries every 2 s: by then it has asked the rebuilt registry at least once.
    await new Promise((r) => setTimeout(r, 3000));
    expect(jobStatusToJSON((await cluster.job(greedy)).status)).toBe('PENDING');

    const job = await cluster.job(streaming);
    expect(jobStatusToJSON(job.status)).toBe('RUNNING');
    expect(job.pipelines.every((p) => p.attempt === 0)).toBe(true);
    await cluster.until('metrics keep growing', async () => (await rowsRead(streaming)) > beforeRestart);

    await call(cluster.jobs, 'cancelJob', { jobId: greedy });
    await call(cluster.jobs, 'cancelJob', { jobId: streaming });
    await cluster.until('streaming job cancelled', async () => jobStatusToJSON((await cluster.job(streaming)).status) === 'CANCELED');
    await cluster.until('all slots free', async () => (await cluster.metric('resource-manager', 'tideway_slots_used')) === 0);
  });

  it('a worker that misses heartbeats is declared lost and the coordinator is told', async () => {
    await cluster.kill('worker-2', 'SIGKILL');
    await cluster.until('worker declared lost', async () => (await cluster.metric('resource-manager', 'tideway_workers_lost_total')) === 1);
    await cluster.until(
      'coordinator told',
      async () => (await cluster.metric('coordinator', 'tideway_coordinator_workers_lost_total')) === 1,
    );
    expect(await cluster.metric('resource-manager', 'tideway_workers')).toBe(1);
    expect(cluster.logs.get('coordinator')).toMatch(/"msg":"worker lost"/);
  });
});
