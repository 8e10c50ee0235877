import type { FastifyInstance } from 'fastify';
import type { JobApi } from '../job-api.js';
import { DEFAULT_WINDOW_MS, JobSeries, MAX_WINDOW_MS, emptySeries, observabilityOf } from '../realtime-series.js';
import { BadRequest, isNotFound } from '../rest-errors.js';
import { ENDED, statusName } from '../seatunnel-shapes.js';
import { checkJobId } from './job-routes.js';

/** The deadline of the JobService calls a read makes (JobClient's). */
const FETCH_TIMEOUT_MS = 10_000;

/** SeaTunnel's `windowMs`: milliseconds back from now, default 3 minutes, at most 10. */
function windowOf(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_WINDOW_MS;
  if (!/^-?\d+$/.test(raw)) throw new BadRequest(`windowMs '${raw}' is not a whole number of milliseconds`);
  return Math.min(MAX_WINDOW_MS, Math.max(0, Number(raw)));
}

/**
 * SeaTunnel's live vertex and edge metrics (`/metrics/realtime`): the running jobs with their
 * settings (engine.observability.*), and per job the series of its vertices and shuffles. There
 * is no background poll: a read of a job's series reads the job's figures as its caller (so the
 * caller's namespace applies) and folds them into the series, kept here for the job's retention.
 */
export function registerRealtimeRoutes(app: FastifyInstance, jobs: JobApi): void {
  const series = new Map<string, JobSeries>();
  const collector = {
    lastCollectStartMs: -1,
    lastCollectEndMs: -1,
    lastRawMetricsFetchCostMs: -1,
    lastRawMetricsBlobs: 0,
    collectFailureCount: 0,
    lastCollectError: undefined as string | undefined,
  };

  const forget = (now: number) => {
    for (const [jobId, s] of series) if (now - s.lastUsed > s.settings.retentionMinutes * 60_000) series.delete(jobId);
  };

  const list = async () => {
    const { jobs: all } = await jobs.list();
    const running = all.filter((j) => !ENDED.has(statusName(j))).sort((a, b) => (BigInt(a.jobId) < BigInt(b.jobId) ? -1 : 1));
    return {
      jobs: running.map((j) => {
        const settings = observabilityOf(j);
        return {
          jobId: j.jobId,
          enabled: settings.enabled,
          bucketMs: settings.bucketMs,
          retentionMinutes: settings.retentionMinutes,
          latestBucketStartMs: series.get(j.jobId)?.latestBucketStartMs ?? -1,
        };
      }),
      collector: {
        pollIntervalMs: 0,
        fetchTimeoutMs: FETCH_TIMEOUT_MS,
        lastCollectStartMs: collector.lastCollectStartMs,
        lastCollectEndMs: collector.lastCollectEndMs,
        lastRawMetricsFetchCostMs: collector.lastRawMetricsFetchCostMs,
        lastRawMetricsBlobs: collector.lastRawMetricsBlobs,
        collectFailureCount: collector.collectFailureCount,
        ...(collector.lastCollectError !== undefined ? { lastCollectError: collector.lastCollectError } : {}),
      },
    };
  };
  app.get('/metrics/realtime', list);
  app.get('/metrics/realtime/jobs', list);

  const read = async (jobIdParam: string, rawWindow: string | undefined, key: 'vertices' | 'edges') => {
    const jobId = checkJobId(jobIdParam);
    const windowMs = windowOf(rawWindow);
    const start = Date.now();
    forget(start);
    let job;
    try {
      job = await jobs.get(jobId);
    } catch (err) {
      // SeaTunnel answers a job it keeps no series for with an empty object.
      if (isNotFound(err)) return {};
      throw err;
    }
    if (ENDED.has(statusName(job))) {
      series.delete(jobId);
      return {};
    }
    const settings = observabilityOf(job);
    if (!settings.enabled) return emptySeries(settings, windowMs, Date.now(), key);
    collector.lastCollectStartMs = start;
    let metrics;
    try {
      metrics = await jobs.metrics(jobId);
    } catch (err) {
      collector.collectFailureCount++;
      collector.lastCollectError = `${(err as Error).name}: ${(err as Error).message}`;
      throw err;
    } finally {
      collector.lastCollectEndMs = Date.now();
    }
    collector.lastRawMetricsFetchCostMs = collector.lastCollectEndMs - start;
    collector.lastRawMetricsBlobs = metrics.tasks.length;
    collector.lastCollectError = undefined;
    let s = series.get(jobId);
    if (!s) series.set(jobId, (s = new JobSeries(settings)));
    const now = Date.now();
    s.update(job, metrics, start, now);
    return key === 'vertices' ? s.vertices(windowMs, now) : s.edges(windowMs, now);
  };
  app.get<{ Params: { jobId: string }; Querystring: { windowMs?: string } }>('/metrics/realtime/jobs/:jobId/vertices', (req) =>
    read(req.params.jobId, req.query.windowMs, 'vertices'),
  );
  app.get<{ Params: { jobId: string }; Querystring: { windowMs?: string } }>('/metrics/realtime/jobs/:jobId/edges', (req) =>
    read(req.params.jobId, req.query.windowMs, 'edges'),
  );
}
