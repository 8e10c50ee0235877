/**
 * Every process's /metrics passes `promtool check metrics` (Debian's prometheus package; its
 * linter flags, among others, gauges named like counters: `_total`), with a job's series present.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestCluster, fakeJob, jobFile, type ProcessName } from './test-cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await TestCluster.start({ workers: [{ attributes: {} }], slotNum: 2, jobScheduleStrategy: 'WAIT' });
  const res = await cluster.cli(['submit', '-c', jobFile(cluster, 'job.conf', fakeJob({ mode: 'BATCH', parallelism: 1, rowNum: 10 }))]);
  expect(res.code, res.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

it.each<ProcessName>(['coordinator', 'resource-manager', 'worker-1'])('%s: promtool check metrics finds nothing', async (name) => {
  const text = await cluster.metrics(name);
  if (name === 'coordinator') expect(text).toMatch(/^tideway_job_rows_read_total\{/m);
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  expect(lint.error, 'promtool missing: bash scripts/ensure-client-tools.sh').toBeUndefined();
  expect(`${lint.stdout}${lint.stderr}`.trim()).toBe('');
  expect(lint.status).toBe(0);
});
