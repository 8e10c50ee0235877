import { RedisStateStore, type StoredJobInfo, type StoredJobState } from '@tideway/cluster';

/** The DAG an ended FakeSource -> Console job records (JobDagInfo as the coordinator stores it). */
const PLAN_JSON = JSON.stringify({
  vertices: [
    { vertexId: 1, type: 'source', pluginName: 'FakeSource', tablePaths: ['fake'], parallelism: 1, pipelineId: 1, configIndex: 0 },
    { vertexId: 2, type: 'sink', pluginName: 'Console', tablePaths: ['fake'], parallelism: 1, pipelineId: 1, configIndex: 0 },
  ],
  edges: [{ inputVertexId: 1, targetVertexId: 2, pipelineId: 1 }],
  envOptions: { 'job.mode': 'BATCH' },
});

/**
 * Writes `count` ended (FINISHED) jobs into the Redis state store at `address`, as a leader
 * would have recorded them, so a coordinator started on that store has them in its history.
 * Job ids are 1000000000000000000 + i, submitted one second apart ending with the newest;
 * returns them, oldest first.
 */
export async function fillHistory(address: string, count: number): Promise<string[]> {
  const store = new RedisStateStore({ address });
  await store.open();
  try {
    const epoch = await store.claimEpoch('history-filler');
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const jobId = String(1_000_000_000_000_000_000n + BigInt(i));
      const submitTimeMs = now - (count - i) * 1000;
      const info: StoredJobInfo = {
        jobId,
        jobName: `history_${String(i).padStart(4, '0')}`,
        configText: 'env { job.mode = "BATCH" }',
        configFile: `history-${i}.conf`,
        format: 'hocon',
        variables: {},
        restoreJobId: '',
        submitTimeMs,
        planJson: PLAN_JSON,
      };
      const state: StoredJobState = {
        status: 'FINISHED',
        jobMode: 'BATCH',
        startTimeMs: submitTimeMs + 10,
        finishTimeMs: submitTimeMs + 500,
        pipelines: [
          {
            pipelineId: 1,
            status: 'FINISHED',
            attempt: 0,
            restarts: 0,
            completedCheckpoints: 1,
            failedCheckpoints: 0,
            lastCheckpointTimeMs: submitTimeMs + 400,
            sinksPrepared: true,
            taskGroups: [{ index: 0, state: 'FINISHED' }],
            counters: [{ table: 'fake', sourceReceivedCount: 10, sinkWriteCount: 10, sourceReceivedBytes: 100, sinkWriteBytes: 100 }],
          },
        ],
        failovers: [],
        epoch,
        updatedAtMs: submitTimeMs + 500,
      };
      await store.submitJob(epoch, info, { ...state, status: 'RUNNING', finishTimeMs: 0 });
      await store.endJob(epoch, jobId, state, 24 * 3600_000);
      ids.push(jobId);
    }
    return ids;
  } finally {
    await store.close();
  }
}
