import type { FastifyInstance } from 'fastify';
import type { JobInfo } from '@tideway/contracts';
import type { JobApi } from '../job-api.js';
import { BadRequest, isNotFound } from '../rest-errors.js';
import { ENDED, finishedJobBody, jobInfoBody, runningJobBody, statusName } from '../seatunnel-shapes.js';

/** SeaTunnel's finished-job states; UNKNOWABLE is SeaTunnel's for a job whose end it lost (Tideway has none). */
const FINISHED_STATES = ['FINISHED', 'CANCELED', 'FAILED', 'SAVEPOINT_DONE', 'UNKNOWABLE'];

const JOB_ID = /^\d{1,19}$/;

export function checkJobId(jobId: string): string {
  if (!JOB_ID.test(jobId)) throw new BadRequest(`job id '${jobId}' is not a job id: expected digits, e.g. 733584788375666689`);
  return jobId;
}

/** The metrics of each job, fetched side by side. */
async function withMetrics(jobs: JobApi, list: JobInfo[]) {
  return Promise.all(list.map(async (j) => ({ job: j, metrics: await jobs.metrics(j.jobId) })));
}

/** GET routes about jobs: /running-jobs, /job-info/:jobId (and the older /running-job/:jobId), /finished-jobs/:state. */
export function registerJobRoutes(app: FastifyInstance, jobs: JobApi): void {
  app.get('/running-jobs', async () => {
    const { jobs: all } = await jobs.list();
    return (
      await withMetrics(
        jobs,
        all.filter((j) => !ENDED.has(statusName(j))),
      )
    ).map(({ job, metrics }) => runningJobBody(job, metrics));
  });

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

  const finished = async (state: string | undefined) => {
    const wanted = state?.toUpperCase();
    if (wanted !== undefined && !FINISHED_STATES.includes(wanted))
      throw new BadRequest(`finished-jobs state '${state}' is not one of ${FINISHED_STATES.join(', ')}`);
    const { jobs: all } = await jobs.list();
    const ended = all.filter((j) => ENDED.has(statusName(j)) && (wanted === undefined || statusName(j) === wanted));
    return (await withMetrics(jobs, ended)).map(({ job, metrics }) => finishedJobBody(job, metrics));
  };
  app.get('/finished-jobs', async () => finished(undefined));
  app.get<{ Params: { state: string } }>('/finished-jobs/:state', async (req) => finished(req.params.state));
}
