/**
 * Per-job logs with HA (two coordinators on a Redis state store, one worker): the follower
 * answers `tideway logs` itself, with the leader's lines (asked over CoordinatorService) and the
 * worker's, and names no process as missing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobStatusToJSON } from '@tideway/contracts';
import { runCli } from '../conformance/cli-process.js';
import { startHaCluster, type HaCluster } from './ha-cluster.js';
import { fakeJob, jobFile, type ProcessName } from './test-cluster.js';

let ha: HaCluster;

beforeAll(async () => {
  ha = await startHaCluster({ workers: [{ attributes: {} }] });
}, 120_000);

afterAll(async () => {
  await ha?.stop();
});

it('the follower coordinator answers a job’s logs with the leader’s and the worker’s lines', async () => {
  const cluster = ha.cluster;
  let leader: ProcessName | undefined;
  await cluster.until('a leader', async () => (leader = await cluster.leaderName()) !== undefined, 30_000);
  const follower = cluster.coordinatorNames().find((n) => n !== leader)!;
  const file = jobFile(cluster, 'ha-logs.conf', fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10 }));
  const submitted = await cluster.cli(['-c', file, '--async']);
  expect(submitted.code, submitted.stderr).toBe(0);
  const jobId = submitted.stdout.trim();
  await cluster.until('the job FINISHED', async () => jobStatusToJSON((await cluster.job(jobId)).status) === 'FINISHED', 60_000);
  const res = await runCli(['logs', jobId, '--address', cluster.processes.address(follower)]);
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).not.toContain('missing');
  const lines = res.stdout.split('\n');
  expect(
    lines.some((l) => l.includes(`coordinator ${cluster.processes.address(leader!)}`) && l.includes('job submitted')),
    res.stdout,
  ).toBe(true);
  expect(lines.some((l) => l.includes(`worker ${cluster.processes.address('worker-1')}`) && l.includes('task group ended'))).toBe(true);
}, 120_000);
