/**
 * The Redis source's state against a real redis-server: a reader restored from the state taken
 * after each of its SCAN steps (a checkpoint at every step) goes on where the last one stopped, so
 * every key is read exactly once over the restores; and its splits and enumerator state survive
 * structured clone, as checkpoints need.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import {
  optionsOf,
  type CatalogTable,
  type Collector,
  type Row,
  type Source,
  type SourceReader,
  type SplitEnumeratorContext,
} from '@tideway/api';
import { startRedis, startRedisCluster, type RedisClusterServer, type RedisServer } from '@tideway/testing';
import type { Command, RedisConnection } from './client.js';
import { RespEncoder, argText, commandName, fieldPiece, literalPiece } from './resp-encoder.js';
import { compileFieldPiece } from './values.js';
import { RespConnection, RespPipeline } from './resp-writer.js';
import { redisSinkFactory, redisSourceFactory, REDIS_SINK_SPEC, REDIS_SOURCE_SPEC, type RedisSplit } from './index.js';

let server: RedisServer;

beforeAll(async () => {
  server = await startRedis({ password: 'pw' });
  const r = new Redis({ host: '127.0.0.1', port: server.port, password: 'pw' });
  for (let i = 0; i < 200; i++) await r.set(`k:${i}`, JSON.stringify({ id: i, name: `n${i}` }));
  await r.lpush('k:not-a-string', 'skipped by TYPE');
  r.disconnect();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

function source() {
  const options = optionsOf(
    {
      host: '127.0.0.1',
      port: server.port,
      auth: 'pw',
      keys: 'k:*',
      data_type: 'string',
      batch_size: 5,
      format: 'json',
      schema: { fields: { id: 'int', name: 'string' } },
    },
    REDIS_SOURCE_SPEC,
  );
  return redisSourceFactory.create({ jobId: 'j', jobMode: 'BATCH', parallelism: 1, options, inputTables: [] }) as Source<
    RedisSplit,
    { assigned: string[] }
  >;
}

describe('Redis source state', () => {
  it('restored after every SCAN step, reads each key exactly once', async () => {
    const src = source();
    const assigned: RedisSplit[] = [];
    const ectx: SplitEnumeratorContext<RedisSplit> = {
      parallelism: 1,
      registeredReaders: () => [0],
      assignSplits: (_s, splits) => assigned.push(...splits),
      signalNoMoreSplits: () => undefined,
    };
    const enumerator = src.createEnumerator(ectx);
    await enumerator.open();
    enumerator.registerReader(0);
    expect(structuredClone(enumerator.snapshotState(1))).toEqual({ assigned: ['redis'] });
    expect(assigned).toHaveLength(1);

    const rows: Row[] = [];
    const out: Collector = { collect: (r) => rows.push(r), collectBatch: (rs) => rows.push(...rs) };
    let finished = false;
    const readerCtx = {
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'BOUNDED' as const,
      signalNoMoreElement: () => (finished = true),
      sendSplitRequest: () => undefined,
    };
    let state: RedisSplit[] = structuredClone(assigned);
    let steps = 0;
    while (!finished) {
      // A fresh reader from the last checkpoint's state, one step, then a checkpoint.
      const reader: SourceReader<RedisSplit> = src.createReader(readerCtx);
      await reader.open();
      reader.addSplits(state);
      reader.handleNoMoreSplits();
      await reader.pollNext(out);
      state = structuredClone(reader.snapshotState(++steps));
      await reader.close();
      expect(steps).toBeLessThan(500);
    }
    expect(steps).toBeGreaterThan(5);
    const ids = rows.map((r) => r.fields[0] as number).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(rows.find((r) => r.fields[0] === 7)?.fields).toEqual([7, 'n7']);
  });
});

describe('Redis sink on a cluster whose slot moves while it writes', () => {
  let cluster: RedisClusterServer;
  beforeAll(async () => {
    cluster = await startRedisCluster({ password: 'pw' });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('follows ASK during the migration and MOVED after it, losing no row', async () => {
    const table: CatalogTable = {
      tableId: 't',
      path: { table: 't' },
      columns: [
        { name: 'k', type: { kind: 'string' }, nullable: false },
        { name: 'v', type: { kind: 'int' }, nullable: false },
      ],
    };
    const [seed] = cluster.nodes;
    const options = optionsOf(
      { host: '127.0.0.1', port: seed.port, mode: 'cluster', auth: 'pw', key: 'k', data_type: 'key', value_field: 'v' },
      REDIS_SINK_SPEC,
    );
    const sink = redisSinkFactory.create({ jobId: 'j', jobMode: 'BATCH', parallelism: 1, options, inputTables: [table] });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const row = (k: string, v: number): Row => ({ kind: '+I', tableId: 't', fields: [k, v] });
    const direct = cluster.nodes.map((n) => new Redis({ host: '127.0.0.1', port: n.port, password: 'pw' }));
    try {
      await writer.write([row('warm-up', 0)]); // the writer's client now holds the slot map
      const slot = await direct[0].cluster('KEYSLOT', '{tag}');
      const ids = await Promise.all(direct.map((d) => d.cluster('MYID')));
      const counts = () => Promise.all(direct.map((d) => d.cluster('COUNTKEYSINSLOT', slot)));
      let from = -1;
      for (let i = 0; i < direct.length; i++) {
        const nodes = (await direct[i].cluster('NODES')) as string;
        const mine = nodes.split('\n').find((l) => l.includes('myself'))!;
        for (const range of mine.split(' ').slice(8)) {
          const [lo, hi = lo] = range.split('-').map(Number);
          if (slot >= lo && slot <= hi) from = i;
        }
      }
      const to = (from + 1) % direct.length;
      await writer.write([row('{tag}1', 1)]);
      // Migration started: the old owner answers ASK for keys it does not hold.
      await direct[to].cluster('SETSLOT', slot, 'IMPORTING', ids[from]);
      await direct[from].cluster('SETSLOT', slot, 'MIGRATING', ids[to]);
      await writer.write([row('{tag}2', 2)]);
      let c = await counts();
      expect([c[from], c[to]]).toEqual([1, 1]);
      // Migration finished: the moved key first, then the slot; the writer's map is stale (MOVED).
      await direct[from].migrate('127.0.0.1', cluster.nodes[to].port, '', 0, 5000, 'AUTH', 'pw', 'KEYS', '{tag}1');
      for (const d of direct) await d.cluster('SETSLOT', slot, 'NODE', ids[to]);
      await writer.write([row('{tag}3', 3), row('{tag}1', 10)]);
      c = await counts();
      expect([c[from], c[to]]).toEqual([0, 3]);
      expect(await direct[to].mget('{tag}1', '{tag}2', '{tag}3')).toEqual(['10', '2', '3']);
    } finally {
      await writer.close();
      for (const d of direct) d.disconnect();
    }
  }, 120_000);
});

describe('RespConnection and RespPipeline', () => {
  const conn = (auth: string, db = 0): RedisConnection => ({ mode: 'single', host: '127.0.0.1', port: server.port, nodes: [], auth, db });

  it('writes in order, counts every reply, and fails for good with the first error reply by its text', async () => {
    const w = await RespConnection.open(conn('pw', 9));
    try {
      const many: Command[] = Array.from({ length: 5000 }, (_, i) => ['SET', `r:${i}`, 'x'.repeat(i % 300)]);
      await w.run(many);
      await expect(
        w.run([
          ['SET', 'r:str', 'a'],
          ['LPUSH', 'r:str', 'b'],
          ['SET', 'r:after', 'c'],
        ]),
      ).rejects.toThrow(/WRONGTYPE/);
      // Every reply of the batch was read (r:after is set); the connection takes nothing more.
      await expect(w.run([['EXPIRE', 'r:after', 100]])).rejects.toThrow(/WRONGTYPE/);
    } finally {
      w.close();
    }
    const r = new Redis({ host: '127.0.0.1', port: server.port, password: 'pw', db: 9 });
    expect(await r.dbsize()).toBe(5002);
    expect(await r.get('r:4999')).toBe('x'.repeat(4999 % 300));
    expect(await r.get('r:after')).toBe('c');
    expect(await r.ttl('r:after')).toBe(-1);
    await r.flushdb();
    r.disconnect();
  });

  it('refuses a wrong password when it connects', async () => {
    await expect(RespConnection.open(conn('wrong'))).rejects.toThrow(/WRONGPASS|invalid password/);
  });

  const key = argText([literalPiece('p:'), fieldPiece(0, (v) => v as number), literalPiece(':é:'), fieldPiece(1, (v) => v as string)]);
  const row = (i: number, s: string): Row => ({ kind: '+I', tableId: 't', fields: [i, s] });
  /** SETs (or SADDs) of rows as the sink encodes them: the key from the template, the text as the value. */
  async function setRows(p: RespPipeline, rows: Row[], command = 'SET'): Promise<void> {
    let out = await p.begin();
    for (const r of rows) {
      out.begin(commandName(command), 3);
      out.key(key, r);
      out.text(argText([fieldPiece(1, (v) => v as string)]), r);
      if (p.rowDone(r)) out = await p.next();
    }
    p.end();
  }

  it('pipelines batches, sends a short batch after the linger time, and flushes at a barrier', async () => {
    const p = new RespPipeline(await RespConnection.open(conn('pw', 10)), 7);
    const r = new Redis({ host: '127.0.0.1', port: server.port, password: 'pw', db: 10 });
    try {
      // Integers, ASCII and non-ASCII text (the key's literal too), an empty and a long value.
      const texts = ['a', '', 'ünïcode ✓', 'x'.repeat(70_000), '12'];
      await setRows(
        p,
        Array.from({ length: 1000 }, (_, i) => row(i - 500, texts[i % texts.length])),
      );
      await p.flush();
      expect(await r.dbsize()).toBe(1000);
      expect(await r.get('p:-500:é:a')).toBe('a');
      expect(await r.get('p:-498:é:ünïcode ✓')).toBe('ünïcode ✓');
      expect(await r.get('p:-497:é:' + 'x'.repeat(70_000))).toBe('x'.repeat(70_000));
      expect(await r.get('p:499:é:12')).toBe('12');
      // Three rows, short of a batch: sent LINGER_MS later without a flush.
      await setRows(p, [row(1, 'l'), row(2, 'l'), row(3, 'l')]);
      await vi.waitFor(async () => expect(await r.exists('p:1:é:l', 'p:2:é:l', 'p:3:é:l')).toBe(3), { timeout: 5000, interval: 5 });
    } finally {
      p.close();
      await r.flushdb();
      r.disconnect();
    }
  });

  it('encodes integers past 2^53, negative ones, null fields and one-field arguments as their text', () => {
    const enc = new RespEncoder();
    const big = argText([
      literalPiece('b:'),
      fieldPiece(0, compileFieldPiece({ kind: 'bigint' })),
      literalPiece(':'),
      fieldPiece(1, compileFieldPiece({ kind: 'double' })),
    ]);
    const one = argText([fieldPiece(0, compileFieldPiece({ kind: 'bigint' }))]);
    const rows: Row[] = [
      { kind: '+I', tableId: 't', fields: [2n ** 60n + 1n, 1.5] },
      { kind: '+I', tableId: 't', fields: [-(2n ** 53n), 2] },
      { kind: '+I', tableId: 't', fields: [-42n, null] },
      { kind: '+I', tableId: 't', fields: [null, null] },
    ];
    for (const r of rows) {
      enc.begin(commandName('SET'), 3);
      enc.key(big, r);
      enc.text(one, r);
    }
    const args = (key: string, value: string) => `*3\r\n$3\r\nSET\r\n$${key.length}\r\n${key}\r\n$${value.length}\r\n${value}\r\n`;
    expect(enc.bytes().toString()).toBe(
      args('b:1152921504606846977:1.5', '1152921504606846977') +
        args('b:-9007199254740992:2.0', '-9007199254740992') +
        args('b:-42:', '-42') +
        args('b::', ''),
    );
    expect(enc.commands).toBe(4);
  });

  it('an error reply in a batch fails the next write and the barrier; discard drops rows not sent', async () => {
    const p = new RespPipeline(await RespConnection.open(conn('pw', 11)), 2);
    const r = new Redis({ host: '127.0.0.1', port: server.port, password: 'pw', db: 11 });
    try {
      await r.lpush('p:1:é:a', 'a list');
      await setRows(p, [row(1, 'a'), row(2, 'a'), row(3, 'a')], 'SADD');
      p.discard(); // row 3 was not sent
      await expect(p.flush()).rejects.toThrow(/WRONGTYPE/);
      await expect(setRows(p, [row(4, 'a')])).rejects.toThrow(/WRONGTYPE/);
      expect(await r.smembers('p:2:é:a')).toEqual(['a']);
      expect(await r.exists('p:3:é:a')).toBe(0);
    } finally {
      p.close();
      await r.flushdb();
      r.disconnect();
    }
  });

  it('with row-level errors, each WRONGTYPE reply is matched to its row across batches of rows of two commands', async () => {
    const p = new RespPipeline(await RespConnection.open(conn('pw', 12)), 3, (m) => m.startsWith('WRONGTYPE'));
    const r = new Redis({ host: '127.0.0.1', port: server.port, password: 'pw', db: 12 });
    try {
      for (const i of [2, 3, 7]) await r.set(`p:${i}:é:a`, 'a string');
      const rows = Array.from({ length: 8 }, (_, i) => row(i, 'a'));
      // SADD (refused on a string key) then EXPIRE: the refused command is each row's first, then its second
      let out = await p.begin();
      for (const x of rows) {
        out.begin(commandName('SADD'), 3);
        out.key(key, x);
        out.string('m');
        out.begin(commandName('EXPIRE'), 3);
        out.lastKey();
        out.string('600');
        if (p.rowDone(x)) out = await p.next();
      }
      await p.flush();
      expect(p.takeRefused().map(([x, message]) => [x.fields[0], message.split(' ')[0]])).toEqual([
        [2, 'WRONGTYPE'],
        [3, 'WRONGTYPE'],
        [7, 'WRONGTYPE'],
      ]);
      expect(p.takeRefused()).toEqual([]);
      expect(await r.smembers('p:6:é:a')).toEqual(['m']);
      // an error that is not the row's still fails the connection
      await r.config('SET', 'maxmemory', '1');
      out = await p.begin();
      out.begin(commandName('SADD'), 3);
      out.key(key, row(9, 'a'));
      out.string('m');
      p.rowDone(row(9, 'a'));
      await expect(p.flush()).rejects.toThrow(/OOM/);
    } finally {
      await r.config('SET', 'maxmemory', '0');
      p.close();
      await r.flushdb();
      r.disconnect();
    }
  });
});

