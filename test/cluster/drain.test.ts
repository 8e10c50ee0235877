/**
 * Draining workers with real processes (issue 36 item 1): a STREAMING Sequence job into the
 * exactly-once LocalFile sink runs while a worker is drained with `tideway cluster drain`, while
 * another is sent SIGTERM (it drains itself, then exits 0), and while the first is undrained.
 * Its task groups move at a completed checkpoint, the moves count as no failure, and at the end
 * every row is committed once: nothing lost, nothing duplicated.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatusToJSON, type ClusterOverview, type WorkerInfo } from '@tideway/contracts';
import { checkSequenceOutput } from '../e2e/sequence-checker.js';
import { sequenceJob } from '../e2e/sequence-job.js';
import { TestCluster, fakeJob, jobFile, type ProcessName } from './test-cluster.js';

const KEYS = 4;
const ROWS_PER_KEY = 4000;

let cluster: TestCluster;
let jobId = '';
let out = '';

beforeAll(async () => {
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }, { attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    tidewayYaml: ['drain: { grace-period: 60000 }'],
  });
  out = join(cluster.dir, 'out');
  // Two task groups (source and sink fused, parallelism 2), job.retry.times 0: any restart that
  // counted as a failure would fail the job.
  const file = jobFile(
    cluster,
    'stream.conf',
    sequenceJob({ mode: 'STREAMING', keys: KEYS, rowsPerKey: ROWS_PER_KEY, rowsPerSecond: 300, out, env: 'job.retry.times = 0' }),
  );
  const res = await cluster.cli(['submit', '--async', '-c', file]);
  expect(res.code, res.stderr).toBe(0);
  jobId = res.stdout.trim();
  await cluster.until('a checkpoint completed', async () => (await cluster.job(jobId)).completedCheckpoints >= 1, 90_000);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

const overview = async () => JSON.parse((await cluster.cli(['overview'])).stdout) as ClusterOverview;
const status = async (id: string) => jobStatusToJSON((await cluster.job(id)).status);

/** The workers (process names) that hold a slot of the job now. */
async function jobWorkers(): Promise<ProcessName[]> {
  const held = (await cluster.workers()).filter((w) => w.assignedSlots.some((s) => s.jobId === jobId));
  return held.map((w) => cluster.nameAt(w.address)!);
}

/** Rows committed so far (seen), once they grew past `from`. */
async function rowsGrowPast(from: number): Promise<void> {
  await cluster.until(`committed rows past ${from}`, () => checkSequenceOutput(out, KEYS, ROWS_PER_KEY).seen > from, 60_000);
}

