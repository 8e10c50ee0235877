/**
 * The Redis source's state against a real redis-server: a reader restored from the state taken
 * after each of its SCAN steps (a checkpoint at every step) goes on where the last one stopped, so
 * every key is read exactly once over the restores; and its splits and enumerator state survive
 * structured clone, as checkpoints need.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { optionsOf, type Collector, type Row, type Source, type SourceReader, type SplitEnumeratorContext } from '@tideway/api';
import { startRedis, type RedisServer } from '@tideway/testing';
import { redisSourceFactory, REDIS_SOURCE_SPEC, type RedisSplit } from './index.js';

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
