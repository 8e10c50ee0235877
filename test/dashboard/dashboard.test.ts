/**
 * Tideway's dashboard in a real headless Chromium against a real cluster (coordinator, resource
 * manager, one worker with 2 slots) started by `tideway cluster start` with
 * `seatunnel.engine.http` under a context path: the pages render, a submitted job appears and
 * its rows/s move (pushed from WatchJob), cancel works. Screenshots are kept under
 * test/artefacts/dashboard (the path is printed).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { UI_DIST } from '../../services/rest-api/src/dashboard/dashboard-routes.js';
import { TestCluster, fakeJob } from '../cluster/test-cluster.js';
import { freePort } from '@tideway/testing';
import { artefactDir, launchChromium } from './browser.js';

let cluster: TestCluster;
let browser: Browser;
let page: Page;
let base = '';
const shots = artefactDir('dashboard');

beforeAll(async () => {
  expect(existsSync(join(UI_DIST, 'index.html')), `the dashboard bundle is missing at ${UI_DIST}: run pnpm build`).toBe(true);
  const port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: { group: 'ui' } }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  context-path: /seatunnel', '  enable-dynamic-port: false'],
  });
  base = `http://127.0.0.1:${port}/seatunnel`;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  process.stdout.write(`dashboard screenshots: ${shots}\n`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
});

async function submit(text: string, name: string): Promise<string> {
  const res = await fetch(`${base}/submit-job?format=hocon&jobName=${name}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: text,
  });
  const body = (await res.json()) as { jobId: string; message?: string };
  expect(res.status, body.message).toBe(200);
  return body.jobId;
}

/**
 * A streaming job whose Sql transform drops the rows with an amount that is not a number (row-level
 * error handling, mode LOG): 8 rows, 3 bad. FakeSource keeps running after its rows in STREAMING.
 */
const BAD_ROWS_JOB = `env {
  job.mode = "STREAMING"
  parallelism = 1
  transform_error_handler { mode = "LOG", max_error_records = 100 }
}
source {
  FakeSource {
    plugin_output = "src"
    schema = { fields { id = "int", amount = "string" } }
    rows = [
      { kind = INSERT, fields = [1, "10"] },
      { kind = INSERT, fields = [2, "x2"] },
      { kind = INSERT, fields = [3, "30"] },
      { kind = INSERT, fields = [4, "x4"] },
      { kind = INSERT, fields = [5, "50"] },
      { kind = INSERT, fields = [6, "60"] },
      { kind = INSERT, fields = [7, "x7"] },
      { kind = INSERT, fields = [8, "80"] }
    ]
  }
}
transform {
  Sql { plugin_input = "src", plugin_output = "out", query = "select id, CAST(amount AS INT) as amount from src" }
}
sink {
  Console { plugin_input = "out", log.print.data = false }
}
`;

/** The rows read, as the job page's totals line shows them. */
async function rowsRead(): Promise<number> {
  const text = (await page.getByTestId('totals').textContent()) ?? '';
  return Number(/rows read (\d+)/.exec(text)?.[1] ?? NaN);
}

