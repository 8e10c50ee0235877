import { describe, expect, it } from 'vitest';
import type { CheckpointRecord, JobInfo, PipelineInfo } from '@tideway/contracts';
import { checkpointHistoryBody, checkpointOverviewBody } from './checkpoint-routes.js';

const record = (id: number, state: string, kind = 'CHECKPOINT', failureReason = ''): CheckpointRecord => ({
  checkpointId: id,
  kind,
  triggerTimeMs: 1000 * id,
  durationMs: 40,
  stateBytes: state === 'COMPLETED' ? 100 * id : 0,
  alignmentMs: state === 'COMPLETED' ? 30 : 0,
  state,
  failureReason,
});

const pipeline = (pipelineId: number, history: CheckpointRecord[], attempt = 0): PipelineInfo => ({
  pipelineId,
  status: 'RUNNING',
  taskGroups: [],
  attempt,
  completedCheckpoints: history.filter((r) => r.state === 'COMPLETED').length,
  failedCheckpoints: history.filter((r) => r.state === 'FAILED').length,
  lastCheckpointTimeMs: 0,
  checkpointHistory: history,
  checkpointInFlight: undefined,
});

const job = {
  jobId: '42',
  pipelines: [
    {
      ...pipeline(
        1,
        [
          record(4, 'ABORTED', 'SAVEPOINT', 'the pipeline stopped while it was in flight'),
          record(3, 'FAILED', 'CHECKPOINT', 'timed out after 10 ms'),
          record(2, 'COMPLETED', 'SAVEPOINT'),
          record(1, 'COMPLETED'),
        ],
        2,
      ),
      checkpointInFlight: { checkpointId: 5, kind: 'CHECKPOINT', triggerTimeMs: 5000, acknowledged: 1, total: 2 },
    },
    pipeline(2, [record(5, 'COMPLETED')]),
  ],
} as unknown as JobInfo;

describe("SeaTunnel's checkpoint endpoints", () => {
  it('the overview: counts, the latest of each kind, SeaTunnel names for type and status', () => {
    const body = checkpointOverviewBody(job, 123);
    expect(body.updatedAt).toBe(123);
    const [p1] = body.pipelines;
    expect(p1.counts).toEqual({ triggered: 3, completed: 2, failed: 1, inProgress: 1, restored: 2 });
    expect(p1.inProgress).toEqual([
      { checkpointId: 5, checkpointType: 'CHECKPOINT_TYPE', triggerTimestamp: 5000, acknowledged: 1, total: 2 },
    ]);
    expect(body.pipelines[1].inProgress).toEqual([]);
    expect(p1.latestCompleted).toEqual({
      checkpointId: 2,
      checkpointType: 'SAVEPOINT_TYPE',
      status: 'COMPLETED',
      triggerTimestamp: 2000,
      completedTimestamp: 2040,
      durationMillis: 40,
      stateSize: 200,
      failureReason: null,
      alignmentMillis: 30,
    });
    expect(p1.latestSavepoint).toEqual(p1.latestCompleted);
    expect(p1.latestFailed).toMatchObject({
      checkpointId: 3,
      status: 'FAILED',
      completedTimestamp: null,
      failureReason: 'timed out after 10 ms',
    });
    expect(p1.history.map((h) => [h.pipelineId, h.checkpoint.checkpointId, h.checkpoint.status])).toEqual([
      [1, 4, 'CANCELED'],
      [1, 3, 'FAILED'],
      [1, 2, 'COMPLETED'],
      [1, 1, 'COMPLETED'],
    ]);
  });

  it('the history: newest first over pipelines, filtered by pipeline and status, at most limit; bad parameters named', () => {
    expect(checkpointHistoryBody(job, {}).map((h) => h.checkpoint.checkpointId)).toEqual([5, 4, 3, 2, 1]);
    expect(checkpointHistoryBody(job, { pipelineId: '1', limit: '2' }).map((h) => h.checkpoint.checkpointId)).toEqual([4, 3]);
    expect(checkpointHistoryBody(job, { status: 'canceled' }).map((h) => h.checkpoint.checkpointId)).toEqual([4]);
    expect(() => checkpointHistoryBody(job, { limit: '0' })).toThrow("limit '0' is not a count: expected a whole number of at least 1");
    expect(() => checkpointHistoryBody(job, { pipelineId: 'x' })).toThrow(
      "pipelineId 'x' is not a pipeline id: expected a whole number, e.g. 1",
    );
  });
});
