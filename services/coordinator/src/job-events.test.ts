import { describe, expect, it } from 'vitest';
import { planJobText } from '@tideway/planner';
import { startHttpReceiver } from '@tideway/testing';
import { FakeResources, FakeWorkers, MemoryStorage, slot, tick, until } from './gateway-fakes.js';
import { JobEventReporter, type JobEvent } from './job-events.js';
import { JobMaster } from './job-master.js';

describe('JobEventReporter', () => {
  it('a job status change, a failed checkpoint, a schema change and a fail-over each become an event, numbered in the job order', async () => {
    const receiver = await startHttpReceiver();
    const reporter = new JobEventReporter([{ name: 'test', url: receiver.url, headers: {}, secret: '' }], {
      bufferSize: 100,
      batchSize: 10,
      flushIntervalMs: 10,
      requestTimeoutMs: 2000,
      maxRetryIntervalMs: 100,
    });
    const planned = await planJobText(
      `env { job.mode = "STREAMING", parallelism = 1, job.retry.times = 1, job.retry.interval.seconds = 0 }
       source { FakeSource { row.num = 10, schema = { fields { id = "int" } } } }
       sink { Console {} }`,
      { jobId: 'j1', file: 'job.conf' },
    );
    const workers = new FakeWorkers();
    const job = new JobMaster(
      planned,
      { workers, resources: new FakeResources(), storage: new MemoryStorage() },
      {
        onJobStatus: (j) => reporter.jobStatus(j, 7),
        onPipelineEnded: () => undefined,
        onCheckpoint: (j, p, r) => reporter.checkpoint(j, 7, p, r),
        onFailover: (j, f) => reporter.failover(j, 7, f),
        onSchemaChange: (j, p, c) => reporter.schemaChange(j, 7, p, c),
      },
      { checkpoint: { intervalMs: 0, timeoutMs: 50, minPauseMs: 0 }, retryTimes: 1, retryIntervalMs: 0 },
    );
    job.enqueue();
    await job.run([slot('j1', 0)]);
    const p = job.pipelines[0];
    p.onTaskState(0, 0, 'RUNNING');
    expect(await p.checkpoints.trigger('CHECKPOINT')).toBe(false); // never acknowledged: times out
    p.onSchemaChange(0, 0, { tableId: 'db.items', changes: ['ADD COLUMN color varchar(16)'], created: false });
    p.onSchemaChange(0, 9, { tableId: 'db.late', changes: [], created: true }); // another attempt's: ignored
    p.onTaskState(0, 0, 'FAILED', { code: 'TW-TASK-001', message: 'boom', retryable: true });
    await tick(30);
    await until(() => receiver.items().length >= 6, 'the events delivered');
    await reporter.close();
    await receiver.close();
    const got = receiver.items<JobEvent>();
    expect(got.map((e) => [e.sequence, e.eventType, e.status ?? e.failureReason ?? e.reason])).toEqual([
      [1, 'JOB_STATUS_CHANGED', 'PENDING'],
      [2, 'JOB_STATUS_CHANGED', 'SCHEDULED'],
      [3, 'JOB_STATUS_CHANGED', 'RUNNING'],
      [4, 'CHECKPOINT_FAILED', 'timed out after 50 ms'],
      [5, 'SCHEMA_CHANGE', undefined],
      [6, 'PIPELINE_FAILOVER', 'boom'],
    ]);
    expect(got[4]).toMatchObject({ pipelineId: 1, tableId: 'db.items', changes: ['ADD COLUMN color varchar(16)'], created: false });
    expect(got[3]).toMatchObject({
      eventId: 'j1-7-4',
      jobId: 'j1',
      epoch: 7,
      pipelineId: 1,
      checkpointId: 1,
      checkpointType: 'CHECKPOINT_TYPE',
    });
    expect(job.eventSequence).toBe(6);
  });
});
