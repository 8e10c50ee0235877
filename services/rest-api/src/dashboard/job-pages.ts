import { JobInfo, jobStatusToJSON } from '@tideway/contracts';
import { BadRequest } from '../rest-errors.js';
import { ENDED } from '../seatunnel-shapes.js';
import type { JobPage, JobRow } from './dashboard-types.js';

const MAX_LIMIT = 200;

function intParam(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max)
    throw new BadRequest(`/ui/api/jobs: ${name}=${value} is not a whole number from 0 to ${max}`);
  return Number(value);
}

/** `state` of the jobs list: all jobs, those still going, or those ended. */
export type JobFilter = 'all' | 'running' | 'ended';

/**
 * The page asked for by `offset`, `limit` (at most 200) and `state`, newest submit first. Only
 * the page's rows go to the browser, so the list stays small with thousands of jobs in the
 * history.
 */
export function jobPage(all: readonly JobInfo[], query: { offset?: string; limit?: string; state?: string }): JobPage {
  const offset = intParam(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = intParam(query.limit, 'limit', 50, MAX_LIMIT);
  const state = query.state ?? 'all';
  if (state !== 'all' && state !== 'running' && state !== 'ended')
    throw new BadRequest(`/ui/api/jobs: state=${state} is not one of all, running, ended`);
  const kept = state === 'all' ? [...all] : all.filter((j) => ENDED.has(jobStatusToJSON(j.status)) === (state === 'ended'));
  kept.sort((a, b) => b.submitTimeMs - a.submitTimeMs || (a.jobId < b.jobId ? 1 : -1));
  return { total: kept.length, offset, limit, jobs: kept.slice(offset, offset + limit).map(jobRow) };
}

/** A job's row in the list. */
export function jobRow(j: JobInfo): JobRow {
  return {
    jobId: j.jobId,
    jobName: j.jobName,
    status: jobStatusToJSON(j.status),
    jobMode: j.jobMode,
    submitTimeMs: j.submitTimeMs,
    finishTimeMs: j.finishTimeMs,
    error: j.error?.message ?? '',
  };
}
