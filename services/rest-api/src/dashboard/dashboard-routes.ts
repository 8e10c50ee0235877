import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ClusterOverview, JobInfo, JobMetrics, type JobLogLine } from '@tideway/contracts';
import type { JobApi } from '../job-api.js';
import { BadRequest } from '../rest-errors.js';
import { jobPage, jobRow } from './job-pages.js';
import { streamJobEvents } from './live-events.js';

/** The bundle `pnpm build` makes from services/rest-api/ui (vite), beside src/ and dist/. */
export const UI_DIST = fileURLToPath(new URL('../../ui-dist/', import.meta.url));

const JOB_ID = /^\d{1,19}$/;
/** The list page watches the jobs it shows; a page is at most this many. */
const MAX_LIVE = 200;

function jobId(id: string): string {
  if (!JOB_ID.test(id)) throw new BadRequest(`'${id}' is not a job id: expected digits, e.g. 733584788375666689`);
  return id;
}

/** The fields of a line past time, level, message and the ones every line has, as `key=value`. */
function dashboardLogLine(l: JobLogLine) {
  let fields: string;
  try {
    const { level: _l, time: _t, msg: _m, pid: _p, jobId: _j, ...rest } = JSON.parse(l.line) as Record<string, unknown>;
    fields = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
  } catch {
    fields = l.line;
  }
  return { node: l.node, role: l.role, timeMs: l.timeMs, level: l.level, msg: l.msg, fields };
}

/**
 * Tideway's dashboard at `/ui/` (static files built by vite) and the JSON and event routes its
 * pages read, under `/ui/api/`: a page of jobs, one job, the cluster's workers and slots,
 * cancel, and Server-Sent Events fed by WatchJob.
 */
export function registerDashboardRoutes(app: FastifyInstance, jobs: JobApi, uiDist = UI_DIST): void {
  app.get('/ui/api/jobs', async (req) => jobPage((await jobs.list()).jobs, req.query as Record<string, string>));

  app.get<{ Params: { jobId: string } }>('/ui/api/jobs/:jobId', async (req) => {
    const id = jobId(req.params.jobId);
    const [job, metrics] = await Promise.all([jobs.get(id), jobs.metrics(id)]);
    return { job: JobInfo.toJSON(job), metrics: JobMetrics.toJSON(metrics) };
  });

  app.post<{ Params: { jobId: string } }>('/ui/api/jobs/:jobId/cancel', async (req) => {
    const { job } = await jobs.cancel(jobId(req.params.jobId));
    return { job: job ? JobInfo.toJSON(job) : undefined };
  });

  // The job's log lines from every process, for the job page's log panel (polled while it runs).
  app.get<{ Params: { jobId: string }; Querystring: { level?: string; since?: string } }>('/ui/api/jobs/:jobId/logs', async (req) => {
    const since = Number(req.query.since ?? 0);
    if (!(Number.isInteger(since) && since >= 0)) throw new BadRequest(`since '${req.query.since}': expected milliseconds since the epoch`);
    const res = await jobs.logs({ jobId: jobId(req.params.jobId), minLevel: req.query.level ?? '', sinceMs: since });
    return { lines: res.lines.map(dashboardLogLine), missing: res.missing };
  });

  app.get('/ui/api/overview', async () => ClusterOverview.toJSON(await jobs.overview()));

  // One job's WatchJob events in full (its page: state, DAG, metrics every second).
  app.get<{ Params: { jobId: string } }>('/ui/api/jobs/:jobId/events', (req, reply) => {
    const id = jobId(req.params.jobId);
    streamJobEvents(jobs, [id], 1000, req, reply, (e) => ({
      job: e.job ? JobInfo.toJSON(e.job) : undefined,
      metrics: e.metrics ? JobMetrics.toJSON(e.metrics) : undefined,
    }));
  });

  // The rows of the jobs on the list's page, sent when a status changes.
  app.get<{ Querystring: { jobs?: string } }>('/ui/api/live', (req, reply) => {
    const ids = (req.query.jobs ?? '')
      .split(',')
      .filter((s) => s !== '')
      .map(jobId);
    if (ids.length > MAX_LIVE) throw new BadRequest(`/ui/api/live: ${ids.length} jobs asked for, at most ${MAX_LIVE}`);
    streamJobEvents(jobs, ids, 1000, req, reply, (e) => (e.job ? jobRow(e.job) : undefined));
  });

  if (!existsSync(uiDist)) {
    app.get('/ui/*', async (_req, reply) =>
      reply.code(404).send({ status: 'fail', message: `the dashboard is not built (no ${uiDist}): run pnpm build` }),
    );
    return;
  }
  void app.register(fastifyStatic, { root: uiDist, prefix: '/ui/', index: 'index.html', wildcard: true, decorateReply: false });
  app.get('/ui', async (req, reply) => reply.redirect(`${req.url.split('?')[0]}/`));
}
