/**
 * Backpressure and busyness (Flink's busy/idle/backPressured ms per second) on a real cluster
 * (one worker, 3 slots, the REST API and dashboard on): a fast FakeSource feeds a slow Console
 * sink (a delay per row) through a shuffle (the sink's parallelism differs), so the source's task
 * group spends most of its time waiting for credits, and each sink's input queue is full. The
 * shares and fills are read from JobMetrics, the coordinator's Prometheus series, and the
 * dashboard's DAG and task-group table in headless Chromium (screenshot kept).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { call } from '@tideway/rpc';
import type { TaskBusyness } from '@tideway/contracts';
import { freePort } from '@tideway/testing';
import { artefactDir, launchChromium } from '../dashboard/browser.js';
import { TestCluster, jobFile } from './test-cluster.js';

let cluster: TestCluster;
let base = '';
let browser: Browser | undefined;

beforeAll(async () => {
  const port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 3,
    jobScheduleStrategy: 'WAIT',
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: false'],
  });
  base = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
});

const SLOW_SINK_JOB = `env {
  job.mode = "STREAMING"
  parallelism = 1
}
source {
  FakeSource {
    plugin_output = "fake"
    row.num = 10000000
    split.num = 1
    split.read-interval = 1
    schema = { fields { id = "int", name = "string" } }
  }
}
sink {
  Console { plugin_input = "fake", parallelism = 2, log.print.data = false, log.print.delay.ms = 20 }
}
`;

it('a slow sink shows its source back-pressured: in JobMetrics, Prometheus and the dashboard’s DAG', async () => {
  const res = await cluster.cli(['-c', jobFile(cluster, 'slow-sink.conf', SLOW_SINK_JOB), '--async']);
  expect(res.code, res.stderr).toBe(0);
  const jobId = res.stdout.trim();
  const job = await cluster.job(jobId);
  const source = job.vertices.find((v) => v.type === 'source')!;
  const sink = job.vertices.find((v) => v.type === 'sink')!;
  const tasks = async () => (await cluster.leader((c) => call(c, 'getJobMetrics', { jobId }))).tasks;
  const of = (ts: TaskBusyness[], vertexId: number) => ts.filter((t) => t.vertexIds.includes(vertexId));
  // The source's task group: mostly waiting on full output channels, which are full.
  await cluster.until(
    'the source task group reported back-pressured most of its time',
    async () => of(await tasks(), source.vertexId).some((t) => t.backPressuredMsPerSecond > 500),
    60_000,
  );
  const now = await tasks();
  const [src] = of(now, source.vertexId);
  expect(src.backPressuredMsPerSecond + src.busyMsPerSecond + src.idleMsPerSecond).toBeCloseTo(1000, -1);
  expect(src.outPoolUsage).toBeGreaterThan(0.5);
  // The source's task group has no input queue (its reader feeds it by function call).
  expect(src.inPoolUsage).toBe(0);
  expect(src.inQueueCapacity).toBe(0);
  // The sinks are busy writing (a sink's own waits are its work), never back-pressured.
  const sinks = of(now, sink.vertexId);
  expect(sinks).toHaveLength(2);
  for (const s of sinks) {
    expect(s.backPressuredMsPerSecond).toBe(0);
    expect(s.busyMsPerSecond).toBeGreaterThan(s.backPressuredMsPerSecond);
  }
  // Each sink's input queue (one channel from the one source task group, 16 batches) fills up:
  // the source sends while it has credits, the sink takes a batch per 20 ms a row.
  await cluster.until(
    "every sink task group's input queue reported full",
    async () => {
      const ts = of(await tasks(), sink.vertexId);
      return ts.length === 2 && ts.every((t) => t.inPoolUsage > 0.5 && t.inQueueCapacity === 16);
    },
    60_000,
  );
  const [firstSink] = of(await tasks(), sink.vertexId);
  expect(firstSink.inQueueBatches / firstSink.inQueueCapacity).toBeCloseTo(firstSink.inPoolUsage, 5);
  // Prometheus: the coordinator's series of the source's task group.
  const bp = await cluster.metric(
    'coordinator',
    `tideway_task_back_pressured_time_ms_per_second{job_id="${jobId}",pipeline="1",task_group="${src.taskGroupIndex}"}`,
  );
  expect(bp).toBeGreaterThan(0);
  const inPool = await cluster.metric(
    'coordinator',
    `tideway_task_in_pool_usage{job_id="${jobId}",pipeline="1",task_group="${firstSink.taskGroupIndex}"}`,
  );
  expect(inPool).toBeGreaterThan(0);

  // The dashboard's DAG paints the source as back-pressured.
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${base}/ui/#/job/${jobId}`);
  const vertex = page.locator(`svg.dag g[data-vertex="${source.vertexId}"]`);
  await expect.poll(async () => Number(await vertex.getAttribute('data-back-pressured')), { timeout: 30_000 }).toBeGreaterThan(50);
  expect(await vertex.getAttribute('class')).toContain('back-pressured');
  const sinkVertex = page.locator(`svg.dag g[data-vertex="${sink.vertexId}"]`);
  expect(Number(await sinkVertex.getAttribute('data-back-pressured'))).toBe(0);
  // The sink's input queue, on its vertex and in the task-group table; the source has none.
  await expect.poll(async () => Number(await sinkVertex.getAttribute('data-in-pool')), { timeout: 30_000 }).toBeGreaterThan(50);
  expect(await vertex.getAttribute('data-in-pool')).toBe('0');
  const sinkRow = page.locator(`tr[data-task-group="${firstSink.taskGroupIndex}"]`);
  await expect
    .poll(async () => Number(await sinkRow.locator('td[data-in-pool]').getAttribute('data-in-pool')), { timeout: 30_000 })
    .toBeGreaterThan(50);
  expect(await sinkRow.locator('td[data-in-pool]').textContent()).toMatch(/^\d+% \(\d+\/16 batches\)$/);
  expect(await page.locator(`tr[data-task-group="${src.taskGroupIndex}"] td[data-in-pool]`).textContent()).toBe('—');
  await page.screenshot({ path: join(artefactDir('backpressure'), 'slow-sink.png'), fullPage: true });

  const cancelled = await cluster.cli(['-can', jobId]);
  expect(cancelled.code, cancelled.stderr).toBe(0);
}, 120_000);
