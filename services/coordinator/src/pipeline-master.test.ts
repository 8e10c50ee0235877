import { describe, expect, it } from 'vitest';
import { ErrorCode, type SerializedError } from '@tideway/common';
import { PIPELINE_STATUS, type PipelineStatus } from '@tideway/dag';
import { planJobText, type PlannedJob } from '@tideway/planner';
import { FakeResources, FakeWorkers, MemoryStorage, ackState, tick, until } from './gateway-fakes.js';
import { PipelineMaster } from './pipeline-master.js';

const config = (retries: number) => `
env { job.mode = "BATCH", parallelism = 2, job.retry.times = ${retries}, job.retry.interval.seconds = 0 }
source { FakeSource { row.num = 10, schema = { fields { id = "int" } } } }
sink { Console {} }
`;

const failure = (message: string): SerializedError => ({ code: ErrorCode.TASK_FAILED, message, retryable: true });

interface Options {
  retries?: number;
  retryIntervalMs?: number;
  /** Changes the planned job (its plugins) before the pipeline is made. */
  job?: (planned: PlannedJob) => PlannedJob;
  /** checkpoint.interval (default 0: none). */
  checkpointIntervalMs?: number;
}

/** One pipeline of two task groups (source and sink fused, parallelism 2) on hand-written gateways. */
async function newPipeline(opts: Options = {}) {
  const planned = await planJobText(config(opts.retries ?? 1), { jobId: 'j1', file: 'job.conf' });
  const job = opts.job?.(planned) ?? planned;
  const workers = new FakeWorkers();
  const resources = new FakeResources();
  const storage = new MemoryStorage();
  const statuses: PipelineStatus[] = [];
  const failovers: string[] = [];
  const p = new PipelineMaster(
    job,
    job.pipelines[0],
    {
      workers,
      resources,
      storage,
      listener: { onStatus: (pm) => statuses.push(pm.status), onFailover: (_pm, reason) => failovers.push(reason) },
    },
    {
      checkpoint: { intervalMs: opts.checkpointIntervalMs ?? 0, timeoutMs: 2000, minPauseMs: 0 },
      retryTimes: job.env.jobRetryTimes,
      retryIntervalMs: opts.retryIntervalMs ?? 0,
    },
  );
  return { p, workers, resources, storage, statuses, failovers };
}

function running(p: PipelineMaster, attempt: number): void {
  for (const i of [0, 1]) p.onTaskState(i, attempt, 'RUNNING');
}

/** As workers would: done reading, the final checkpoint acknowledged, then finished. */
async function finish(p: PipelineMaster, workers: FakeWorkers, attempt: number): Promise<void> {
  for (const i of [0, 1]) p.onTaskState(i, attempt, 'PREPARE_CLOSE');
  const final = () => workers.triggered.filter((t) => t.kind === 'COMPLETED_POINT' && t.loc.attempt === attempt);
  await until(() => final().length === 2, 'the final checkpoint');
  for (const t of final()) await p.onAck(t.loc.taskGroupIndex, attempt, t.id, ackState, {});
  const id = final()[0].id;
  await until(() => workers.completed.filter((c) => c.id === id && c.loc.attempt === attempt).length === 2, 'its completion');
  for (const i of [0, 1]) p.onTaskState(i, attempt, 'FINISHED');
  await tick();
}

/** The planned job with sinks whose abandon() counts its calls and waits for `gate`. */
function heldAbandon(gate: Promise<void>, calls: { n: number }) {
  return (planned: PlannedJob): PlannedJob => {
    const registry = planned.registry;
    const held = Object.create(registry) as typeof registry;
    held.get = (type, name, place) => {
      const f = registry.get(type, name, place);
      if (f.type !== 'sink') return f;
      return {
        ...f,
        create: (ctx) => {
          const sink = f.create(ctx);
          sink.abandon = async () => {
            calls.n++;
            await gate;
          };
          return sink;
        },
      };
    };
    return { ...planned, registry: held };
  };
}

