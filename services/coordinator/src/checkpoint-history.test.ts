import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { planJobText } from '@tideway/planner';
import type { StoredJobState } from '@tideway/cluster';
import { CheckpointCoordinator, type CheckpointOutcome, type CheckpointParticipants } from './checkpoint-coordinator.js';
import { CheckpointHistory } from './checkpoint-history.js';
import { FakeResources, FakeWorkers, MemoryStorage, ackState as state, slot, tick } from './gateway-fakes.js';
import { JobMaster } from './job-master.js';

/** A hand-written fake pipeline of two task groups that records how each checkpoint ended. */
function fakeParticipants(outcomes: CheckpointOutcome[]): CheckpointParticipants {
  return {
    taskGroups: () => [0, 1],
    trigger: async () => undefined,
    snapshotEnumerators: async () => ({}),
    complete: async () => {
      await tick(20); // storage and commit take a while: duration exceeds alignment
    },
    notifyComplete: async () => undefined,
    notifyAborted: async () => undefined,
    onEnded: (o) => outcomes.push(o),
  };
}

describe('checkpoint history', () => {
  it('every checkpoint ends once: completed (with its alignment), failed (timed out), aborted (the pipeline stopped)', async () => {
    const outcomes: CheckpointOutcome[] = [];
    const cc = new CheckpointCoordinator(1, { intervalMs: 0, timeoutMs: 100, minPauseMs: 0 }, fakeParticipants(outcomes));
    expect(cc.inFlight()).toBeUndefined();
    const first = cc.trigger('CHECKPOINT');
    await tick(15);
    await cc.acknowledge(0, 1, state, {});
    expect(cc.inFlight()).toMatchObject({ checkpointId: 1, kind: 'CHECKPOINT', acknowledged: 1, total: 2 });
    await cc.acknowledge(1, 1, state, {});
    expect(await first).toBe(true);
    expect(cc.inFlight()).toBeUndefined();
    const second = cc.trigger('CHECKPOINT');
    await tick();
    await cc.acknowledge(0, 2, state, {});
    expect(await second).toBe(false); // task group 1 never answers
    const third = cc.trigger('SAVEPOINT');
    await tick();
    cc.stop();
    expect(await third).toBe(false);
    expect(outcomes.map((o) => [o.checkpointId, o.kind, o.state])).toEqual([
      [1, 'CHECKPOINT', 'COMPLETED'],
      [2, 'CHECKPOINT', 'FAILED'],
      [3, 'SAVEPOINT', 'ABORTED'],
    ]);
    const [done, failed, aborted] = outcomes;
    expect(done.alignedAt! - done.triggeredAt).toBeGreaterThanOrEqual(10);
    expect(done.endedAt).toBeGreaterThan(done.alignedAt!);
    expect(failed.alignedAt).toBeUndefined();
    expect(failed.reason).toBe('timed out after 100 ms');
    expect(failed.endedAt - failed.triggeredAt).toBeGreaterThanOrEqual(100);
    expect(aborted.reason).toBe('the pipeline stopped while it was in flight');
  });

  it('keeps the last N, newest first, and goes on from a recorded history', () => {
    const h = new CheckpointHistory(2);
    const outcome = (id: number, s: CheckpointOutcome['state']): CheckpointOutcome => ({
      checkpointId: id,
      kind: 'CHECKPOINT',
      triggeredAt: 1000 * id,
      endedAt: 1000 * id + 40,
      alignedAt: s === 'COMPLETED' ? 1000 * id + 25 : undefined,
      state: s,
      reason: s === 'COMPLETED' ? '' : 'boom',
    });
    h.add(outcome(1, 'COMPLETED'), 512);
    h.add(outcome(2, 'FAILED'), 999);
    h.add(outcome(3, 'COMPLETED'), 2048);
    expect(h.list()).toEqual([
      {
        checkpointId: 3,
        kind: 'CHECKPOINT',
        triggerTimeMs: 3000,
        durationMs: 40,
        stateBytes: 2048,
        alignmentMs: 25,
        state: 'COMPLETED',
        failureReason: '',
      },
      {
        checkpointId: 2,
        kind: 'CHECKPOINT',
        triggerTimeMs: 2000,
        durationMs: 40,
        stateBytes: 0,
        alignmentMs: 0,
        state: 'FAILED',
        failureReason: 'boom',
      },
    ]);
    const next = new CheckpointHistory(2);
    next.resume(h.list());
    next.add(outcome(4, 'COMPLETED'), 1);
    expect(next.list().map((r) => r.checkpointId)).toEqual([4, 3]);
  });

  it("a job's pipelines record their checkpoints with the stored size, and a new leader resumes the history, ended pipelines too", async () => {
    const planned = await planJobText(
      `env { job.mode = "BATCH", parallelism = 2 }
       source { FakeSource { row.num = 10, schema = { fields { id = "int" } } } }
       sink { Console {} }`,
      { jobId: 'j1', file: 'job.conf' },
    );
    const workers = new FakeWorkers();
    const recorded: number[] = [];
    const deps = { workers, resources: new FakeResources(), storage: new MemoryStorage() };
    const settings = { checkpoint: { intervalMs: 0, timeoutMs: 1000, minPauseMs: 0, historySize: 5 }, retryTimes: 0, retryIntervalMs: 0 };
    const job = new JobMaster(
      planned,
      deps,
      { onJobStatus: () => undefined, onPipelineEnded: () => undefined, onCheckpoint: (_j, _p, r) => recorded.push(r.checkpointId) },
      settings,
    );
    job.enqueue();
    await job.run([slot('j1', 0), slot('j1', 1)]);
    const p = job.pipelines[0];
    for (const i of [0, 1]) p.onTaskState(i, 0, 'RUNNING');
    const savepoint = p.checkpoints.trigger('SAVEPOINT');
    await tick();
    for (const t of workers.triggered) await p.onAck(t.loc.taskGroupIndex, 0, t.id, state, {});
    expect(await savepoint).toBe(true);
    expect(recorded).toEqual([1]);
    const [record] = p.checkpointHistory;
    expect(record).toMatchObject({ checkpointId: 1, kind: 'SAVEPOINT', state: 'COMPLETED', failureReason: '' });
    expect(record.stateBytes).toBe(serialize(deps.storage.stored[0]).byteLength);

    // A new leader reads the job's recorded state: its history goes on from there.
    const stored: StoredJobState = {
      status: 'RUNNING',
      jobMode: 'BATCH',
      startTimeMs: job.startTime,
      finishTimeMs: 0,
      pipelines: [
        {
          pipelineId: p.pipelineId,
          status: 'FINISHED',
          attempt: 0,
          restarts: 0,
          completedCheckpoints: 1,
          failedCheckpoints: 0,
          lastCheckpointTimeMs: p.lastCheckpointTime,
          sinksPrepared: true,
          taskGroups: [],
          counters: [],
          checkpointHistory: p.checkpointHistory,
        },
      ],
      failovers: [],
      epoch: 1,
      updatedAtMs: Date.now(),
    };
    const next = new JobMaster(planned, deps, { onJobStatus: () => undefined, onPipelineEnded: () => undefined }, settings);
    await next.resume(stored, 2, () => []);
    expect(next.pipelines[0].checkpointHistory).toEqual([record]);
  });
});