describe('tideway cluster drain', () => {
  let drained: ProcessName;

  it('moves the task groups of a running exactly-once job off the worker at a checkpoint, without a failure; the CLI waits until it is empty', {
    timeout: 120_000,
  }, async () => {
    drained = (await jobWorkers())[0];
    const address = cluster.addressOf(drained);
    const before = await cluster.job(jobId);
    const res = await cluster.cli(['cluster', 'drain', address], 90_000);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/is draining: \d slot\(s\) in use/);
    expect(res.stderr).toMatch(/is empty after [\d.]+ s/);
    const w = (await overview()).workers.find((x) => x.address === address)!;
    expect(w).toMatchObject({ draining: true, usedSlots: 0, freeSlots: 0 });
    expect(await jobWorkers()).not.toContain(drained);
    const job = await cluster.job(jobId);
    expect(jobStatusToJSON(job.status)).toBe('RUNNING');
    const moves = job.failovers.filter((f) => f.reason.includes(`moved off draining worker ${address} from checkpoint`));
    expect(moves.length).toBeGreaterThanOrEqual(1);
    expect(job.failovers.length - before.failovers.length).toBe(moves.length);
    expect(await cluster.metric('resource-manager', 'tideway_workers_draining')).toBe(1);
    // The worker's readiness probe says it drains.
    const ready = await fetch(`http://127.0.0.1:${cluster.metricsPorts.get(drained)}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/drains/);
    await rowsGrowPast(checkSequenceOutput(out, KEYS, ROWS_PER_KEY).seen);
  });

  it('a worker sent SIGTERM drains itself, then exits 0; its task groups moved, rows go on', { timeout: 120_000 }, async () => {
    const target = (await jobWorkers())[0];
    expect(target).not.toBe(drained);
    const startedAt = Date.now();
    const code = await cluster.kill(target, 'SIGTERM');
    console.log(`worker SIGTERM: drained and exited after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    expect(code).toBe(0);
    const log = cluster.logs.get(target) ?? '';
    expect(log).toContain('worker drained: stopping');
    expect(await status(jobId)).toBe('RUNNING');
    expect(
      (await cluster.job(jobId)).failovers.some((f) => f.reason.includes(`moved off draining worker ${cluster.addressOf(target)}`)),
    ).toBe(true);
    await rowsGrowPast(checkSequenceOutput(out, KEYS, ROWS_PER_KEY).seen);
    await cluster.startProcess(target);
    // The stopped worker's entry goes once its heartbeats are missed; the restarted one registers anew.
    await cluster.until('the restarted worker registered, the stopped one forgotten', async () => {
      const ws = await cluster.workers();
      return ws.length === 3 && ws.some((w) => w.address === cluster.addressOf(target));
    });
  });

  it('no new job gets a slot on a draining worker; undrain gives its slots again', { timeout: 120_000 }, async () => {
    // Every worker but the drained one is taken: the job's two task groups on one, and a
    // streaming job of two slots fills the other (a restarted worker registers as new).
    const workers = (await cluster.workers()).filter((w) => !w.draining);
    const free = workers.reduce((n, w) => n + (w.slotNum - w.assignedSlots.length), 0);
    expect(free).toBeGreaterThan(0);
    const filler = jobFile(cluster, 'filler.conf', fakeJob({ mode: 'STREAMING', parallelism: free, rowNum: 10, name: 'filler' }));
    const fill = await cluster.cli(['submit', '--async', '-c', filler]);
    expect(fill.code, fill.stderr).toBe(0);
    const fillerId = fill.stdout.trim();
    await cluster.until('the filler runs', async () => (await status(fillerId)) === 'RUNNING');
    const small = jobFile(cluster, 'small.conf', fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10, name: 'small' }));
    const res = await cluster.cli(['submit', '--async', '-c', small]);
    expect(res.code, res.stderr).toBe(0);
    const smallId = res.stdout.trim();
    await new Promise((r) => setTimeout(r, 3000));
    expect(await status(smallId)).toBe('PENDING');
    const undrain = await cluster.cli(['cluster', 'undrain', cluster.addressOf(drained)]);
    expect(undrain.code, undrain.stderr).toBe(0);
    expect(undrain.stderr).toContain('takes slots again');
    await cluster.until('the small job finished on the undrained worker', async () => (await status(smallId)) === 'FINISHED', 60_000);
    const w: WorkerInfo | undefined = (await overview()).workers.find((x) => x.address === cluster.addressOf(drained));
    expect(w?.draining).toBe(false);
    expect((await cluster.cli(['cancel', fillerId])).code).toBe(0);
  });

  it('every row of the streaming job is committed exactly once, and drain refuses an unknown worker in one sentence', {
    timeout: 150_000,
  }, async () => {
    await cluster.until('every row committed', () => checkSequenceOutput(out, KEYS, ROWS_PER_KEY).seen >= KEYS * ROWS_PER_KEY, 120_000);
    const report = checkSequenceOutput(out, KEYS, ROWS_PER_KEY);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: KEYS * ROWS_PER_KEY });
    expect(await status(jobId)).toBe('RUNNING');
    const bad = await cluster.cli(['cluster', 'drain', 'no-such-worker', '--no-wait']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no registered worker has the id or address 'no-such-worker'/);
    expect((await cluster.cli(['cancel', jobId])).code).toBe(0);
  });
});
