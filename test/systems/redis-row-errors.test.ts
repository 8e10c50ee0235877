/**
 * The Redis sink classifies its errors (issue 33, item 6), through `tideway run` against private
 * redis-server processes with a LocalFile dead-letter folder (env.sink_error_handler ROUTE): a row
 * whose key holds a value of another type (WRONGTYPE) is routed with the server's answer while
 * the rows around it in the same pipelined batch are written, on a single server and on a Redis
 * Cluster; a server out of memory (OOM: the server's state, not the row's) fails the job and
 * routes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, startRedisCluster, type RedisClusterServer, type RedisServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { routed, routedRowsJob } from '../e2e/dead-letter-files.js';

const PASSWORD = 'pw';
const dir = mkdtempSync(join(tmpdir(), 'tideway-redis-row-errors-'));
let server: RedisServer;
let cluster: RedisClusterServer | undefined;
let jobNo = 0;

/** Writes rows 1..5 as set members of key `<prefix>:<id>` (key templates, one pipelined batch) to `where`. */
async function runJob(prefix: string, dead: string, where: string) {
  const file = routedRowsJob(
    join(dir, `job-${++jobNo}.conf`),
    dead,
    'id = "int", name = "string"',
    [1, 2, 3, 4, 5].map((i) => [i, `n${i}`]),
    `  Redis {
    ${where}
    auth = "${PASSWORD}"
    key = "${prefix}:{id}"
    support_custom_key = true
    data_type = set
    batch_size = 100
  }`,
  );
  return runCli(['run', '-c', file], 150_000);
}

function expectWrongTypeRouted(dead: string) {
  const bad = routed(dead).sort((a, b) => String(a.original_data).localeCompare(String(b.original_data)));
  expect(bad.map((r) => r.original_data)).toEqual(['[2,"n2"]', '[4,"n4"]']);
  for (const r of bad) {
    expect(r).toMatchObject({ error_stage: 'SINK', plugin_type: 'SINK', plugin_name: 'Redis' });
    expect(String(r.error_message)).toMatch(/refused the row of .*: WRONGTYPE Operation against a key holding the wrong kind of value/);
  }
}

describe('the Redis sink routes the rows the server refuses for themselves', () => {
  beforeAll(async () => {
    server = await startRedis({ password: PASSWORD });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a key holding another type (WRONGTYPE): that row is routed, the rest of its batch is written', async () => {
    const r = new Redis({ host: '127.0.0.1', port: server.port, password: PASSWORD });
    await r.set('wt:2', 'a string');
    await r.lpush('wt:4', 'a list');
    const dead = join(dir, 'dead-wrongtype');
    const res = await runJob('wt', dead, `host = "127.0.0.1"\n    port = ${server.port}`);
    expect(res.code, res.stderr).toBe(0);
    for (const i of [1, 3, 5]) expect(await r.smembers(`wt:${i}`)).toEqual([JSON.stringify({ id: i, name: `n${i}` })]);
    expect(await r.get('wt:2')).toBe('a string');
    expect(await r.lrange('wt:4', 0, -1)).toEqual(['a list']);
    expectWrongTypeRouted(dead);
    expect(res.stdout + res.stderr).toMatch(/Total Write Count\s*:\s*3\n/);
    r.disconnect();
  }, 200_000);

  it('a server out of memory (OOM) is no row error: the job fails and nothing is routed', async () => {
    const r = new Redis({ host: '127.0.0.1', port: server.port, password: PASSWORD });
    await r.config('SET', 'maxmemory', '1');
    try {
      const dead = join(dir, 'dead-oom');
      const res = await runJob('oom', dead, `host = "127.0.0.1"\n    port = ${server.port}`);
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toMatch(/OOM command not allowed/);
      expect(routed(dead)).toEqual([]);
    } finally {
      await r.config('SET', 'maxmemory', '0');
      r.disconnect();
    }
  }, 200_000);

  it('on a Redis Cluster too: the WRONGTYPE rows are routed, the others written on their masters', async () => {
    cluster = await startRedisCluster({ password: PASSWORD });
    const [first, ...rest] = cluster.addresses;
    const client = new Cluster(
      cluster.addresses.map((a) => ({ host: '127.0.0.1', port: Number(a.split(':')[1]) })),
      { redisOptions: { password: PASSWORD } },
    );
    await client.set('cw:2', 'a string');
    await client.lpush('cw:4', 'a list');
    const dead = join(dir, 'dead-cluster');
    const res = await runJob(
      'cw',
      dead,
      `host = "127.0.0.1"\n    port = ${Number(first.split(':')[1])}\n    mode = cluster\n    nodes = ${JSON.stringify(rest)}`,
    );
    expect(res.code, res.stderr).toBe(0);
    for (const i of [1, 3, 5]) expect(await client.smembers(`cw:${i}`)).toEqual([JSON.stringify({ id: i, name: `n${i}` })]);
    expect(await client.get('cw:2')).toBe('a string');
    expectWrongTypeRouted(dead);
    client.disconnect();
  }, 240_000);
});
