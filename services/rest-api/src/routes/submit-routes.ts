import { textOf } from '@tideway/common';
import type { FastifyInstance } from 'fastify';
import type { JobApi } from '../job-api.js';
import { BadRequest } from '../rest-errors.js';
import { parseJsonBody, type JsonObject } from '../request-body.js';

/** Query parameters of /submit-job, as SeaTunnel names them. */
interface SubmitParams {
  jobId?: string;
  jobName?: string;
  isStartWithSavePoint?: string;
  /** Tideway's: a new job starts from this ended job's latest checkpoint or savepoint. */
  restoreWithCheckpoint?: string;
  format?: string;
}

/** One job to submit: its config text and format, and SeaTunnel's parameters. */
interface Submission {
  configText: string;
  format: 'json' | 'hocon';
  params: SubmitParams;
}

function bool(name: string, value: unknown): boolean {
  if (value === undefined || value === '' || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new BadRequest(`${name} '${textOf(value)}' is not a boolean: expected true or false`);
}

function optionalString(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new BadRequest(`${name} must be a string`);
}

function jobIdParam(value: unknown, what: string): string | undefined {
  const id = optionalString(what, value);
  if (id !== undefined && !/^\d{1,19}$/.test(id)) throw new BadRequest(`${what} '${id}' is not a job id: expected digits`);
  return id;
}

/**
 * The SubmitJob request of a submission; isStartWithSavePoint restores the job id given,
 * restoreWithCheckpoint starts a new job from another ended job's checkpoint.
 */
function submitRequest(s: Submission, file: string) {
  const jobId = jobIdParam(s.params.jobId, 'jobId');
  const restore = bool('isStartWithSavePoint', s.params.isStartWithSavePoint);
  const from = jobIdParam(s.params.restoreWithCheckpoint, 'restoreWithCheckpoint');
  if (restore && !jobId) throw new BadRequest('isStartWithSavePoint=true needs the jobId of the job to restore');
  if (restore && from)
    throw new BadRequest(
      'isStartWithSavePoint=true and restoreWithCheckpoint cannot be given together: the first resumes jobId itself, the second starts a new job from another job',
    );
  return {
    configText: s.configText,
    configFile: file,
    format: s.format,
    jobName: optionalString('jobName', s.params.jobName) ?? '',
    jobId: restore ? '' : (jobId ?? ''),
    restoreJobId: restore ? jobId! : '',
    restoreWithCheckpoint: from ?? '',
  };
}

/**
 * Plans every submission before submitting any (a bad config in a batch changes nothing), then
 * submits them in order. Answers SeaTunnel's `{jobId, jobName}` per job.
 */
async function submitAll(jobs: JobApi, list: Submission[], file: (i: number) => string) {
  const requests = list.map((s, i) => submitRequest(s, file(i)));
  for (const r of requests) await jobs.plan(r);
  const out: Array<{ jobId: string; jobName: string }> = [];
  for (const r of requests) {
    const res = await jobs.submit(r);
    out.push({ jobId: res.jobId, jobName: res.job?.jobName ?? r.jobName });
  }
  return out;
}

/** A stop request: `{jobId, isStopWithSavePoint}`. */
async function stop(jobs: JobApi, body: unknown, where: string): Promise<{ jobId: string }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequest(`${where}: expected an object {"jobId": ..., "isStopWithSavePoint": false}`);
  const b = body as JsonObject;
  const jobId = jobIdParam(b.jobId, `${where}jobId`);
  if (!jobId) throw new BadRequest(`${where}jobId is missing`);
  if (bool('isStopWithSavePoint', b.isStopWithSavePoint)) await jobs.savepoint(jobId);
  else await jobs.cancel(jobId);
  return { jobId };
}

/** A checkpoint request: `{jobId}`; answers each pipeline's checkpoint id (or why it has none). */
async function checkpoint(jobs: JobApi, body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('expected an object {"jobId": ...}');
  const jobId = jobIdParam((body as JsonObject).jobId, 'jobId');
  if (!jobId) throw new BadRequest('jobId is missing');
  const res = await jobs.checkpoint(jobId);
  return { jobId, checkpoints: res.checkpoints.map((c) => ({ pipelineId: c.pipelineId, checkpointId: c.checkpointId, error: c.error })) };
}