/** The planned job with sinks whose aggregated committer throws on every commit. */
function failingCommit(commits: { n: number }) {
  return (planned: PlannedJob): PlannedJob => {
    const registry = planned.registry;
    const failing = Object.create(registry) as typeof registry;
    failing.get = (type, name, place) => {
      const f = registry.get(type, name, place);
      if (f.type !== 'sink') return f;
      return {
        ...f,
        create: (ctx) => {
          const sink = f.create(ctx);
          sink.createAggregatedCommitter = () => ({
            combine: (infos: unknown[]) => infos,
            commit: () => {
              commits.n++;
              throw new Error('the target refused the commit');
            },
            abort: () => undefined,
          });
          return sink;
        },
      };
    };
    return { ...planned, registry: failing };
  };
}

describe('PipelineMaster failure handling', () => {
  it('a task group failing while the pipeline restarts: late reports of the old attempt change nothing, the new attempt fails over again', async () => {
    const { p, workers, resources, statuses } = await newPipeline({ retries: 2, retryIntervalMs: 100 });
    await p.deploy(await resources.apply('j1', ['1/0', '1/1']));
    running(p, 0);
    p.onTaskState(0, 0, 'FAILED', failure('boom 0'));
    p.onTaskState(1, 0, 'CANCELED');
    await until(() => p.status === 'INITIALIZING', 'the restart');
    // A report of the failed attempt that comes during the restart's pause is no news.
    p.onTaskState(1, 0, 'FAILED', failure('late'));
    expect(p.status).toBe('INITIALIZING');
    workers.holdDeploys();
    await until(() => workers.deployed.filter((l) => l.attempt === 1).length === 2, 'the deploys of attempt 1');
    expect(p.attempt).toBe(1);
    expect(p.status).toBe('DEPLOYING');
    // Task group 0 of the new attempt fails while the deploy calls are still out.
    p.onTaskState(0, 1, 'FAILED', failure('boom 1'));
    expect(p.status).toBe('FAILING');
    expect(p.attempt).toBe(1);
    workers.releaseDeploys();
    // Task group 1 was deployed after the failure: it is told to stop, and the restart waits for it.
    await until(() => workers.cancelled.filter((l) => l.attempt === 1).length === 2, 'the cancel after the deploy');
    await tick(150);
    expect(p.attempt).toBe(1);
    p.onTaskState(1, 1, 'CANCELED');
    await until(() => p.status === 'DEPLOYING' && p.attempt === 2, 'attempt 2');
    expect(p.restarts).toBe(2);
    running(p, 2);
    await finish(p, workers, 2);
    await until(() => p.isEnded(), 'the end');
    expect(p.status).toBe('FINISHED');
    const attempt = ['CREATED', 'SCHEDULED', 'DEPLOYING'];
    expect(statuses).toEqual([
      ...attempt.slice(1),
      'RUNNING',
      'FAILING',
      'INITIALIZING',
      ...attempt,
      'FAILING',
      'INITIALIZING',
      ...attempt,
      'RUNNING',
      'FINISHED',
    ]);
  });

  it('a commit that throws after its checkpoint completed fails the pipeline, the restart commits again, and past the retries the pipeline FAILS (no hang at the final checkpoint)', async () => {
    const commits = { n: 0 };
    const { p, workers, resources, failovers } = await newPipeline({ retries: 1, job: failingCommit(commits) });
    const sinkVertex = p.plan.sinks[0].vertexId;
    await p.deploy(await resources.apply('j1', ['1/0', '1/1']));
    running(p, 0);
    for (const i of [0, 1]) p.onTaskState(i, 0, 'PREPARE_CLOSE');
    const final = () => workers.triggered.filter((t) => t.kind === 'COMPLETED_POINT' && t.loc.attempt === 0);
    await until(() => final().length === 2, 'the final checkpoint');
    for (const t of final())
      await p.onAck(t.loc.taskGroupIndex, 0, t.id, ackState, { [sinkVertex]: [{ file: `part-${t.loc.taskGroupIndex}` }] });
    await until(() => p.status === 'FAILING', 'the pipeline failing on the commit');
    expect(commits.n).toBe(1);
    expect(failovers[0]).toMatch(/the target refused the commit/);
    for (const i of [0, 1]) p.onTaskState(i, 0, 'CANCELED');
    // The restart restores from the completed checkpoint and commits its work again: it throws again.
    await until(() => p.isEnded(), 'the end', 10_000);
    expect(p.status).toBe('FAILED');
    expect(commits.n).toBe(2);
    expect(p.error?.message).toMatch(/the target refused the commit/);
  });

  it('a worker lost during a checkpoint: the checkpoint aborts and the pipeline restarts from the one before, on a new slot', async () => {
    const { p, workers, resources, storage } = await newPipeline();
    resources.nextWorker = 'worker:a';
    const [a] = await resources.apply('j1', ['1/0']);
    resources.nextWorker = 'worker:b';
    const [b] = await resources.apply('j1', ['1/1']);
    await p.deploy([a, b]);
    running(p, 0);
    const first = p.checkpoints.trigger('CHECKPOINT');
    await until(() => workers.triggered.length === 2, 'checkpoint 1');
    for (const t of workers.triggered) await p.onAck(t.loc.taskGroupIndex, 0, t.id, ackState, {});
    expect(await first).toBe(true);
    const second = p.checkpoints.trigger('CHECKPOINT');
    await until(() => workers.triggered.filter((t) => t.id === 2).length === 2, 'checkpoint 2');
    await p.onAck(0, 0, 2, ackState, {});
    resources.nextWorker = 'worker:c';
    p.onWorkerLost('worker:b');
    expect(await second).toBe(false);
    expect(p.status).toBe('FAILING');
    // Only the task group on the live worker is asked to stop.
    expect(workers.cancelled.map((l) => [l.taskGroupIndex, l.attempt])).toEqual([[0, 0]]);
    // The lost worker's acknowledgement of the aborted checkpoint arrives late: ignored.
    await p.onAck(1, 0, 2, ackState, {});
    p.onTaskState(0, 0, 'CANCELED');
    await until(() => p.status === 'DEPLOYING' && p.attempt === 1, 'attempt 1');
    expect(resources.released).toEqual([[b.slotId]]);
    const redeployed = workers.deployed
      .map((l, i) => [l.attempt, l.taskGroupIndex, workers.deployedTo[i], workers.deployedFrom[i]])
      .filter(([attempt]) => attempt === 1);
    expect(redeployed).toEqual([
      [1, 0, 'worker:a', 1],
      [1, 1, 'worker:c', 1],
    ]);
    expect(storage.stored.map((c) => c.checkpointId)).toEqual([1]);
    expect(p.completedCheckpoints).toBe(1);
    running(p, 1);
    await finish(p, workers, 1);
    await until(() => p.isEnded(), 'the end');
    expect(p.status).toBe('FINISHED');
    expect(storage.stored.map((c) => [c.checkpointId, c.kind])).toEqual([
      [1, 'CHECKPOINT'],
      [2, 'COMPLETED_POINT'],
    ]);
  });

  it('a cancel that comes while a finished pipeline ends (its sinks abandoning leftovers) ends it CANCELED, once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls = { n: 0 };
    const { p, workers, resources, statuses } = await newPipeline({ job: heldAbandon(gate, calls) });
    await p.deploy(await resources.apply('j1', ['1/0', '1/1']));
    running(p, 0);
    await finish(p, workers, 0);
    await until(() => calls.n === 1, 'the sinks to abandon');
    expect(p.status).toBe('RUNNING');
    p.cancel(true);
    expect(p.status).toBe('CANCELING');
    release();
    await until(() => p.isEnded(), 'the end');
    expect(p.status).toBe('CANCELED');
    expect(statuses.filter((s) => PIPELINE_STATUS.isTerminal(s))).toEqual(['CANCELED']);
    expect(calls.n).toBe(1);
  });

  it('a cancel that comes during the pause before a restart ends the pipeline CANCELED without a new attempt', async () => {
    const { p, workers, resources, statuses } = await newPipeline({ retryIntervalMs: 100 });
    await p.deploy(await resources.apply('j1', ['1/0', '1/1']));
    running(p, 0);
    p.onTaskState(0, 0, 'FAILED', failure('boom'));
    p.onTaskState(1, 0, 'CANCELED');
    await until(() => p.status === 'INITIALIZING', 'the restart');
    p.cancel(true);
    await until(() => p.isEnded(), 'the end');
    expect(p.status).toBe('CANCELED');
    await tick(150);
    expect(workers.deployed.filter((l) => l.attempt > 0)).toHaveLength(0);
    expect(statuses.slice(-4)).toEqual(['FAILING', 'INITIALIZING', 'CANCELING', 'CANCELED']);
  });
});

