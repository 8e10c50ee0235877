import type { CheckpointPointer, StoredJobInfo, StoredJobState } from '../state-store.js';

/** Sample stored values for the state store and election tests (no test framework: child processes import it too). */

/** A submitted job's immutable part, with a secret in its config (the store keeps it as given). */
export function jobInfo(jobId: string, submitTimeMs = 1_000): StoredJobInfo {
  return {
    jobId,
    jobName: `job ${jobId}`,
    configText: 'source { Jdbc { password = "s3cret" } }',
    configFile: 'job.conf',
    format: 'hocon',
    variables: { day: '2026-12-01' },
    restoreJobId: '',
    submitTimeMs,
    planJson: '',
  };
}

export function jobState(status: string, finishTimeMs = 0, epoch = 1): StoredJobState {
  return {
    status,
    jobMode: 'BATCH',
    startTimeMs: 2_000,
    finishTimeMs,
    pipelines: [
      {
        pipelineId: 1,
        status: 'RUNNING',
        attempt: 0,
        restarts: 0,
        completedCheckpoints: 3,
        failedCheckpoints: 0,
        lastCheckpointTimeMs: 3_000,
        sinksPrepared: true,
        taskGroups: [{ index: 0, state: 'RUNNING', slot: { slotId: 's1', workerId: 'w1', workerAddress: '127.0.0.1:5803', owner: 'j' } }],
        counters: [{ table: 'fake', sourceReceivedCount: 10, sinkWriteCount: 9, sourceReceivedBytes: 100, sinkWriteBytes: 90 }],
      },
    ],
    failovers: [],
    epoch,
    updatedAtMs: 4_000,
  };
}

export function pointer(pipelineId: number, checkpointId: number): CheckpointPointer {
  return { pipelineId, checkpointId, key: `cp/${pipelineId}/${checkpointId}`, timestamp: 5_000 + checkpointId, kind: 'CHECKPOINT' };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