/** POST /drain-worker and /undrain-worker (Tideway's): `{"worker": "<id or host:port>"}`; answers with the worker. */
async function drain(jobs: JobApi, body: unknown, draining: boolean) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequest('expected an object {"worker": "<id or host:port>"}');
  const worker = (body as JsonObject).worker;
  if (typeof worker !== 'string' || worker.trim() === '')
    throw new BadRequest('worker is missing: the worker id or host:port to drain or undrain');
  const res = draining ? await jobs.drain(worker) : await jobs.undrain(worker);
  const w = res.worker!;
  return { workerId: w.workerId, address: w.address, draining: w.draining, stopping: w.stopping, usedSlots: w.usedSlots };
}

/** POST /submit-job, /submit-jobs, /stop-job, /stop-jobs, /checkpoint-job, /drain-worker, /undrain-worker (the last three Tideway's). */
export function registerSubmitRoutes(app: FastifyInstance, jobs: JobApi, maxJsonDepth: number): void {
  const json = (text: string | undefined, what: string) => parseJsonBody(text, what, maxJsonDepth);
  app.post<{ Querystring: SubmitParams; Body: string }>('/submit-job', async (req) => {
    const given = req.query.format ?? 'json';
    // ?format=a&format=b arrives as a list.
    if (typeof given !== 'string') throw new BadRequest('format is given more than once: expected one of json or hocon');
    const format = given.toLowerCase();
    if (format !== 'json' && format !== 'hocon')
      throw new BadRequest(`format '${req.query.format}' is not supported: expected json or hocon`);
    const text = req.body ?? '';
    if (text.trim() === '') throw new BadRequest('the request body is empty: send the job config (JSON, or HOCON with format=hocon)');
    if (format === 'json') json(text, 'the job config');
    const [res] = await submitAll(
      jobs,
      [{ configText: text, format, params: req.query }],
      () => `submit-job.${format === 'json' ? 'json' : 'conf'}`,
    );
    return res;
  });

  app.post<{ Body: string }>('/submit-jobs', async (req) => {
    const body = json(req.body, 'the request body');
    if (!Array.isArray(body)) throw new BadRequest('the request body must be a JSON array of job configs, each with its "params"');
    const list = body.map((item, i): Submission => {
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        throw new BadRequest(`submit-jobs[${i}] must be a job config object`);
      const { params, ...config } = item as JsonObject;
      if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
        throw new BadRequest(`submit-jobs[${i}].params must be an object`);
      return { configText: JSON.stringify(config), format: 'json', params: params ?? {} };
    });
    return submitAll(jobs, list, (i) => `submit-jobs[${i}].json`);
  });

  app.post<{ Body: string }>('/stop-job', async (req) => stop(jobs, json(req.body, 'the request body'), ''));

  app.post<{ Body: string }>('/checkpoint-job', async (req) => checkpoint(jobs, json(req.body, 'the request body')));

  app.post<{ Body: string }>('/drain-worker', async (req) => drain(jobs, json(req.body, 'the request body'), true));
  app.post<{ Body: string }>('/undrain-worker', async (req) => drain(jobs, json(req.body, 'the request body'), false));

  app.post<{ Body: string }>('/stop-jobs', async (req) => {
    const body = json(req.body, 'the request body');
    if (!Array.isArray(body)) throw new BadRequest('the request body must be a JSON array of {"jobId": ..., "isStopWithSavePoint": false}');
    // Every id is checked before any job is stopped.
    for (const [i, b] of body.entries()) jobIdParam((b as JsonObject | null)?.jobId, `stop-jobs[${i}].jobId`);
    const out: Array<{ jobId: string }> = [];
    for (const [i, b] of body.entries()) out.push(await stop(jobs, b, `stop-jobs[${i}].`));
    return out;
  });
}
