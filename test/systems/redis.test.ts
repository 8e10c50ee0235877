/**
 * The Redis source and sink through the real CLI against private redis-server processes: first
 * SeaTunnel's own e2e configs (connector-redis-e2e, run unchanged but for the container's address)
 * with the data RedisTestCaseTemplateIT loads and the outcome it asserts; then the options
 * SeaTunnel's configs leave out (field keys, key templates, value and hash fields, expire, text,
 * schemas, deletes), a 3-node Redis Cluster (MOVED redirections followed by the client) and the
 * planning errors (exit 2).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedConformanceDir, startRedis, startRedisCluster, type RedisClusterServer, type RedisServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';

/** RedisContainerInfo of Redis7IT: password SeaTunnel (the configs carry it base64-shaded). */
const PASSWORD = 'SeaTunnel';
const dir = mkdtempSync(join(tmpdir(), 'tideway-redis-'));
const shared = sharedConformanceDir();
let server: RedisServer;
let cluster: RedisClusterServer | undefined;
let redis: Redis;
let jobNo = 0;

function db(n: number): Redis {
  return new Redis({ host: '127.0.0.1', port: server.port, password: PASSWORD, db: n, lazyConnect: false });
}

async function runJob(text: string, name = `job-${++jobNo}.conf`) {
  const file = join(dir, name);
  writeFileSync(file, text);
  return runCli(['run', '-c', file], 180_000);
}

/** The one rewrite of SeaTunnel's configs: the container `redis-e2e:6379` becomes the private server. */
async function runSeaTunnelConfig(name: string) {
  const text = readFileSync(join(shared!, 'redis', name), 'utf8')
    .replaceAll('"redis-e2e"', '"127.0.0.1"')
    .replace(/port\s*=\s*6379/g, `port = ${server.port}`);
  const res = await runJob(text, name);
  expect(res.code, res.stderr).toBe(0);
}

/** One row of RedisTestCaseTemplateIT's data set as its JsonSerializationSchema writes it. */
function itRow(i: number): string {
  return JSON.stringify({
    id: i,
    c_map: { key: 1 },
    c_array: [1],
    c_string: 'string',
    c_boolean: false,
    c_tinyint: 1,
    c_smallint: 1,
    c_int: 1,
    c_bigint: 1,
    c_float: 1.1,
    c_double: 1.1,
    c_decimal: 1.1,
    c_bytes: 'dGVzdA==',
    c_date: '2026-01-02',
    c_timestamp: '2026-01-02T03:04:05.123',
  });
}

