/**
 * `pnpm check:seatunnel-ui --ui <dir>`: SeaTunnel's own web UI (seatunnel-engine-ui, built by the
 * user from SeaTunnel's sources; `<dir>` holds its index.html and assets/) in front of a local
 * Tideway cluster's REST API, every page driven in headless Chromium.
 *
 * It starts a cluster of real processes (a coordinator serving the REST API, the resource manager,
 * one worker), submits three jobs through the REST API (a running streaming job of two tables, one
 * through a Sql transform; a finished batch job; a failed one), and serves the UI as SeaTunnel
 * does: its files at the port's root, every other path passed to the REST API. Then it opens each
 * page (overview, jobs, each job's detail with its Overview, Exception, Configuration and Log tabs,
 * workers, master, a node's logs) in a fresh browser page and prints, per page, OK or what went
 * wrong: console errors, uncaught exceptions, failed requests, NaN cells, and text the page should
 * show but does not (a job id, an error message, a worker's port). Screenshots go to --shots
 * (default `${TIDEWAY_CACHE:-~/.cache/tideway}/seatunnel-ui/shots`). Exit 1 when a page failed, 2
 * for bad arguments. Not part of the suite: the UI is not published where CI can fetch it
 * (docs/decisions/0095-seatunnel-web-ui-built.md).
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, ClusterProcesses, UI_FAILED_JOB, UI_FINISHED_JOB, UI_RUNNING_JOB, freePort, launchChromium } from '@tideway/testing';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';

const USAGE = 'usage: pnpm check:seatunnel-ui --ui <dir of a built seatunnel-engine-ui> [--shots <dir>] [--keep]';
const root = fileURLToPath(new URL('..', import.meta.url));

function usage(message: string): never {
  process.stderr.write(`check:seatunnel-ui: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let args: { ui?: string; shots?: string; keep?: boolean };
try {
  args = parseArgs({
    options: { ui: { type: 'string' }, shots: { type: 'string' }, keep: { type: 'boolean' } },
    allowPositionals: false,
  }).values;
} catch (err) {
  usage((err as Error).message);
}
if (!args.ui) usage('--ui is required');
const uiDir = resolve(args.ui);
if (!existsSync(join(uiDir, 'index.html'))) usage(`--ui ${uiDir} has no index.html: give the folder vite build wrote (dist/)`);
if (!existsSync(CHROMIUM)) usage(`${CHROMIUM} is missing: run bash scripts/ensure-client-tools.sh`);
const shots = resolve(args.shots ?? join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'seatunnel-ui', 'shots'));
mkdirSync(shots, { recursive: true });

const RUNNING = '950000000000000001';
const FINISHED = '950000000000000002';
const FAILED = '950000000000000003';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** The UI's files at the root; any other path to the REST API, as SeaTunnel's server does. */
function uiServer(restPort: number): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const file = normalize(join(uiDir, path === '/' ? 'index.html' : path));
    if (req.method === 'GET' && file.startsWith(uiDir + sep) && existsSync(file) && statSync(file).isFile()) {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(readFileSync(file));
      return;
    }
    const upstream = request({ host: '127.0.0.1', port: restPort, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`REST API at 127.0.0.1:${restPort}: ${err.message}`);
    });
    req.pipe(upstream);
  });
}