describe('PipelineMaster moving off a draining worker', () => {
  it('takes a checkpoint, then restarts from it with new slots, at once and without spending job.retry.times', async () => {
    const { p, workers, resources, failovers } = await newPipeline({ retries: 0, retryIntervalMs: 60_000, checkpointIntervalMs: 60_000 });
    await p.deploy(await resources.apply('j1', ['1/0', '1/1']));
    running(p, 0);
    expect(p.runsOn('worker:1')).toBe(true);
    resources.nextWorker = 'worker:2';
    const move = p.moveOff('worker:1', 600_000);
    await until(() => workers.triggered.filter((t) => t.kind === 'CHECKPOINT' && t.loc.attempt === 0).length === 2, 'the checkpoint');
    const id = workers.triggered[0].id;
    for (const i of [0, 1]) await p.onAck(i, 0, id, ackState, {});
    await move;
    expect(p.status).toBe('FAILING');
    expect(failovers).toEqual([`moved off draining worker worker:1 from checkpoint ${id}`]);
    await until(() => workers.cancelled.filter((l) => l.attempt === 0).length === 2, 'the cancels');
    for (const i of [0, 1]) p.onTaskState(i, 0, 'CANCELED');
    // No retry interval (60 s here) and no retry spent (job.retry.times 0 would fail the pipeline).
    await until(() => p.status === 'DEPLOYING' && p.attempt === 1, 'attempt 1', 5000);
    expect(resources.released.flat()).toHaveLength(2);
    expect(workers.deployedTo.slice(-2)).toEqual(['worker:2', 'worker:2']);
    expect(workers.deployed.filter((l) => l.attempt === 1)).toHaveLength(2);
    expect(p.error).toBeUndefined();
    running(p, 1);
    expect(p.status).toBe('RUNNING');
    expect(p.runsOn('worker:1')).toBe(false);
    // Nothing left there: a later call does nothing.
    await p.moveOff('worker:1', 600_000);
    expect(p.status).toBe('RUNNING');
    p.cancel(true);
  });

  it('without checkpoints it waits for the batch timeout; a cancel during the move ends the pipeline CANCELED, not FAILED', async () => {
    const { p, workers, resources } = await newPipeline({ retries: 0 });
    await p.deploy(await resources.apply('j1', ['1/0', '1/1']));
    running(p, 0);
    await p.moveOff('worker:1', 200);
    expect(p.status).toBe('RUNNING');
    await tick(250);
    await p.moveOff('worker:1', 200);
    expect(p.status).toBe('FAILING');
    expect(workers.triggered).toHaveLength(0);
    p.cancel(true);
    for (const i of [0, 1]) p.onTaskState(i, 0, 'CANCELED');
    await until(() => p.isEnded(), 'the end');
    expect(p.status).toBe('CANCELED');
  });
});
