import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { JobStatus, type JobEvent, type JobInfo } from '@tideway/contracts';
import type { JobApi } from '../job-api.js';
import { failBody, statusOf } from '../rest-errors.js';
import { registerDashboardRoutes } from './dashboard-routes.js';

function job(i: number, status = JobStatus.FINISHED): JobInfo {
  return {
    jobId: String(100 + i),
    jobName: `j${i}`,
    namespace: '',
    status,
    jobMode: 'BATCH',
    submitTimeMs: 1000 + i,
    startTimeMs: 0,
    finishTimeMs: 0,
    error: undefined,
    pipelines: [],
    lastCheckpointTimeMs: 0,
    completedCheckpoints: 0,
    failedCheckpoints: 0,
    failovers: [],
    vertices: [],
    edges: [],
    envOptions: {},
    startWithSavepoint: false,
  };
}

/** A JobApi over a fixed job list whose watch sends one event, then waits for the abort. */
function fakeJobs(list: JobInfo[]) {
  const watches: Array<{ jobId: string; aborted: boolean }> = [];
  const api = {
    list: async () => ({ jobs: list }),
    watch: (jobId: string, onEvent: (e: JobEvent) => void, _interval?: number, signal?: AbortSignal) => {
      const w = { jobId, aborted: false };
      watches.push(w);
      onEvent({ job: { ...job(Number(jobId) - 100), status: JobStatus.RUNNING }, metrics: undefined });
      return new Promise((resolve) => signal?.addEventListener('abort', () => resolve((w.aborted = true))));
    },
  } as unknown as JobApi;
  return { api, watches };
}

const apps: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function serve(jobs: JobApi, uiDist: string) {
  const app = Fastify();
  app.setErrorHandler((err, _req, reply) => void reply.code(statusOf(err)).send(failBody((err as Error).message)));
  registerDashboardRoutes(app, jobs, uiDist);
  await app.listen({ host: '127.0.0.1', port: 0 });
  apps.push(app);
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

describe('the dashboard routes', () => {
  it('pages the jobs newest first and filters by state', async () => {
    const list = Array.from({ length: 120 }, (_, i) => job(i, i % 3 === 0 ? JobStatus.RUNNING : JobStatus.FINISHED));
    const base = await serve(fakeJobs(list).api, '/nonexistent');
    const page = (await (await fetch(`${base}/ui/api/jobs?offset=10&limit=5`)).json()) as {
      total: number;
      jobs: Array<{ jobId: string; status: string }>;
    };
    expect(page.total).toBe(120);
    expect(page.jobs.map((j) => j.jobId)).toEqual(['209', '208', '207', '206', '205']);
    const running = (await (await fetch(`${base}/ui/api/jobs?state=running&limit=200`)).json()) as {
      total: number;
      jobs: Array<{ status: string }>;
    };
    expect(running.total).toBe(40);
    expect(running.jobs.every((j) => j.status === 'RUNNING')).toBe(true);
  });

  it('refuses a bad page or job id in one sentence naming the parameter', async () => {
    const base = await serve(fakeJobs([]).api, '/nonexistent');
    const res = await fetch(`${base}/ui/api/jobs?limit=5000`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 'fail', message: '/ui/api/jobs: limit=5000 is not a whole number from 0 to 200' });
    expect(((await (await fetch(`${base}/ui/api/jobs?state=done`)).json()) as { message: string }).message).toContain(
      'state=done is not one of all, running, ended',
    );
    expect((await fetch(`${base}/ui/api/jobs/abc`)).status).toBe(400);
  });

  it('streams WatchJob events as Server-Sent Events and cancels the watch when the browser leaves', async () => {
    const fake = fakeJobs([]);
    const base = await serve(fake.api, '/nonexistent');
    const abort = new AbortController();
    const res = await fetch(`${base}/ui/api/live?jobs=101,102`, { signal: abort.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    // fetch's body is typed with DOM's any-typed stream here; its chunks are bytes.
    while ((text.match(/event: job/g) ?? []).length < 2)
      text += new TextDecoder().decode((await reader.read()).value as Uint8Array | undefined);
    expect(text).toContain('"jobId":"101","jobName":"j1","status":"RUNNING"');
    expect(fake.watches.map((w) => w.jobId)).toEqual(['101', '102']);
    abort.abort();
    await expect.poll(() => fake.watches.every((w) => w.aborted)).toBe(true);
  });

  it('serves the bundle at /ui/, and says how to build it when it is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ui-dist-'));
    writeFileSync(join(dir, 'index.html'), '<title>Tideway</title>');
    const built = await serve(fakeJobs([]).api, dir);
    expect(await (await fetch(`${built}/ui/`)).text()).toContain('<title>Tideway</title>');
    const redirect = await fetch(`${built}/ui`, { redirect: 'manual' });
    expect(redirect.headers.get('location')).toBe('/ui/');
    const missing = await serve(fakeJobs([]).api, join(dir, 'nope'));
    const res = await fetch(`${missing}/ui/`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/the dashboard is not built .*: run pnpm build/);
  });
});
