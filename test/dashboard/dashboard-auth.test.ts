/**
 * The dashboard's sign-in in a real headless Chromium against a real cluster with
 * tideway.auth tokens (viewer and operator, made by `tideway token create`): the page asks for
 * a token when /ui/api answers 401, refuses a wrong one, keeps a good one in sessionStorage and
 * sends it on every call (the live event streams too), shows a viewer's refused cancel (403) as
 * a message, signs out, and an operator signed in cancels. Screenshots under
 * test/artefacts/dashboard-auth.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { UI_DIST } from '../../services/rest-api/src/dashboard/dashboard-routes.js';
import { TestCluster, fakeJob } from '../cluster/test-cluster.js';
import { startTokenCluster } from '../security/token-cluster.js';
import { artefactDir, launchChromium } from './browser.js';

let cluster: TestCluster;
let browser: Browser;
let page: Page;
let base = '';
const shots = artefactDir('dashboard-auth');
let tokens: Record<'viewer' | 'operator', string>;
/** The authorization header of each /ui/api request the page made, in order. */
const apiCalls: Array<{ url: string; authorization: string | undefined }> = [];

beforeAll(async () => {
  expect(existsSync(join(UI_DIST, 'index.html')), `the dashboard bundle is missing at ${UI_DIST}: run pnpm build`).toBe(true);
  ({ cluster, tokens, base } = await startTokenCluster(['viewer', 'operator'] as const));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('request', (r) => {
    if (r.url().includes('/ui/api/')) apiCalls.push({ url: r.url(), authorization: r.headers().authorization });
  });
  process.stdout.write(`dashboard sign-in screenshots: ${shots}\n`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
});

async function signIn(token: string): Promise<void> {
  await page.getByTestId('sign-in').locator('input[name="token"]').fill(token);
  await page.getByRole('button', { name: 'sign in' }).click();
}

const stored = () => page.evaluate<string | null>("sessionStorage.getItem('tideway.token')");

describe("the dashboard's sign-in", () => {
  it('asks for a token on a 401, refuses a wrong one, and keeps a good one for the tab', async () => {
    await page.goto(`${base}/ui`);
    await page.getByTestId('sign-in').waitFor();
    expect(await page.getByTestId('sign-in-reason').textContent()).toContain('GET /ui/api/jobs needs a bearer token');
    await signIn(`tw_${'x'.repeat(43)}`);
    await expect
      .poll(async () => page.getByTestId('sign-in-reason').textContent())
      .toContain("the bearer token is not one of this cluster's tokens");
    expect(await stored()).toBeNull();
    await page.screenshot({ path: join(shots, '1-sign-in-refused.png'), fullPage: true });

    apiCalls.length = 0;
    await signIn(tokens.viewer);
    await page.getByRole('heading', { name: 'Jobs' }).waitFor();
    await page.getByTestId('pager').waitFor();
    expect(await stored()).toBe(tokens.viewer);
    expect(apiCalls.length).toBeGreaterThan(0);
    expect(apiCalls.every((c) => c.authorization === `Bearer ${tokens.viewer}`)).toBe(true);
  });

  it('sends the token on the live streams, shows a 403 as a message, signs out, and an operator cancels', async () => {
    const res = await fetch(`${base}/submit-job?format=hocon&jobName=signed_in`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${tokens.operator}` },
      body: fakeJob({ mode: 'STREAMING', parallelism: 1, rowNum: 400, splitNum: 2000, readIntervalMs: 50 }),
    });
    const { jobId } = (await res.json()) as { jobId: string };
    expect(res.status).toBe(200);

    apiCalls.length = 0;
    await page.goto(`${base}/ui/#/job/${jobId}`);
    // The job page's rows move: its event stream (fetch, not EventSource) carried the token.
    const rowsRead = async () => Number(/rows read (\d+)/.exec((await page.getByTestId('totals').textContent()) ?? '')?.[1] ?? NaN);
    await expect.poll(rowsRead, { timeout: 30_000 }).toBeGreaterThan(0);
    const stream = apiCalls.find((c) => c.url.endsWith(`/ui/api/jobs/${jobId}/events`));
    expect(stream?.authorization).toBe(`Bearer ${tokens.viewer}`);

    await page.getByTestId('cancel').click();
    await page
      .getByText(`Not allowed: POST /ui/api/jobs/${jobId}/cancel needs the role operator or above: token 'viewer' has the role viewer`)
      .waitFor();
    await page.screenshot({ path: join(shots, '2-viewer-cancel-refused.png'), fullPage: true });

    await page.getByTestId('sign-out').click();
    await page.getByTestId('sign-in').waitFor();
    expect(await stored()).toBeNull();
    await signIn(tokens.operator);
    await page.getByTestId('cancel').click();
    await page.locator('h1 [data-status="CANCELED"]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(shots, '3-operator-canceled.png'), fullPage: true });
  });
});
