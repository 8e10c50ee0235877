/**
 * The spare task thread a worker keeps started ahead (docs/decisions/0079): taken once, given to
 * one owner, never kept after close, and a task group deployed with it runs in it.
 */
import { describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import { SpareTaskThread, TaskGroupThread } from './task-group-thread.js';
import type { TaskGroupDescriptor } from './descriptor.js';
import type { FromTaskGroup } from './protocol.js';

const exited = (w: Worker) => new Promise<number>((resolve) => w.once('exit', resolve));

describe('SpareTaskThread', () => {
  it('gives its thread to one taker; fill starts another; close stops it and starts no more', async () => {
    const spare = new SpareTaskThread();
    expect(spare.take()).toBeUndefined();
    spare.fill();
    spare.fill(); // one spare at most
    const first = spare.take()!;
    expect(first.worker.threadId).toBeGreaterThan(0);
    expect(spare.take()).toBeUndefined();
    spare.fill();
    await spare.close();
    expect(spare.take()).toBeUndefined();
    spare.fill();
    expect(spare.take()).toBeUndefined();
    const gone = exited(first.worker);
    await first.worker.terminate();
    await gone;
  }, 60_000);

  it('fillSoon starts the spare a moment later, and not at all when closed meanwhile', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const spare = new SpareTaskThread();
    spare.fillSoon();
    expect(spare.take()).toBeUndefined();
    await sleep(800);
    const taken = spare.take()!;
    expect(taken.worker.threadId).toBeGreaterThan(0);
    await taken.worker.terminate();

    spare.fillSoon();
    await spare.close();
    await sleep(800);
    expect(spare.take()).toBeUndefined();
  }, 60_000);

  it.each([false, true])(
    'a task group deployed with the spare runs in that thread and reports from it (plugins preloaded: %s)',
    async (preload) => {
      const spare = new SpareTaskThread();
      spare.fill();
      // A preload of the job's plugins (one of them unknown) changes nothing the task group reports.
      if (preload)
        spare.preload([
          { type: 'source', name: 'NoSuchSource' },
          { type: 'sink', name: 'Console' },
        ]);
      // A descriptor whose source plugin does not exist: the task group fails at open, in the thread.
      const descriptor = {
        jobId: 'spare-job',
        pipelineId: 1,
        taskGroupIndex: 0,
        subtaskIndex: 0,
        jobMode: 'BATCH',
        rowsPerSecond: 0,
        root: {
          vertexId: 1,
          parallelism: 1,
          plugin: { type: 'source', name: 'NoSuchSource', config: {}, file: 'job.conf', line: 1 },
          inputTables: [],
          children: [],
        },
      } as unknown as TaskGroupDescriptor;
      const messages: FromTaskGroup[] = [];
      let ended!: (code: number) => void;
      const exit = new Promise<number>((resolve) => (ended = resolve));
      const thread = new TaskGroupThread(
        descriptor,
        (m) => messages.push(m),
        (code) => ended(code),
        true,
        {},
        spare,
      );
      // The spare was taken: nothing is left to take.
      expect(spare.take()).toBeUndefined();
      expect(thread.threadId).toBeGreaterThan(0);
      await exit;
      const failed = messages.find((m) => m.type === 'state' && m.state === 'FAILED');
      expect(failed).toBeDefined();
      expect(JSON.stringify(failed)).toMatch(/NoSuchSource/);
      await spare.close();
    },
    60_000,
  );
});
