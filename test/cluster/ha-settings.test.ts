/**
 * Bad high-availability settings and an unreachable state store, through the real CLI: one
 * sentence naming the key or the address, exit 2 for a config error, and nothing started.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-ha-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function engine(name: string, tideway: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `tideway:\n  coordinator: { host: 127.0.0.1, port: 0 }\n${tideway}`);
  return file;
}

const start = (file: string) => runCli(['cluster', 'start', '--role', 'coordinator', '--engine-config', file], 30_000);

describe('HA settings', () => {
  it('a Redis state store nobody answers at fails at start in one sentence naming its address', async () => {
    const port = await freePort();
    const res = await start(engine('unreachable', `  state-store:\n    type: redis\n    redis: { address: "127.0.0.1:${port}" }\n`));
    expect(res.code).toBe(1);
    const lines = res.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('tideway:'));
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^tideway: cannot reach the Redis state store at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`)),
    ]);
  });

  const refused: Array<[string, string, RegExp]> = [
    ['no address', `  state-store:\n    type: redis\n`, /tideway\.state-store\.redis\.address is empty/],
    [
      'the same lock node twice',
      `  state-store:\n    type: redis\n    redis: { address: "127.0.0.1:6390" }\n  ha:\n    lock-nodes: ["127.0.0.1:6391", "127.0.0.1:6392", "127.0.0.1:6391"]\n`,
      /tideway\.ha\.lock-nodes lists 127\.0\.0\.1:6391 twice/,
    ],
    [
      'a lease shorter than the heartbeat interval',
      `  state-store:\n    type: redis\n    redis: { address: "127.0.0.1:6390" }\n  ha:\n    lease-ttl: 1000\n  heartbeat: { interval: 3000, timeout: 30000 }\n`,
      /tideway\.ha\.lease-ttl \(1000 ms\) must be longer than tideway\.heartbeat\.interval \(3000 ms\)/,
    ],
  ];
  for (const [what, yaml, says] of refused) {
    it(`refuses ${what} with the key named, exit 2`, async () => {
      const res = await start(engine(what.replace(/\W+/g, '-'), yaml));
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(says);
      expect(res.stderr).not.toMatch(/listening/);
    });
  }
});
