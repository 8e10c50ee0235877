/**
 * The dashboard's jobs list with 1,000 ended jobs in the history (written into the Redis state
 * store before the coordinator starts, as earlier leaders would have recorded them: running 1,000
 * real jobs takes minutes on this machine): the list is paged on the server, so the browser gets
 * 50 rows whatever the history holds. There are two coordinators (HA), and the browser
 * talks to the follower's dashboard, which answers for the leader. The times are measured and
 * printed, not asserted (speed is benchmarked, never asserted by tests); the test checks the
 * page shows the right rows and pages through them.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startRedis, type RedisServer, freePort } from '@tideway/testing';
import { TestCluster, type ProcessName } from '../cluster/test-cluster.js';
import { artefactDir, launchChromium } from './browser.js';
import { fillHistory } from './fill-history.js';

const JOBS = 1000;

let redis: RedisServer;
let cluster: TestCluster;
let browser: Browser;
let page: Page;
let base = '';
const shots = artefactDir('dashboard');
let ids: string[] = [];
let leader: ProcessName = 'coordinator';

function report(line: string): void {
  process.stdout.write(`dashboard-history: ${line}\n`);
}

beforeAll(async () => {
  redis = await startRedis({});
  const started = Date.now();
  ids = await fillHistory(`127.0.0.1:${redis.port}`, JOBS);
  report(`${JOBS} ended jobs written to the state store in ${Date.now() - started} ms`);
  const port = await freePort();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    coordinators: 2,
    ha: { state: redis },
    // Both coordinators share the config: the second takes the next free port.
    engineYaml: ['http:', '  enable-http: true', `  port: ${port}`, '  enable-dynamic-port: true', '  port-range: 20'],
  });
  await cluster.until('a leader', async () => (await cluster.leaderName()) !== undefined);
  leader = (await cluster.leaderName())!;
  const follower = cluster.coordinatorNames().find((n) => n !== leader)!;
  base = /REST API at (http:\/\/\S+)/.exec(cluster.logs.get(follower) ?? '')![1];
  report(`the browser uses the follower ${follower}'s dashboard at ${base}/ui/ (the leader is ${leader})`);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  process.stdout.write(`dashboard screenshots: ${shots}\n`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
  await redis?.stop();
});

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await fn();
  return [value, Math.round(performance.now() - t)];
}

describe('the jobs list with 1,000 ended jobs', () => {
  it('answers one page of 50 rows, newest first, and pages through the history', async () => {
    const [body, apiMs] = await timed(
      async () =>
        (await fetch(`${base}/ui/api/jobs?limit=50`)).json() as Promise<{
          total: number;
          jobs: Array<{ jobName: string; status: string }>;
        }>,
    );
    expect(body.total).toBe(JOBS);
    const overview = (await (await fetch(`${base}/ui/api/overview`)).json()) as { leaderAddress: string };
    expect(overview.leaderAddress).toBe(`127.0.0.1:${cluster.grpcPorts.get(leader)}`);
    expect(body.jobs).toHaveLength(50);
    expect(body.jobs.every((j) => j.status === 'FINISHED')).toBe(true);
    // Newest first: the last job written is on top.
    expect(body.jobs[0].jobName).toBe(`history_${String(JOBS - 1).padStart(4, '0')}`);
    const [, seatunnelMs] = await timed(async () => (await fetch(`${base}/finished-jobs/FINISHED`)).text());

    const [, pageMs] = await timed(async () => {
      await page.goto(`${base}/ui/`);
      await page.locator('tr[data-job]').nth(49).waitFor();
    });
    expect(await page.locator('tr[data-job]').count()).toBe(50);
    expect(await page.getByTestId('pager').textContent()).toContain(`1–50 of ${JOBS}`);
    await page.screenshot({ path: join(shots, '4-history-first-page.png'), fullPage: false });

    const firstRow = await page.locator('tr[data-job]').first().getAttribute('data-job');
    const [, olderMs] = await timed(async () => {
      await page.getByRole('button', { name: 'older ›' }).click();
      await page
        .getByTestId('pager')
        .filter({ hasText: `51–100 of ${JOBS}` })
        .waitFor();
    });
    expect(await page.locator('tr[data-job]').first().getAttribute('data-job')).not.toBe(firstRow);
    // The second page starts with the 51st newest.
    expect(await page.locator('tr[data-job]').first().getAttribute('data-job')).toBe(ids[JOBS - 51]);

    report(
      `GET /ui/api/jobs?limit=50 ${apiMs} ms; the list page loaded with 50 rows in ${pageMs} ms; the next page in ${olderMs} ms; SeaTunnel's GET /finished-jobs/FINISHED (all ${JOBS}, with metrics) ${seatunnelMs} ms`,
    );
  });
});