describe('Redis source formats', () => {
  async function readAll(values: Record<string, unknown>): Promise<unknown[][]> {
    const options = optionsOf(
      { host: '127.0.0.1', port: server.port, auth: 'pw', db_num: 11, batch_size: 50, ...values },
      REDIS_SOURCE_SPEC,
    );
    const src = redisSourceFactory.create({ jobId: 'j', jobMode: 'BATCH', parallelism: 1, options, inputTables: [] }) as Source<
      RedisSplit,
      { assigned: string[] }
    >;
    const rows: unknown[][] = [];
    let finished = false;
    const reader = src.createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'BOUNDED',
      signalNoMoreElement: () => (finished = true),
      sendSplitRequest: () => undefined,
    });
    reader.addSplits([{ splitId: 'redis', cursor: '0' }]);
    reader.handleNoMoreSplits();
    while (!finished)
      await reader.pollNext({ collect: (r) => rows.push(r.fields), collectBatch: (rs) => rows.push(...rs.map((r) => r.fields)) });
    await reader.close();
    return rows;
  }

  it('hash_key_parse_mode all: a hash is one row by column name; text splits list elements by field_delimiter', async () => {
    const r = new Redis({ host: '127.0.0.1', port: server.port, password: 'pw', db: 11 });
    await r.hset('p:1', { id: '1', tags: '["a","b"]', price: '2.50' });
    await r.rpush('l:1', '1|x', '2|');
    try {
      expect(
        await readAll({
          keys: 'p:*',
          data_type: 'hash',
          format: 'json',
          schema: { fields: { id: 'bigint', tags: 'array<string>', price: 'decimal(5,2)', gone: 'string' } },
        }),
      ).toEqual([[1n, ['a', 'b'], '2.50', null]]);
      expect(
        await readAll({
          keys: 'l:*',
          data_type: 'list',
          format: 'text',
          field_delimiter: '|',
          schema: { fields: { n: 'int', s: 'string' } },
        }),
      ).toEqual([
        [1, 'x'],
        [2, null],
      ]);
    } finally {
      await r.flushdb();
      r.disconnect();
    }
  });
});
