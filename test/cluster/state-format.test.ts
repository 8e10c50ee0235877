/**
 * The state format version (issue 36 item 2): a coordinator of this version reads the state
 * store a coordinator of the previous format wrote. Every fixture under
 * test/fixtures/state-store (written by `pnpm gen:state-fixture` when its format was current) is
 * loaded key by key into a private Redis, opened with RedisStateStore, and read back whole:
 * the leader and epoch, the running job with its pointer, history and fail-overs, the ended
 * job, a token; then writes go on from it. A store of a newer format is refused.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OLDEST_READABLE_STATE_FORMAT, RedisStateStore, STATE_FORMAT_VERSION } from '@tideway/cluster';
import { parseJobConfig } from '@tideway/config';
import { startRedis, type RedisServer } from '@tideway/testing';
import { repoRoot } from '../conformance/conformance-files.js';

interface Fixture {
  format: number;
  prefix: string;
  keys: Array<{ key: string; type: 'string' | 'hash' | 'set' | 'zset'; value: unknown }>;
}

const dir = join(repoRoot, 'test', 'fixtures', 'state-store');
const fixtures = readdirSync(dir)
  .filter((f) => /^format-\d+\.json$/.test(f))
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Fixture);

let redis: RedisServer;
let raw: Redis;
let db = 0;
const opened: RedisStateStore[] = [];

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis({ host: '127.0.0.1', port: redis.port });
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  raw?.disconnect();
  await redis?.stop();
});

/** Writes a fixture's keys under its own prefix, renamed to a fresh one so the cases do not meet. */
async function load(f: Fixture, prefix: string): Promise<void> {
  for (const { key, type, value } of f.keys) {
    const k = prefix + key.slice(f.prefix.length);
    if (type === 'string') await raw.set(k, value as string);
    else if (type === 'hash') await raw.hset(k, value as Record<string, string>);
    else if (type === 'set') await raw.sadd(k, ...(value as string[]));
    else for (const [member, score] of value as Array<[string, number]>) await raw.zadd(k, score, member);
  }
}

async function open(prefix: string): Promise<RedisStateStore> {
  const s = new RedisStateStore({ address: `127.0.0.1:${redis.port}`, keyPrefix: prefix });
  opened.push(s);
  await s.open();
  return s;
}

describe('the state format version', () => {
  it('has a fixture of the current format, and of every older one still read', () => {
    const formats = fixtures.map((f) => f.format).sort();
    for (let v = OLDEST_READABLE_STATE_FORMAT; v <= STATE_FORMAT_VERSION; v++) expect(formats).toContain(v);
  });

  for (const f of fixtures.filter((x) => x.format >= OLDEST_READABLE_STATE_FORMAT)) {
    it(`reads a store of format ${f.format} whole, and writes on from it`, async () => {
      const prefix = `f${f.format}-${++db}:`;
      await load(f, prefix);
      const store = await open(prefix);
      expect(store.formatVersion).toBe(f.format);
      expect(await store.leader()).toMatchObject({ epoch: 4 });
      const [active] = await store.activeJobs();
      expect(active.info).toMatchObject({ jobId: '1001', jobName: 'orders-stream', namespace: 'team-a', restoreWithCheckpoint: '990' });
      expect(active.state.status).toBe('RUNNING');
      expect(active.state.pipelines[0].taskGroups.map((t) => t.slot?.workerAddress)).toEqual(['10.0.0.1:5803', '10.0.0.2:5803']);
      expect(active.state.pipelines[0].checkpointHistory?.map((c) => c.state)).toEqual(['COMPLETED', 'FAILED']);
      expect(active.state.failovers.map((x) => x.reason)).toContain('moved off draining worker 10.0.0.3:5803 from checkpoint 6');
      expect(active.checkpoints[1]).toMatchObject({ checkpointId: 12, key: '1001/1/12', kind: 'CHECKPOINT' });
      // The stored config is the job as submitted: a new leader re-plans it.
      const config = parseJobConfig(active.info.configText, { file: active.info.configFile, variables: active.info.variables });
      expect(config.sources.map((s) => s.name)).toEqual(['FakeSource']);
      const ended = await store.endedJobs();
      expect(ended.map((j) => [j.info.jobId, j.state.status])).toEqual([['1000', 'FINISHED']]);
      expect(ended[0].checkpoints[1]).toMatchObject({ checkpointId: 3, kind: 'COMPLETED_POINT' });
      expect((await store.tokens()).map((t) => [t.name, t.role, t.namespace])).toEqual([['ci', 'operator', 'team-a']]);
      // A new leader claims the next epoch and goes on writing the job it took over.
      const epoch = await store.claimEpoch('10.0.0.12:5801');
      expect(epoch).toBe(5);
      await store.putCheckpoint(epoch, '1001', {
        pipelineId: 1,
        checkpointId: 13,
        key: '1001/1/13',
        timestamp: Date.now(),
        kind: 'CHECKPOINT',
      });
      expect((await store.job('1001'))!.checkpoints[1].checkpointId).toBe(13);
    });
  }

  it('stamps a store written before the version was kept with format 1, and refuses a newer format in one sentence', async () => {
    const old = fixtures.find((f) => f.format === 1)!;
    const prefix = `unversioned-${++db}:`;
    await load({ ...old, keys: old.keys.filter((k) => !k.key.endsWith('format')) }, prefix);
    expect(await raw.get(`${prefix}format`)).toBeNull();
    expect((await open(prefix)).formatVersion).toBe(1);
    expect(await raw.get(`${prefix}format`)).toBe('1');
    expect((await (await open(prefix)).activeJobs()).map((j) => j.info.jobId)).toEqual(['1001']);

    const newer = `newer-${++db}:`;
    await raw.set(`${newer}format`, String(STATE_FORMAT_VERSION + 1));
    const err = (await open(newer).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      `the Redis state store at 127.0.0.1:${redis.port} holds state format ${STATE_FORMAT_VERSION + 1}, and this Tideway reads formats ` +
        `${OLDEST_READABLE_STATE_FORMAT} to ${STATE_FORMAT_VERSION}: it was written by a newer Tideway (docs/operations.md, "Rolling upgrade")`,
    );
    expect(await raw.get(`${newer}format`)).toBe(String(STATE_FORMAT_VERSION + 1));
  });
});
