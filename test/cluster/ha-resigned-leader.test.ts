/**
 * Found by `tideway chaos` (50-kill LocalFile run of 2026-12-01, kills 27-28): a leader paused
 * (SIGSTOP) past its lease and resumed steps down through its fence ("stepping down: this
 * coordinator no longer leads"), and from then on never contends for the lease again
 * (libs/cluster/src/redlock-election-restart.test.ts shows why). When the coordinator that
 * took over is then killed, the cluster has no leader: the job stalls until a coordinator is
 * started again.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatusToJSON } from '@tideway/contracts';
import { startRedis, type TestServer } from '@tideway/testing';
import { checkSequenceOutput } from '../e2e/sequence-checker.js';
import { sequenceJob } from '../e2e/sequence-job.js';
import { TestCluster, jobFile, type ProcessName } from './test-cluster.js';

let redis: TestServer;
let cluster: TestCluster;

beforeAll(async () => {
  redis = await startRedis({ appendOnly: true });
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }, { attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    coordinators: 2,
    ha: { state: redis, leaseTtlMs: 2000, retryIntervalMs: 200 },
  });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await redis?.stop();
});

async function leader(): Promise<ProcessName> {
  let name: ProcessName | undefined;
  await cluster.until('a leader', async () => (name = await cluster.leaderName()) !== undefined, 30_000);
  return name!;
}

describe('a resumed leader that stepped down', () => {
  it('takes the lease again when the coordinator that replaced it dies', { timeout: 180_000 }, async () => {
    const out = join(cluster.dir, 'resigned');
    const file = jobFile(cluster, 'resigned.conf', sequenceJob({ mode: 'BATCH', keys: 4, rowsPerKey: 4000, rowsPerSecond: 400, out, env: 'job.retry.times = 10\n  job.retry.interval.seconds = 0' }));
    const res = await cluster.cli(['submit', '--async', '-c', file]);
    expect(res.code, res.stderr).toBe(0);
    const jobId = res.stdout.trim();
    await cluster.until('a checkpoint completed', async () => (await cluster.job(jobId)).completedCheckpoints >= 2);
    const paused = await leader();
    const other = cluster.coordinatorNames().find((n) => n !== paused)!;
    cluster.signal(paused, 'SIGSTOP');
    await cluster.until('the other coordinator leads', async () => (await cluster.metric(other, 'tideway_coordinator_leader')) === 1, 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    cluster.signal(paused, 'SIGCONT');
    await cluster.until('the resumed coordinator follows', async () => (await cluster.metric(paused, 'tideway_coordinator_leader')) === 0, 30_000);
    await cluster.kill(other, 'SIGKILL');
    // The only coordinator left must take the free lease within a few leases.
    await cluster.until('the resumed coordinator leads again', async () => (await cluster.metric(paused, 'tideway_coordinator_leader')) === 1, 20_000);
    await cluster.until('job finished', async () => jobStatusToJSON((await cluster.job(jobId)).status) === 'FINISHED', 120_000);
    const report = checkSequenceOutput(out, 4, 4000);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 16000 });
    await cluster.startProcess(other);
  });
});
