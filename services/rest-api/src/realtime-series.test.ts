import { describe, expect, it } from 'vitest';
import type { JobInfo, JobMetrics, TaskBusyness } from '@tideway/contracts';
import { JobSeries, emptySeries, observabilityOf } from './realtime-series.js';

/** A job of three vertices: a source (1) fused with nothing, a shuffle into a sink (2) at parallelism 2. */
const job = {
  jobId: '1',
  // As JobInfo carries a nested env block: its top key, the rest as JSON.
  envOptions: { engine: JSON.stringify({ observability: { enabled: true, bucket_ms: 1000 } }) },
  vertices: [
    { vertexId: 1, type: 'source', pipelineId: 1, tablePaths: ['t'] },
    { vertexId: 2, type: 'sink', pipelineId: 1, tablePaths: ['t'] },
  ],
  edges: [{ pipelineId: 1, inputVertexId: 1, targetVertexId: 2 }],
} as unknown as JobInfo;

function task(index: number, vertexIds: number[], acc: [number, number, number], queue: [number, number] = [0, 0]): TaskBusyness {
  return {
    pipelineId: 1,
    taskGroupIndex: index,
    vertexIds,
    accumulatedBusyMs: acc[0],
    accumulatedIdleMs: acc[1],
    accumulatedBackPressuredMs: acc[2],
    inQueueBatches: queue[0],
    inQueueCapacity: queue[1],
  } as TaskBusyness;
}

const metrics = (tasks: TaskBusyness[], sinkRows: number) =>
  ({ tasks, tables: [{ table: 't', sinkWriteCount: sinkRows }] }) as unknown as JobMetrics;

describe('the live vertex and edge series', () => {
  it("reads SeaTunnel's engine.observability keys with its defaults", () => {
    expect(observabilityOf(job)).toEqual({ enabled: true, bucketMs: 1000, retentionMinutes: 3 });
    expect(observabilityOf({ envOptions: {} } as unknown as JobInfo)).toEqual({ enabled: false, bucketMs: 5000, retentionMinutes: 3 });
    expect(emptySeries(observabilityOf({ envOptions: {} } as unknown as JobInfo), 60_000, 100_000, 'edges')).toEqual({
      enabled: false,
      bucketMs: 5000,
      fromMs: 40_000,
      toMs: 100_000,
      edges: [],
    });
  });

  it('folds the time and rows between two reads into the bucket of the second, per vertex and per shuffle', () => {
    const s = new JobSeries(observabilityOf(job));
    const t0 = 10_000_000;
    // The first read sets the baselines only.
    s.update(job, metrics([task(0, [1], [100, 0, 0]), task(1, [2], [50, 50, 0], [4, 16]), task(2, [2], [0, 100, 0], [0, 16])], 10), t0, t0);
    expect(s.vertices(60_000, t0).vertices).toEqual([]);
    // 800 ms later: the source was back-pressured 600 of them, the sinks busy 800 and 400, 40 rows written.
    const t1 = t0 + 800;
    s.update(
      job,
      metrics([task(0, [1], [300, 0, 600]), task(1, [2], [850, 50, 0], [16, 16]), task(2, [2], [400, 500, 0], [8, 16])], 50),
      t1,
      t1,
    );
    const v = s.vertices(60_000, t1);
    expect(v).toMatchObject({ bucketMs: 1000, fromMs: t1 - 60_000, toMs: t1 });
    const [source, sink] = v.vertices;
    expect(source.vertexId).toBe(1);
    expect(source.points).toEqual([
      expect.objectContaining({ ts: t1 - (t1 % 1000), subtaskCount: 1, sourceReadNs: 200e6, sourceIdleNs: 0, sourceReadRatio: 0.25 }),
    ]);
    expect(sink.points[0]).toMatchObject({
      subtaskCount: 2,
      sinkWriteNs: 1200e6,
      sinkRecordsIn: 40,
      sinkBusyRatio: 0.75,
      sinkWriteNsPerRecord: 30e6,
      sinkCommitNs: 0,
      transformRecordsIn: 0,
    });
    expect(s.edges(60_000, t1).edges).toEqual([
      {
        queueId: 2,
        targetVertexId: 2,
        points: [
          {
            ts: t1 - (t1 % 1000),
            emitBlockedNs: 600e6,
            subtaskCount: 2,
            bpRatio: 0.75,
            queueCapacity: 32,
            queueSize: 24,
            queueFillRatio: 0.75,
          },
        ],
      },
    ]);
    // A task group restarted (its totals went back) adds nothing; a read that started before the
    // last applied one is dropped.
    const t2 = t1 + 1000;
    s.update(
      job,
      metrics([task(0, [1], [10, 0, 0]), task(1, [2], [900, 50, 0], [0, 16]), task(2, [2], [450, 500, 0], [0, 16])], 50),
      t2,
      t2,
    );
    expect(s.vertices(60_000, t2).vertices[0].points.at(-1)).toMatchObject({ sourceReadNs: 0 });
    s.update(job, metrics([task(0, [1], [99_999, 0, 0])], 50), t1 - 1, t2 + 10);
    expect(s.vertices(60_000, t2 + 10).vertices[0].points.at(-1)).toMatchObject({ sourceReadNs: 0 });
    // The window and the retention bound what is answered.
    expect(
      s
        .vertices(500, t2)
        .vertices.flatMap((x) => x.points)
        .every((p) => p.ts >= t2 - 500),
    ).toBe(true);
  });
});