beforeAll(async () => {
  server = await startRedis({ password: PASSWORD });
  redis = db(0);
  // initSourceData: key_test0..99 in db 0 and db 1.
  const db1 = db(1);
  for (let i = 0; i < 100; i++) {
    await redis.set(`key_test${i}`, itRow(i));
    await db1.set(`key_test${i}`, itRow(i));
  }
  db1.disconnect();
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([server?.stop(), cluster?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(shared === undefined)("SeaTunnel's Redis e2e configs (RedisTestCaseTemplateIT)", () => {
  it('redis-to-redis.conf: 100 string keys become 100 list entries', async () => {
    await runSeaTunnelConfig('redis-to-redis.conf');
    expect(await redis.llen('key_list')).toBe(100);
    await redis.del('key_list');
  });

  it('redis-to-redis-by-db-num.conf: db 1 is read, db 2 written', async () => {
    await runSeaTunnelConfig('redis-to-redis-by-db-num.conf');
    const db2 = db(2);
    expect(await db2.llen('db_test')).toBe(100);
    expect(await redis.exists('db_test')).toBe(0);
    await db2.del('db_test');
    db2.disconnect();
  });

  it('scan-string-to-redis.conf: 1000 strings', async () => {
    for (let i = 0; i < 1000; i++) await redis.set(`string_test${i}`, 'val');
    await runSeaTunnelConfig('scan-string-to-redis.conf');
    expect(await redis.lrange('string_test_list', 0, -1)).toHaveLength(1000);
    await redis.del('string_test_list', ...Array.from({ length: 1000 }, (_, i) => `string_test${i}`));
  });

  it('scan-list-test-read-to-redis-list-test-check.conf: 100 lists of 10', async () => {
    for (let i = 0; i < 100; i++) for (let j = 0; j < 10; j++) await redis.lpush(`list-test-read${i}`, `val${j}`);
    await runSeaTunnelConfig('scan-list-test-read-to-redis-list-test-check.conf');
    expect(await redis.lrange('list-test-check', 0, -1)).toHaveLength(1000);
    await redis.del('list-test-check', ...Array.from({ length: 100 }, (_, i) => `list-test-read${i}`));
  });

  it('scan-set-to-redis-list-set-check.conf: 100 sets of 10', async () => {
    for (let i = 0; i < 100; i++) for (let j = 0; j < 10; j++) await redis.sadd(`key-test-set${i}`, String(j));
    await runSeaTunnelConfig('scan-set-to-redis-list-set-check.conf');
    expect(await redis.lrange('list-set-check', 0, -1)).toHaveLength(1000);
    await redis.del('list-set-check', ...Array.from({ length: 100 }, (_, i) => `key-test-set${i}`));
  });

  it('scan-hash-to-redis-list-hash-check.conf: 100 hashes, one entry each', async () => {
    for (let i = 0; i < 100; i++) await redis.hset(`key-test-hash${i}`, { name: 'fuyoujie' });
    await runSeaTunnelConfig('scan-hash-to-redis-list-hash-check.conf');
    const list = await redis.lrange('list-hash-check', 0, -1);
    expect(list).toHaveLength(100);
    expect(JSON.parse(list[0])).toEqual({ content: '{"name":"fuyoujie"}' });
    await redis.del('list-hash-check', ...Array.from({ length: 100 }, (_, i) => `key-test-hash${i}`));
  });

  it('scan-zset-to-redis-list-zset-check.conf: 100 sorted sets of 10', async () => {
    for (let i = 0; i < 100; i++) for (let j = 0; j < 10; j++) await redis.zadd(`key-test-zset${i}`, 1, String(j));
    await runSeaTunnelConfig('scan-zset-to-redis-list-zset-check.conf');
    expect(await redis.lrange('list-zset-check', 0, -1)).toHaveLength(1000);
    await redis.del('list-zset-check', ...Array.from({ length: 100 }, (_, i) => `key-test-zset${i}`));
  });

  it('fake-to-multipletableredissink.conf: both tables into db 3', async () => {
    await runSeaTunnelConfig('fake-to-multipletableredissink.conf');
    const db3 = db(3);
    const list = await db3.lrange('key_multi_list', 0, -1);
    expect(list).toHaveLength(2);
    expect(list.map((v) => (JSON.parse(v) as { id: number }).id).sort()).toEqual([1, 2]);
    await db3.del('key_multi_list');
    db3.disconnect();
  });
});

/** A FakeSource of users (id, name, age, score) with the given rows and a Redis sink block. */
function fakeToRedis(rows: string, sink: string, port = server.port): string {
  return `
env { parallelism = 1, job.mode = "BATCH" }
source {
  FakeSource {
    schema = { table = "shop.users", fields { id = int, name = string, age = int, score = double } }
    rows = [ ${rows} ]
  }
}
sink { Redis { host = "127.0.0.1", port = ${port}, auth = "${PASSWORD}", db_num = 5, ${sink} } }
`;
}

const USERS = `
  { kind = INSERT, fields = [1, "ann", 30, 1.5] },
  { kind = INSERT, fields = [2, "bob", 40, 2.0] },
  { kind = INSERT, fields = [3, "cy", null, 3.25] }`;

describe('Redis sink options', () => {
  let db5: Redis;
  beforeAll(() => {
    db5 = db(5);
  });
  afterAll(async () => {
    await db5.flushdb();
    db5.disconnect();
  });

  it('key from a field, data_type key: one key per row with the row as JSON; deletes remove the key', async () => {
    const res = await runJob(fakeToRedis(`${USERS}, { kind = DELETE, fields = [2, "bob", 40, 2.0] }`, 'key = "id", data_type = key'));
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse((await db5.get('1'))!)).toEqual({ id: 1, name: 'ann', age: 30, score: 1.5 });
    expect(JSON.parse((await db5.get('3'))!)).toEqual({ id: 3, name: 'cy', age: null, score: 3.25 });
    expect(await db5.exists('2')).toBe(0);
    await db5.flushdb();
  });

  it('support_custom_key, hash without hash_key_field, expire: each field a hash field, nulls left out', async () => {
    const res = await runJob(
      fakeToRedis(USERS, 'key = "user:{id}:${table_name}", support_custom_key = true, data_type = hash, expire = 300'),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(await db5.hgetall('user:1:users')).toEqual({ id: '1', name: 'ann', age: '30', score: '1.5' });
    expect(await db5.hgetall('user:3:users')).toEqual({ id: '3', name: 'cy', score: '3.25' });
    const ttl = await db5.ttl('user:2:users');
    expect(ttl).toBeGreaterThan(200);
    expect(ttl).toBeLessThanOrEqual(300);
    await db5.flushdb();
  });

  it('hash_key_field and hash_value_field: one hash, a field per row; a rerun changes nothing (idempotent)', async () => {
    const job = fakeToRedis(USERS, 'key = "names", data_type = hash, hash_key_field = "id", hash_value_field = "name"');
    for (let run = 0; run < 2; run++) {
      const res = await runJob(job);
      expect(res.code, res.stderr).toBe(0);
      expect(await db5.hgetall('names')).toEqual({ 1: 'ann', 2: 'bob', 3: 'cy' });
    }
    await db5.flushdb();
  });

  it('value_field into a set and a zset; text format with field_delimiter into a list', async () => {
    let res = await runJob(fakeToRedis(USERS, 'key = "people", data_type = set, value_field = "name"'));
    expect(res.code, res.stderr).toBe(0);
    expect((await db5.smembers('people')).sort()).toEqual(['ann', 'bob', 'cy']);
    res = await runJob(fakeToRedis(USERS, 'key = "ranked", data_type = zset, value_field = "name"'));
    expect(res.code, res.stderr).toBe(0);
    expect(await db5.zrange('ranked', 0, -1, 'WITHSCORES')).toEqual(['ann', '1', 'bob', '1', 'cy', '1']);
    res = await runJob(fakeToRedis(USERS, 'key = "lines", data_type = list, format = text, field_delimiter = "|"'));
    expect(res.code, res.stderr).toBe(0);
    expect(await db5.lrange('lines', 0, -1)).toEqual(['3|cy||3.25', '2|bob|40|2.0', '1|ann|30|1.5']);
    await db5.flushdb();
  });

  it('refuses unknown options and bad values by name at planning (exit 2), writing nothing', async () => {
    const cases: [string, RegExp][] = [
      ['key = "k", data_type = key, hash_field = "x"', /hash_field/],
      ['key = "k", data_type = stream', /data_type/],
      ['key = "k", data_type = list, hash_key_field = "id"', /hash_key_field/],
      ['key = "k", data_type = key, mode = cluster, nodes = ["127.0.0.1:1"]', /db_num/],
      ['key = "k", data_type = key, nodes = ["nohostport"], mode = cluster', /nodes/],
      ['key = "k", data_type = key, nodes = ["127.0.0.1:1"]', /nodes.*cluster/],
      ['key = "k", data_type = hash, format = text', /format json/],
      ['data_type = key', /key/],
    ];
    for (const [sink, message] of cases) {
      const res = await runJob(fakeToRedis(USERS, sink));
      expect(res.code, `${sink}\n${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(message);
    }
    expect(await db5.dbsize()).toBe(0);
  });
});

describe('Redis source with a schema', () => {
  it('format json reads string values as rows; hash_key_parse_mode kv reads each hash field as a row', async () => {
    const db6 = db(6);
    await db6.set('u:1', JSON.stringify({ id: 1, name: 'ann' }));
    await db6.set('u:2', JSON.stringify({ id: 2, name: 'bob' }));
    await db6.hset('h:1', { 10: JSON.stringify({ name: 'x', age: 7 }), 11: JSON.stringify({ name: 'y', age: 8 }) });
    const job = (source: string, sink: string) => `
env { parallelism = 1, job.mode = "BATCH" }
source { Redis { host = "127.0.0.1", port = ${server.port}, auth = "${PASSWORD}", db_num = 6, ${source} } }
sink { Redis { host = "127.0.0.1", port = ${server.port}, auth = "${PASSWORD}", db_num = 6, ${sink} } }
`;
    let res = await runJob(
      job(
        'keys = "u:*", data_type = string, format = json, schema = { fields { id = int, name = string } }',
        'key = "by_name", data_type = hash, hash_key_field = "name", hash_value_field = "id"',
      ),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(await db6.hgetall('by_name')).toEqual({ ann: '1', bob: '2' });
    res = await runJob(
      job(
        'keys = "h:*", data_type = hash, hash_key_parse_mode = kv, format = json, schema = { fields { hk = string, name = string, age = int } }',
        'key = "{hk}", support_custom_key = true, data_type = key, format = text',
      ),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(await db6.mget('10', '11')).toEqual(['10,x,7', '11,y,8']);
    await db6.flushdb();
    db6.disconnect();
  });
});

describe('Redis Cluster (3 masters)', () => {
  beforeAll(async () => {
    cluster = await startRedisCluster({ password: PASSWORD });
  }, 120_000);

  it('writes keys over every master and reads them all back by SCAN on each master', async () => {
    const client = new Cluster(
      cluster!.addresses.map((a) => ({ host: '127.0.0.1', port: Number(a.split(':')[1]) })),
      { redisOptions: { password: PASSWORD } },
    );
    const n = 300;
    const rows = Array.from({ length: n }, (_, i) => `{ kind = INSERT, fields = [${i}, "n${i}", ${i % 50}, 0.5] }`).join(',\n');
    const [first, ...rest] = cluster!.addresses;
    const seed = Number(first.split(':')[1]);
    const write = `
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { schema = { fields { id = int, name = string, age = int, score = double } }, rows = [ ${rows} ] } }
sink { Redis { host = "127.0.0.1", port = ${seed}, mode = cluster, nodes = ${JSON.stringify(rest)}, auth = "${PASSWORD}",
  key = "user:{id}", support_custom_key = true, data_type = hash, batch_size = 50 } }
`;
    let res = await runJob(write);
    expect(res.code, res.stderr).toBe(0);
    // Every master holds some of the keys: the client was redirected (MOVED) to each.
    for (const node of cluster!.nodes) {
      const one = new Redis({ host: '127.0.0.1', port: node.port, password: PASSWORD });
      expect(await one.dbsize()).toBeGreaterThan(0);
      one.disconnect();
    }
    expect(await client.hgetall('user:123')).toEqual({ id: '123', name: 'n123', age: '23', score: '0.5' });
    const read = `
env { parallelism = 2, job.mode = "BATCH" }
source { Redis { host = "127.0.0.1", port = ${seed}, mode = cluster, auth = "${PASSWORD}", keys = "user:*", data_type = hash,
  format = json, schema = { fields { id = int, name = string, age = int, score = double } } } }
sink { Redis { host = "127.0.0.1", port = ${server.port}, auth = "${PASSWORD}", db_num = 7, key = "ids", data_type = set, value_field = "id" } }
`;
    res = await runJob(read);
    expect(res.code, res.stderr).toBe(0);
    const db7 = db(7);
    const ids = (await db7.smembers('ids')).map(Number).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => i));
    await db7.flushdb();
    db7.disconnect();
    client.disconnect();
  }, 240_000);
});
