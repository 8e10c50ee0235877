/**
 * Plugin packages on two coordinators over a Redis state store (issue 33, items 2 and 3), real
 * `tideway cluster start` processes, a plugin source in the coordinators' plugin folder:
 * - `tideway plugins list` shows what each coordinator loaded, the follower's too (asked by the
 *   leader over CoordinatorService), and after a step-down the former leader, now a follower,
 *   still lists what it loaded;
 * - while the plugin's enumerator spins in handleSplitRequest (in its pipeline's plugin thread),
 *   the leader keeps its lease: no coordinator takes the leadership over, and the job then fails
 *   naming the call.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobStatus } from '@tideway/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHaCluster, type HaCluster } from '../cluster/ha-cluster.js';
import { jobFile } from '../cluster/test-cluster.js';
import { testSourceCode, writePluginPackage } from './plugin-job.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-ha-'));
const pluginDir = join(dir, 'plugins');
let ha: HaCluster;

const job = (name: string, src: string) =>
  jobFile(
    ha.cluster,
    name,
    `env {\n  job.mode = "BATCH"\n  parallelism = 1\n  job.retry.times = 0\n}\nsource {\n  ${src}\n}\nsink {\n  Console {}\n}\n`,
  );

/** The `plugins list` lines of the coordinators: [process, address, packages]. */
async function coordinatorLines(): Promise<string[][]> {
  const list = await ha.cluster.cli(['plugins', 'list'], 60_000);
  expect(list.code, list.stderr).toBe(0);
  return list.stdout
    .split('\n')
    .filter((l) => l.startsWith('coordinator'))
    .map((l) => {
      const m = /^(coordinator(?: \(follower\))?)\s+(\S+)\s+(.*)$/.exec(l.trim())!;
      return [m[1], m[2], m[3].trim()];
    });
}

/** How many times each coordinator took the leadership, by its name. */
const leaderships = () => Object.fromEntries(ha.cluster.coordinatorNames().map((n) => [n, ha.cluster.logLines(n, 'leading the cluster')]));

beforeAll(async () => {
  writePluginPackage(
    pluginDir,
    'test-source',
    { api: '^0.1.0', plugins: [{ name: 'TestSource', kind: 'source', factory: 'factory' }] },
    testSourceCode('TestSource'),
  );
  ha = await startHaCluster({
    workers: [{ attributes: {} }],
    slotNum: 4,
    tidewayYaml: () => ['plugins:', `  dirs: [${JSON.stringify(pluginDir)}]`, 'plugin-call-timeout:', '  enumerate: 12000'],
  });
}, 240_000);

afterAll(async () => {
  await ha?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('plugin packages on two coordinators', () => {
  it("plugins list shows the follower's loaded packages too, before and after a step-down", async () => {
    const c = ha.cluster;
    const res = await c.cli(['submit', '-c', job('rows.conf', 'TestSource { rows = 20 }')], 150_000);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const leader = (await c.leaderName())!;
    const before = await coordinatorLines();
    expect(before.map(([p]) => p).sort()).toEqual(['coordinator', 'coordinator (follower)']);
    const [, leaderAddress, leaderLoaded] = before.find(([p]) => p === 'coordinator')!;
    expect(leaderLoaded).toMatch(/^test-source@1\.0\.0 \([0-9a-f]{12}\)$/);
    const [, followerAddress, followerLoaded] = before.find(([p]) => p === 'coordinator (follower)')!;
    expect(followerAddress).not.toBe(leaderAddress);
    expect(followerLoaded).toBe('-');

    const down = await c.cli(['cluster', 'step-down'], 60_000);
    expect(down.code, down.stderr).toBe(0);
    await c.until('the other coordinator leads', async () => ((await c.leaderName()) ?? leader) !== leader, 60_000);
    await c.until(
      'plugins list asks the new follower',
      async () => (await coordinatorLines()).some(([p, a]) => p === 'coordinator (follower)' && a === leaderAddress),
      60_000,
    );
    const after = await coordinatorLines();
    // The former leader, a follower now, still has the package it loaded.
    expect(after.find(([p]) => p === 'coordinator (follower)')).toEqual(['coordinator (follower)', leaderAddress, leaderLoaded]);
    expect(after.find(([p]) => p === 'coordinator')![1]).toBe(followerAddress);
  }, 300_000);

  it('the leader keeps its lease while a plugin enumerator spins, and the job fails naming the call', async () => {
    const c = ha.cluster;
    const leader = (await c.leaderName())!;
    const taken = leaderships();
    const marker = join(dir, 'spinning');
    const submitted = await c.cli(['submit', '--async', '-c', job('spins.conf', `TestSource { spin = "${marker}" }`)], 60_000);
    expect(submitted.code, submitted.stderr).toBe(0);
    const jobId = submitted.stdout.trim();
    await c.until('the enumerator spins', () => existsSync(marker), 90_000);
    await c.until('the spinning job failed', async () => (await c.job(jobId)).status === JobStatus.FAILED, 120_000);
    expect((await c.job(jobId)).error?.message).toMatch(
      /^source TestSource \(\S*spins\.conf:7\): its SplitEnumerator\.handleSplitRequest call did not return within 12 s \(tideway\.plugin-call-timeout\.enumerate\)/,
    );
    // 12 s of spinning against a 2 s lease: the same coordinator leads, and none took the leadership meanwhile.
    expect(await c.leaderName()).toBe(leader);
    expect(leaderships()).toEqual(taken);
  }, 300_000);
});
