/**
 * The spare task thread a worker keeps started ahead (docs/decisions/0079): taken once, given to
 * one owner, never kept after close, and a task group deployed with it runs in it; one that
 * shares the environment (`tideway run`'s, started before the engine config is read:
 * docs/decisions/0096) sees the plugin folders named after it started.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import { usePluginDirs } from '@tideway/plugins/lazy';
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
      const messages = await runFailingTaskGroup(spare, 'spare-job', preload);
      const failed = messages.find((m) => m.type === 'state' && m.state === 'FAILED');
      expect(failed).toBeDefined();
      expect(JSON.stringify(failed)).toMatch(/NoSuchSource/);
      await spare.close();
    },
    60_000,
  );

  it.each([true, false])(
    'a spare sharing the environment (%s) sees plugin folders named after it started',
    async (shareEnv) => {
      const dir = mkdtempSync(join(tmpdir(), 'tideway-spare-env-'));
      const pkg = join(dir, 'env-seen');
      mkdirSync(pkg);
      writeFileSync(
        join(pkg, 'package.json'),
        JSON.stringify({
          name: 'env-seen',
          version: '1.0.0',
          type: 'module',
          exports: './index.js',
          tideway: { api: '^0.1.0', plugins: [{ name: 'EnvSeen', kind: 'source', factory: 'factory' }] },
        }),
      );
      writeFileSync(
        join(pkg, 'index.js'),
        `export const factory = { type: 'source', name: 'EnvSeen', description: 'test', spec: { options: [] },
  create: () => ({ boundedness: () => 'BOUNDED', catalogTables: () => [], createReader: () => { throw new Error('EnvSeen: the reader was made'); } }) };\n`,
      );
      const spare = new SpareTaskThread(shareEnv);
      spare.fill();
      // Named after the thread started, as `tideway run` does once it has read its engine config.
      usePluginDirs([dir]);
      try {
        const failed = (await runFailingTaskGroup(spare, 'env-job', false, 'EnvSeen')).find(
          (m) => m.type === 'state' && m.state === 'FAILED',
        );
        // Found in the folder: the reader's own error. A copy of the environment taken at the start
        // names no folder: the plugin is unknown there.
        if (shareEnv) expect(JSON.stringify(failed)).toMatch(/EnvSeen: the reader was made/);
        else expect(JSON.stringify(failed)).not.toMatch(/the reader was made/);
        expect(JSON.stringify(failed)).toMatch(/EnvSeen/);
      } finally {
        usePluginDirs([]);
        await spare.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

/** Deploys, with the spare, a task group whose source plugin does not exist; its messages once its thread ended. */
async function runFailingTaskGroup(
  spare: SpareTaskThread,
  jobId: string,
  preload: boolean,
  source = 'NoSuchSource',
): Promise<FromTaskGroup[]> {
  // A preload of the job's plugins (one of them unknown) changes nothing the task group reports.
  if (preload)
    spare.preload([
      { type: 'source', name: 'NoSuchSource' },
      { type: 'sink', name: 'Console' },
    ]);
  // A descriptor whose source plugin does not exist: the task group fails at open, in the thread.
  const descriptor = {
    jobId,
    pipelineId: 1,
    taskGroupIndex: 0,
    subtaskIndex: 0,
    jobMode: 'BATCH',
    rowsPerSecond: 0,
    root: {
      vertexId: 1,
      parallelism: 1,
      plugin: { type: 'source', name: source, index: 0, options: {}, optionLines: {}, file: 'job.conf', line: 1 },
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
  return messages;
}
