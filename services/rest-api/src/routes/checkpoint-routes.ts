import type { FastifyInstance } from 'fastify';
import type { CheckpointRecord, JobInfo } from '@tideway/contracts';
import type { JobApi } from '../job-api.js';
import { BadRequest } from '../rest-errors.js';
import { checkJobId } from './job-routes.js';

/** SeaTunnel's CheckpointStatus values a history query may filter by. */
const STATUSES = ['COMPLETED', 'FAILED', 'CANCELED'];
/** SeaTunnel's default `limit` of the history endpoint. */
const DEFAULT_LIMIT = 20;

/** SeaTunnel's CheckpointInfo: what it names a checkpoint's kind and state. */
export function checkpointInfoBody(r: CheckpointRecord) {
  const completed = r.state === 'COMPLETED';
  return {
    checkpointId: r.checkpointId,
    // SeaTunnel's CheckpointType names: CHECKPOINT_TYPE, SAVEPOINT_TYPE, COMPLETED_POINT_TYPE.
    checkpointType: `${r.kind}_TYPE`,
    // SeaTunnel calls a checkpoint given up because its pipeline stopped CANCELED.
    status: r.state === 'ABORTED' ? 'CANCELED' : r.state,
    triggerTimestamp: r.triggerTimeMs,
    completedTimestamp: completed ? r.triggerTimeMs + r.durationMs : null,
    durationMillis: r.durationMs,
    stateSize: r.stateBytes,
    failureReason: completed ? null : r.failureReason,
    // Tideway's own: from the trigger until the last task group acknowledged its barrier.
    alignmentMillis: r.alignmentMs,
  };
}

type CheckpointInfoBody = ReturnType<typeof checkpointInfoBody>;

/**
 * SeaTunnel's checkpoint overview of a job (GET /jobs/checkpoints/:jobId): per pipeline the
 * counts, the latest completed, failed and savepoint checkpoints, the one in flight (with how
 * many task groups acknowledged it), and the history newest first. Counts are the job's own over
 * every attempt; `restored` counts the pipeline's restarts (its attempts after the first, which
 * restore from the latest checkpoint).
 */
export function checkpointOverviewBody(job: JobInfo, now = Date.now()) {
  return {
    jobId: job.jobId,
    updatedAt: now,
    pipelines: job.pipelines.map((p) => {
      const history = p.checkpointHistory.map(checkpointInfoBody);
      const latest = (pred: (c: CheckpointInfoBody) => boolean) => history.find(pred) ?? null;
      const f = p.checkpointInFlight;
      const inProgress = f
        ? [
            {
              checkpointId: f.checkpointId,
              checkpointType: `${f.kind}_TYPE`,
              triggerTimestamp: f.triggerTimeMs,
              acknowledged: f.acknowledged,
              total: f.total,
            },
          ]
        : [];
      return {
        pipelineId: p.pipelineId,
        counts: {
          triggered: p.completedCheckpoints + p.failedCheckpoints,
          completed: p.completedCheckpoints,
          failed: p.failedCheckpoints,
          inProgress: inProgress.length,
          restored: p.attempt,
        },
        latestCompleted: latest((c) => c.status === 'COMPLETED'),
        latestFailed: latest((c) => c.status === 'FAILED'),
        latestSavepoint: latest((c) => c.checkpointType === 'SAVEPOINT_TYPE' && c.status === 'COMPLETED'),
        inProgress,
        history: history.map((checkpoint) => ({ pipelineId: p.pipelineId, checkpoint })),
      };
    }),
  };
}

/** SeaTunnel's history records of a job, newest first, filtered as the query asks. */
export function checkpointHistoryBody(job: JobInfo, query: { pipelineId?: string; limit?: string; status?: string }) {
  const pipelineId = query.pipelineId === undefined ? undefined : Number(query.pipelineId);
  if (pipelineId !== undefined && !(Number.isInteger(pipelineId) && pipelineId >= 0))
    throw new BadRequest(`pipelineId '${query.pipelineId}' is not a pipeline id: expected a whole number, e.g. 1`);
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!(Number.isInteger(limit) && limit >= 1))
    throw new BadRequest(`limit '${query.limit}' is not a count: expected a whole number of at least 1`);
  const status = query.status?.toUpperCase();
  if (status !== undefined && !STATUSES.includes(status))
    throw new BadRequest(`status '${query.status}' is not one of ${STATUSES.join(', ')}`);
  return job.pipelines
    .filter((p) => pipelineId === undefined || p.pipelineId === pipelineId)
    .flatMap((p) => p.checkpointHistory.map((r) => ({ pipelineId: p.pipelineId, checkpoint: checkpointInfoBody(r) })))
    .filter((e) => status === undefined || e.checkpoint.status === status)
    .sort((a, b) => b.checkpoint.triggerTimestamp - a.checkpoint.triggerTimestamp)
    .slice(0, limit);
}

/** SeaTunnel's checkpoint endpoints: GET /jobs/checkpoints/:jobId and /jobs/checkpoints/history/:jobId. */
export function registerCheckpointRoutes(app: FastifyInstance, jobs: JobApi): void {
  app.get<{ Params: { jobId: string } }>('/jobs/checkpoints/:jobId', async (req) =>
    checkpointOverviewBody(await jobs.get(checkJobId(req.params.jobId))),
  );
  app.get<{ Params: { jobId: string }; Querystring: { pipelineId?: string; limit?: string; status?: string } }>(
    '/jobs/checkpoints/history/:jobId',
    async (req) => checkpointHistoryBody(await jobs.get(checkJobId(req.params.jobId)), req.query),
  );
}
