import type { FastifyInstance } from 'fastify';
import type { JobInfo } from '@tideway/contracts';
import type { JobApi } from '../job-api.js';
import { BadRequest, isNotFound } from '../rest-errors.js';
import { ENDED, jobInfoBody, statusName } from '../seatunnel-shapes.js';

/** SeaTunnel's finished-job states; UNKNOWABLE is SeaTunnel's for a job whose end it lost (Tideway has none). */
const FINISHED_STATES = ['FINISHED', 'CANCELED', 'FAILED', 'SAVEPOINT_DONE', 'UNKNOWABLE'];

const JOB_ID = /^\d{1,19}$/;

export function checkJobId(jobId: string): string {
  if (!JOB_ID.test(jobId)) throw new BadRequest(`job id '${jobId}' is not a job id: expected digits, e.g. 733584788375666689`);
  return jobId;
}

/** Each job's answer with its metrics, fetched side by side. */
async function bodies(jobs: JobApi, list: JobInfo[]) {
  return Promise.all(list.map(async (j) => jobInfoBody(j, await jobs.metrics(j.jobId))));
}

/** The answers of one page of `list` (or of all of it): metrics are fetched for the page only. */
async function pagedBodies(jobs: JobApi, list: JobInfo[], query: Paging) {
  const page = paged(list, query);
  return Array.isArray(page) ? bodies(jobs, page) : { data: await bodies(jobs, page.data), total: page.total };
}

/** `page` and `rows` of a list request: SeaTunnel's paging (rows defaults to 10), or none. */
interface Paging {
  page?: string;
  rows?: string;
}

function wholeNumber(name: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1)
    throw new BadRequest(`${name} '${text}' is not a page ${name === 'page' ? 'number' : 'size'}: expected a whole number of at least 1`);
  return n;
}

/**
 * A job list as SeaTunnel's list endpoints answer it: the whole array, or with `page` (and
 * `rows`, default 10) one page of it as `{data, total}`. A page past the end is refused, as
 * SeaTunnel does, except the first page of an empty list, which is `{data: [], total: 0}`.
 */
export function paged<T>(all: T[], query: Paging): T[] | { data: T[]; total: number } {
  if (query.page === undefined) return all;
  const page = wholeNumber('page', query.page);
  const rows = query.rows === undefined ? 10 : wholeNumber('rows', query.rows);
  const start = (page - 1) * rows;
  if (start >= all.length && !(page === 1 && all.length === 0))
    throw new BadRequest(`page ${page} is past the last page: ${all.length} jobs at ${rows} rows a page`);
  return { data: all.slice(start, start + rows), total: all.length };
}

/**
 * GET routes about jobs: /running-jobs (and /running-jobs/summary, the paged list of SeaTunnel's
 * later UI), /job-info/:jobId (and the older /running-job/:jobId), /finished-jobs[/:state];
 * the lists take `page` and `rows`.
 */
export function registerJobRoutes(app: FastifyInstance, jobs: JobApi): void {
  // Newest first, as SeaTunnel's later releases sort them.
  const running = async (query: Paging) => {
    const { jobs: all } = await jobs.list();
    const live = all.filter((j) => !ENDED.has(statusName(j))).sort((a, b) => b.submitTimeMs - a.submitTimeMs);
    return pagedBodies(jobs, live, query);
  };
  app.get<{ Querystring: Paging }>('/running-jobs', async (req) => running(req.query));
  app.get<{ Querystring: Paging }>('/running-jobs/summary', async (req) => running(req.query));

  const jobInfo = async (req: { params: { jobId: string } }) => {
    const jobId = checkJobId(req.params.jobId);
    try {
      const job = await jobs.get(jobId);
      return jobInfoBody(job, await jobs.metrics(jobId));
    } catch (err) {
      // SeaTunnel answers an unknown job with its id alone.
      if (isNotFound(err)) return { jobId };
      throw err;
    }
  };
  app.get<{ Params: { jobId: string } }>('/job-info/:jobId', jobInfo);
  app.get<{ Params: { jobId: string } }>('/running-job/:jobId', jobInfo);

  const finished = async (state: string | undefined, query: Paging) => {
    const wanted = state?.toUpperCase();
    if (wanted !== undefined && !FINISHED_STATES.includes(wanted))
      throw new BadRequest(`finished-jobs state '${state}' is not one of ${FINISHED_STATES.join(', ')}`);
    const { jobs: all } = await jobs.list();
    const ended = all
      .filter((j) => ENDED.has(statusName(j)) && (wanted === undefined || statusName(j) === wanted))
      .sort((a, b) => b.finishTimeMs - a.finishTimeMs);
    return pagedBodies(jobs, ended, query);
  };
  app.get<{ Querystring: Paging }>('/finished-jobs', async (req) => finished(undefined, req.query));
  app.get<{ Params: { state: string }; Querystring: Paging }>('/finished-jobs/:state', async (req) =>
    finished(req.params.state, req.query),
  );
}