describe("Tideway's dashboard", () => {
  it('renders the jobs list and the workers with their slots', async () => {
    await page.goto(`${base}/ui`);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    expect(await page.getByTestId('pager').textContent()).toContain('no jobs');
    await page.getByRole('link', { name: 'Workers' }).click();
    await page.getByTestId('slots').waitFor();
    expect(await page.getByTestId('slots').textContent()).toContain('2 free of 2');
    expect(await page.locator('tr[data-worker]').count()).toBe(1);
    expect(await page.locator('tr[data-worker]').textContent()).toContain('group=ui');
    await page.screenshot({ path: join(shots, '1-workers.png'), fullPage: true });
  });

  it('shows a worker drained over REST (POST /drain-worker) as drained, and serving again after /undrain-worker', async () => {
    const address = (await cluster.workers())[0].address;
    const post = (route: string) =>
      fetch(`${base}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ worker: address }),
      });
    const drained = await post('/drain-worker');
    expect(drained.status).toBe(200);
    expect(await drained.json()).toMatchObject({ address, draining: true, usedSlots: 0 });
    await page.getByRole('button', { name: 'refresh' }).click();
    await page.getByTestId('worker-state').filter({ hasText: 'drained (empty)' }).waitFor();
    expect(await page.getByTestId('slots').textContent()).toContain('0 free of 2');
    await page.screenshot({ path: join(shots, '1b-worker-drained.png'), fullPage: true });
    expect((await post('/undrain-worker')).status).toBe(200);
    await page.getByRole('button', { name: 'refresh' }).click();
    await page.getByTestId('worker-state').filter({ hasText: 'serving' }).waitFor();
    expect(await page.getByTestId('slots').textContent()).toContain('2 free of 2');
  });

  it('shows a submitted streaming job with its DAG, task groups on the worker and rows/s moving, then cancels it', async () => {
    const jobId = await submit(
      fakeJob({ mode: 'STREAMING', parallelism: 2, rowNum: 400, splitNum: 2000, readIntervalMs: 50 }),
      'dashboard_stream',
    );
    await page.getByRole('link', { name: 'Jobs' }).click();
    const row = page.locator(`tr[data-job="${jobId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('dashboard_stream');
    // Pushed by WatchJob through /ui/api/live: the row turns RUNNING without a reload.
    await row.locator('[data-status="RUNNING"]').waitFor({ timeout: 30_000 });

    await row.getByRole('link', { name: jobId }).click();
    await page.locator('svg.dag g.vertex').first().waitFor();
    expect(await page.locator('svg.dag g.vertex').count()).toBe(2);
    expect(await page.locator('svg.dag').textContent()).toMatch(/FakeSource[\s\S]*Console/);
    const groups = page.locator('tr[data-task-group]');
    expect(await groups.count()).toBeGreaterThan(0);
    expect(await groups.first().textContent()).toMatch(/127\.0\.0\.1:\d+/);

    // The charts grow with each WatchJob event and the rows read keep climbing.
    await page.getByTestId('rate-chart').waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => Number(await page.getByTestId('rate-chart').getAttribute('data-points')), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(4);
    const before = await rowsRead();
    await expect.poll(rowsRead, { timeout: 30_000 }).toBeGreaterThan(before);
    expect(await page.getByTestId('totals').textContent()).toMatch(/rows read \d+ \([1-9]\d*\/s\)/);
    expect(await page.locator('svg.dag').textContent()).toMatch(/[1-9]\d* rows · [1-9]\d*\/s/);
    // The checkpoint history (checkpoint.interval 2 s): the table and the duration chart grow.
    const history = page.getByTestId('checkpoint-history-1');
    await expect.poll(async () => history.locator('tr[data-checkpoint]').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    expect(await history.locator('tr[data-checkpoint]').first().textContent()).toMatch(
      /^\d+CHECKPOINTCOMPLETED.+\d+ ms.*\d+(\.\d)? (B|KiB|MiB)/,
    );
    expect(Number(await page.getByTestId('checkpoint-chart-1').getAttribute('data-points'))).toBeGreaterThanOrEqual(2);
    // The log panel: the worker's lines of the job (GetJobLogs), from every process.
    const logs = page.getByTestId('job-logs');
    await expect.poll(async () => (await logs.textContent()) ?? '', { timeout: 30_000 }).toContain('task group deployed');
    expect(await logs.textContent()).toMatch(/job submitted/);
    await page.screenshot({ path: join(shots, '2-running-job.png'), fullPage: true });

    // The workers page shows usage against quota per namespace (no quota here: counts alone).
    await page.getByRole('link', { name: 'Workers' }).click();
    const usage = page.locator('[data-testid="namespaces"] tr[data-namespace=""]');
    await usage.waitFor();
    expect((await usage.locator('td').allTextContents()).map((t) => t.trim())).toEqual(['(none)', '1', '2', '0']);
    await page.goBack();

    await page.getByTestId('cancel').click();
    await page.locator('h1 [data-status="CANCELED"]').waitFor({ timeout: 30_000 });
    const info = (await (await fetch(`${base}/job-info/${jobId}`)).json()) as { jobStatus: string };
    expect(info.jobStatus).toBe('CANCELED');
    await expect.poll(async () => (await logs.textContent()) ?? '', { timeout: 30_000 }).toContain('state=CANCELED');
    await page.screenshot({ path: join(shots, '3-canceled-job.png'), fullPage: true });
  });

  it('shows the rows a transform dropped as bad beside its vertex on the DAG', async () => {
    const jobId = await submit(BAD_ROWS_JOB, 'dashboard_bad_rows');
    await page.goto(`${base}/ui/#/job/${jobId}`);
    await page.locator('h1 [data-status="RUNNING"]').waitFor({ timeout: 30_000 });
    // The transform has no row counters of its own: its label is the bad count alone.
    const transform = page.locator('svg.dag g.vertex.transform text.rows');
    await expect.poll(async () => (await transform.textContent()) ?? '', { timeout: 30_000 }).toBe('3 bad');
    // The source read all 8; the sink wrote the 5 good ones, with no bad count of its own.
    await expect
      .poll(async () => (await page.locator('svg.dag g.vertex.sink text.rows').textContent()) ?? '', { timeout: 30_000 })
      .toMatch(/^5 rows · \d+\/s$/);
    expect(await page.locator('svg.dag g.vertex.source text.rows').textContent()).toMatch(/^8 rows · \d+\/s$/);
    await page.screenshot({ path: join(shots, '4-bad-rows.png'), fullPage: true });
    await page.getByTestId('cancel').click();
    await page.locator('h1 [data-status="CANCELED"]').waitFor({ timeout: 30_000 });
  });
});
