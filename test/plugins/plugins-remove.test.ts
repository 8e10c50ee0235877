/**
 * `tideway plugins remove <name>@<version> --local` (issue 33, item 2) on this host's plugin
 * store (the engine config's checkpoint storage, a local folder here): the version is required,
 * a version the store does not hold is refused naming those it holds, and a removed package is
 * gone from the store's index and its archive from the folder, while its other version stays.
 * With a Redis state store (the cluster's), a package an active job there named is refused,
 * naming the job. The leader's refusal while a running job uses a package is in
 * plugin-distribution.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisStateStore } from '@tideway/cluster';
import { startRedis } from '@tideway/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugins-remove-'));
const checkpoints = join(dir, 'checkpoints');
const engine = join(dir, 'seatunnel.yaml');
writeFileSync(
  engine,
  `seatunnel:
  engine:
    checkpoint:
      storage:
        type: localfile
        plugin-config:
          namespace: ${JSON.stringify(checkpoints)}
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function samplePackage(version: string): string {
  const target = join(dir, `sample-${version}`);
  mkdirSync(target, { recursive: true });
  writeFileSync(
    join(target, 'package.json'),
    JSON.stringify({
      name: 'sample-sink',
      version,
      type: 'module',
      exports: './index.js',
      tideway: { api: '^0.1.0', plugins: [{ name: 'SampleSink', kind: 'sink', factory: 'sampleSinkFactory' }] },
    }),
  );
  writeFileSync(
    join(target, 'index.js'),
    `export const sampleSinkFactory = {
  type: 'sink', name: 'SampleSink', description: 'Drops rows.', spec: { options: [] },
  create: () => ({ createWriter: () => ({ write() {}, close() {} }) }),
};
`,
  );
  return target;
}

const local = (args: string[]) => runCli(['plugins', ...args, '--local', '--engine-config', engine], 60_000);
const archives = () => readdirSync(join(checkpoints, 'plugin-packages', 'packages'));

describe('tideway plugins remove --local', () => {
  it('removes one version (its index entry and archive), refuses a missing one naming what is stored', async () => {
    const one = await local(['install', samplePackage('1.0.0')]);
    expect(one.code, one.stderr).toBe(0);
    const two = await local(['install', samplePackage('2.0.0')]);
    expect(two.code, two.stderr).toBe(0);
    const hash1 = one.stdout.trim().split(' ')[1];
    expect(archives().sort()).toEqual([`${hash1}.tgz`, `${two.stdout.trim().split(' ')[1]}.tgz`].sort());

    const noVersion = await local(['remove', 'sample-sink']);
    expect(noVersion.code).toBe(2);
    expect(noVersion.stderr).toBe("tideway: 'sample-sink': expected name@version (the store may hold several versions) [TW-CONFIG-004]\n");

    const missing = await local(['remove', 'sample-sink@3.0.0']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^tideway: tideway plugins remove sample-sink@3\.0\.0: the plugin store holds sample-sink@1\.0\.0, sample-sink@2\.0\.0, not 3\.0\.0 \[TW-JOB-001\]\n$/,
    );

    const removed = await local(['remove', 'sample-sink@1.0.0']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toBe(`tideway: plugin package sample-sink@1.0.0 removed (sink SampleSink), sha256 ${hash1}\n`);
    expect(archives()).toEqual([`${two.stdout.trim().split(' ')[1]}.tgz`]);
    expect(existsSync(join(checkpoints, 'plugin-packages', 'index', `${hash1}.json`))).toBe(false);

    const list = await local(['list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { stored: Array<{ version: string }> }).stored.map((p) => p.version)).toEqual(['2.0.0']);
    const again = await local(['remove', 'sample-sink@1.0.0']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the plugin store holds sample-sink@2.0.0, not 1.0.0');
  }, 180_000);

  it('with a Redis state store, refuses a package an active job of the store named, naming the job', async () => {
    const redis = await startRedis();
    const store = new RedisStateStore({ address: `127.0.0.1:${redis.port}` });
    try {
      const withState = join(dir, 'seatunnel-redis.yaml');
      writeFileSync(
        withState,
        `${readFileSync(engine, 'utf8')}tideway:\n  state-store:\n    type: redis\n    redis:\n      address: 127.0.0.1:${redis.port}\n`,
      );
      const cli = (args: string[]) => runCli(['plugins', ...args, '--local', '--engine-config', withState], 60_000);
      const three = await cli(['install', samplePackage('3.0.0')]);
      expect(three.code, three.stderr).toBe(0);
      const hash = three.stdout.trim().split(' ')[1];
      // A job of the cluster named it (as the leader notes at submit), and the store records it as active.
      const index = join(checkpoints, 'plugin-packages', 'index', `${hash}.json`);
      writeFileSync(index, JSON.stringify({ ...JSON.parse(readFileSync(index, 'utf8')), jobs: ['4242'] }));
      await store.open();
      const epoch = await store.claimEpoch('127.0.0.1:1');
      await store.submitJob(
        epoch,
        {
          jobId: '4242',
          jobName: 'orders',
          configText: '',
          configFile: 'orders.conf',
          format: 'hocon',
          variables: {},
          restoreJobId: '',
          submitTimeMs: Date.now(),
          planJson: '',
        },
        {
          status: 'RUNNING',
          jobMode: 'STREAMING',
          startTimeMs: Date.now(),
          finishTimeMs: 0,
          pipelines: [],
          failovers: [],
          epoch,
          updatedAtMs: Date.now(),
        },
      );
      const refused = await cli(['remove', 'sample-sink@3.0.0']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        'tideway: tideway plugins remove sample-sink@3.0.0: running job 4242 (orders) uses it; cancel it or wait until it ends [TW-STATE-001]\n',
      );
      expect(existsSync(index)).toBe(true);
    } finally {
      await store.close().catch(() => undefined);
      await redis.stop();
    }
  }, 180_000);
});
