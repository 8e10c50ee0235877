import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginConfig } from '@tideway/config';
import { usePluginDirs } from '@tideway/plugins/lazy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isPluginPackage, PluginThread } from './plugin-thread.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-thread-'));

/** A source whose enumerator does what `mode` says when a reader asks for a split. */
const CODE = `export const factory = {
  type: 'source', name: 'Moody', description: 'test',
  spec: { options: [{ name: 'mode', type: 'string', default: 'ok', description: 'what handleSplitRequest does' }] },
  create: (ctx) => ({
    boundedness: () => 'BOUNDED',
    catalogTables: () => [],
    createEnumerator: (ectx) => ({
      open() {}, run() {}, registerReader() {}, addSplitsBack() {}, close() {},
      snapshotState: () => ({ mode: ctx.options.get('mode') }),
      handleSplitRequest(subtask) {
        const mode = ctx.options.get('mode');
        if (mode === 'spin') for (;;) {}
        if (mode === 'timer') setTimeout(() => { throw new Error('Moody: thrown from a timer'); }, 10);
        if (mode === 'checkpoint') ectx.requestCheckpoint();
        ectx.assignSplits(subtask, [{ splitId: 's' + subtask }]);
      },
    }),
    createReader: () => { throw new Error('no reader here'); },
  }),
};
`;

beforeAll(() => {
  const pkg = join(dir, 'moody');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: 'moody',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      tideway: { api: '^0.1.0', plugins: [{ name: 'Moody', kind: 'source', factory: 'factory' }] },
    }),
  );
  writeFileSync(join(pkg, 'index.js'), CODE);
  usePluginDirs([dir]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plugin = (mode: string): PluginConfig => ({
  type: 'source',
  name: 'Moody',
  index: 0,
  file: 'job.conf',
  line: 3,
  options: { mode },
  optionLines: {},
});
const spec = { jobId: 'j1', jobMode: 'BATCH' as const, parallelism: 2, inputTables: [] };

let thread: PluginThread | undefined;
afterEach(async () => {
  await thread?.close();
  thread = undefined;
});

function start(mode: string, limits = {}) {
  const events: string[] = [];
  thread = new PluginThread('j1', 1, new Map([[5, plugin(mode)]]), limits, {
    onFailure: (err) => events.push(`failure: ${err.message}`),
    onCheckpointRequest: () => events.push('checkpoint requested'),
  });
  return { enumerator: thread.enumerator(5, plugin(mode), spec), events };
}

describe('PluginThread', () => {
  it('hosts a plugin package source and not a built-in one', () => {
    expect(isPluginPackage('source', 'moody')).toBe(true);
    expect(isPluginPackage('source', 'FakeSource')).toBe(false);
  });

  it('runs the enumerator in its thread: assignments, its state and its checkpoint requests cross by messages', async () => {
    const { enumerator, events } = start('checkpoint');
    await enumerator.open(undefined);
    expect(await enumerator.request(1, true, true, [])).toEqual({ splits: [{ splitId: 's1' }], noMoreSplits: false });
    expect(await enumerator.snapshot(7)).toEqual({ state: { mode: 'checkpoint' }, undelivered: {} });
    expect(events).toEqual(['checkpoint requested']);
  }, 60_000);

  it('a call past its limit: the attempt fails first with the sentence naming the plugin, its place and the call, then the call rejects', async () => {
    const { enumerator, events } = start('spin', { enumerate: 1000 });
    await enumerator.open(undefined);
    const call = enumerator.request(0, true, true, []).catch((err: Error) => {
      events.push(`call: ${err.message}`);
    });
    await call;
    const sentence =
      "source Moody (job.conf:3): its SplitEnumerator.handleSplitRequest call did not return within 1 s (tideway.plugin-call-timeout.enumerate); its pipeline's plugin thread on the coordinator was stopped";
    expect(events).toEqual([`failure: ${sentence}`, `call: ${sentence}`]);
    // Later calls reject at once; closing a stopped thread is no error.
    await expect(enumerator.snapshot(1)).rejects.toThrow(sentence);
    await expect(enumerator.close()).resolves.toBeUndefined();
  }, 60_000);

  it('a plugin that throws from a timer ends the thread: the attempt fails naming the plugin', async () => {
    const { enumerator, events } = start('timer');
    await enumerator.open(undefined);
    await enumerator.request(0, true, true, []);
    await expect.poll(() => events, { timeout: 30_000 }).toHaveLength(1);
    expect(events[0]).toBe(
      'failure: source Moody (job.conf:3): the coordinator thread running its plugin code ended: Moody: thrown from a timer',
    );
  }, 60_000);
});