async function rest<T>(base: string, path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface PageCheck {
  name: string;
  /** The UI's route (its router uses the URL's hash). */
  route: string;
  /** The tab of a job's detail page to open. */
  tab?: string;
  /** Text the page must show. */
  shows: string[];
  /** Open the first log in the page's list and require text from it. */
  opensLog?: boolean;
}

/**
 * What the UI shows when an answer of the API was missing or unusable (the later Workers page's
 * notices, the later job page's live-metrics tag): a page showing one of them fails.
 */
const UNAVAILABLE = [
  'System monitoring is unavailable',
  'Worker resources are unavailable',
  'No resource snapshot is available',
  'No system monitoring sample is available',
  'Realtime metrics unavailable',
];

/** Opens one page in a fresh browser page: what went wrong (empty when nothing did) and the API paths it called. */
async function checkPage(browser: Browser, base: string, check: PageCheck): Promise<{ problems: string[]; calls: Set<string> }> {
  const page: Page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const problems: string[] = [];
  const calls = new Set<string>();
  page.on('console', (m) => {
    // index.html asks for /favicon.ico, which the UI's build does not write: not the API's doing.
    if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico'))
      problems.push(`console error: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.method()} ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
    if (['xhr', 'fetch', 'document'].includes(r.request().resourceType())) {
      const path = new URL(r.url()).pathname;
      if (path !== '/') calls.add(path.replace(/\d{6,}/g, ':id').replace(/job-:id-.*\.log$/, ':logName'));
    }
  });
  try {
    await page.goto(`${base}/#${check.route}`, { waitUntil: 'networkidle' });
    if (check.tab) {
      await page.locator('.n-tabs-tab', { hasText: check.tab }).first().click();
    }
    // The DAG draws 2 s after the page mounts; a detail page refreshes every 5 s.
    await page.waitForTimeout(check.tab === 'Log' ? 4000 : 3000);
    // The DAG's nodes are Vue components inside SVG foreignObjects, each with a body of its own.
    // The later Workers and Master pages list members with a Details button that opens the
    // member's resources and monitoring figures in a drawer.
    const details = page.getByRole('button', { name: 'Details', exact: true });
    if ((await details.count()) > 0) {
      await details.first().click();
      await page.waitForTimeout(1000);
    }
    const text = String(await page.evaluate('document.body.innerText'));
    for (const notice of UNAVAILABLE) if (text.includes(notice)) problems.push(`shows "${notice}"`);
    if (/\bNaN\b/.test(text)) problems.push('a cell shows NaN');
    for (const want of check.shows) if (!text.includes(want)) problems.push(`does not show ${JSON.stringify(want)}`);
    if (check.opensLog) {
      // The log list is a collapse of iframes, one per file, each loading the file's logLink.
      const header = page.locator('.n-collapse-item__header').first();
      if ((await header.count()) === 0) problems.push('lists no log file');
      else {
        await header.click();
        const frame = page.frameLocator('.n-collapse-item iframe').first();
        const lines = await frame
          .locator('body')
          .innerText({ timeout: 10_000 })
          .catch((err: Error) => `(${err.message.split('\n')[0]})`);
        if (!lines.includes('"msg"')) problems.push(`the first log file shows no log lines: ${lines.slice(0, 200)}`);
      }
    }
    await page.screenshot({ path: join(shots, `${check.name}.png`), fullPage: true });
  } catch (err) {
    problems.push((err as Error).message.split('\n')[0]);
  } finally {
    await page.close();
  }
  return { problems, calls };
}

async function main(): Promise<number> {
  const restPort = await freePort();
  const cluster = await ClusterProcesses.create({
    cli: cliNodeArgs(),
    cwd: root,
    workers: [{ attributes: { zone: 'a' } }],
    slotNum: 6,
    jobScheduleStrategy: 'WAIT',
    engineYaml: ['    http:', '      enable-http: true', `      port: ${restPort}`, '      enable-dynamic-port: false'],
    env: { TIDEWAY_LOG_LEVEL: 'info' },
  });
  let server: Server | undefined;
  let browser: Browser | undefined;
  try {
    process.stdout.write('starting a Tideway cluster (coordinator with the REST API, resource manager, one worker)\n');
    await cluster.startAll();
    const api = `http://127.0.0.1:${restPort}`;
    await until('the worker to register', async () => (await rest<{ workers: string }>(api, '/overview')).workers === '1');
    for (const [id, text] of [
      [RUNNING, UI_RUNNING_JOB],
      [FINISHED, UI_FINISHED_JOB],
      [FAILED, UI_FAILED_JOB],
    ])
      await rest(api, `/submit-job?format=hocon&jobId=${id}&jobName=ui-${id.slice(-1)}`, {
        method: 'POST',
        body: text,
        headers: { 'content-type': 'text/plain' },
      });
    const status = async (id: string) => (await rest<{ jobStatus: string }>(api, `/job-info/${id}`)).jobStatus;
    await until('the finished job', async () => (await status(FINISHED)) === 'FINISHED');
    await until('the failed job', async () => (await status(FAILED)) === 'FAILED');
    await until('rows through the running job', async () => {
      const job = await rest<{ jobStatus: string; metrics: { SinkWriteCount: string } }>(api, `/job-info/${RUNNING}`);
      return job.jobStatus === 'RUNNING' && Number(job.metrics.SinkWriteCount) > 0;
    });
    const failed = await rest<{ errorMsg: string }>(api, `/job-info/${FAILED}`);
    const overview = await rest<{ projectVersion: string }>(api, '/overview');
    const members = await rest<Array<Record<string, string>>>(api, '/system-monitoring-information');
    const master = members.find((m) => m.isMaster === 'true');
    const worker = members.find((m) => m.isMaster === 'false');
    if (!master || !worker) throw new Error(`/system-monitoring-information names no master or no worker: ${JSON.stringify(members)}`);

    server = uiServer(restPort);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.stdout.write(`SeaTunnel's web UI at ${base}/ (REST API at ${api}); screenshots in ${shots}\n`);

    const detail = (label: string, id: string, extra: Record<string, string[]>): PageCheck[] =>
      ['Overview', 'Exception', 'Configuration', 'Log'].map((tab) => ({
        name: `job-${label}-${tab.toLowerCase()}`,
        route: `/jobs/${id}`,
        tab,
        shows: [id, ...(extra[tab] ?? [])],
        opensLog: tab === 'Log',
      }));
    const checks: PageCheck[] = [
      // The finished list asks for /finished-jobs/finished: the jobs that ended FINISHED, as in SeaTunnel.
      { name: 'overview', route: '/overview', shows: [RUNNING, FINISHED, overview.projectVersion] },
      { name: 'jobs', route: '/jobs', shows: [RUNNING, FINISHED] },
      ...detail('running', RUNNING, {
        Overview: ['Source[0]-FakeSource', 'Sink[1]-Console'],
        Configuration: ['job.mode', 'STREAMING'],
        Log: [`job-${RUNNING}`],
      }),
      ...detail('finished', FINISHED, { Overview: ['Sink[0]-Console'], Configuration: ['BATCH'], Log: [`job-${FINISHED}`] }),
      ...detail('failed', FAILED, {
        Overview: ['Sink[0]-Assert'],
        Exception: [failed.errorMsg.split('\n')[0].slice(0, 60)],
        Configuration: ['BATCH'],
        Log: [`job-${FAILED}`],
      }),
      { name: 'workers', route: '/managers/workers', shows: [worker.port] },
      { name: 'master', route: '/managers/master', shows: [master.port] },
      { name: 'worker-logs', route: `/managers/workers/logs/${worker.host}_${worker.port}`, shows: ['.log'], opensLog: true },
    ];

    browser = await launchChromium();
    let failures = 0;
    for (const check of checks) {
      const { problems, calls } = await checkPage(browser, base, check);
      if (problems.length === 0)
        process.stdout.write(
          `OK    ${check.name}  (#${check.route}${check.tab ? `, ${check.tab} tab` : ''}; ${[...calls].sort().join(' ')})\n`,
        );
      else {
        failures++;
        process.stdout.write(`FAIL  ${check.name}  (#${check.route}${check.tab ? `, ${check.tab} tab` : ''})\n`);
        for (const p of [...new Set(problems)]) process.stdout.write(`        ${p}\n`);
      }
    }
    process.stdout.write(`${checks.length - failures} of ${checks.length} pages OK; screenshots in ${shots}\n`);
    if (args.keep) {
      process.stdout.write('--keep: the cluster and the UI stay up until Ctrl-C\n');
      await new Promise<void>((r) => process.once('SIGINT', () => r()));
    }
    return failures === 0 ? 0 : 1;
  } finally {
    await browser?.close();
    server?.close();
    await cluster.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`check:seatunnel-ui: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
