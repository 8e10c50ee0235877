import { createServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startRedis, type RedisServer } from '@tideway/testing';
import { RedisStateStore, type RedisStateStoreOptions } from './redis-state-store.js';
import { StaleEpochError, StateStoreError } from './state-store.js';
import { jobInfo, jobState, pointer, sleep, stateStoreContract } from './test/state-store-contract.js';
import { recordingLogger } from './test/recording-logger.js';

let server: RedisServer;
let raw: Redis;
const opened: RedisStateStore[] = [];
let prefixes = 0;

beforeAll(async () => {
  server = await startRedis();
  raw = new Redis({ host: server.host, port: server.port, lazyConnect: true });
  await raw.connect();
});

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  raw?.disconnect();
  await server?.stop();
});

/** An opened store on the shared server with its own key prefix: tests cannot see each other's keys. */
async function store(opts: Partial<RedisStateStoreOptions> = {}, on: { port: number } = server): Promise<RedisStateStore> {
  const s = new RedisStateStore({ address: `127.0.0.1:${on.port}`, keyPrefix: `t${++prefixes}:`, ...opts });
  opened.push(s);
  await s.open();
  return s;
}

stateStoreContract('RedisStateStore', () => store());

describe('RedisStateStore', () => {
  it('lays its keys out as documented, and an ended job expires by itself', async () => {
    const s = await store({ keyPrefix: 'layout:' });
    const epoch = await s.claimEpoch('c1:5801');
    await s.submitJob(epoch, jobInfo('9'), jobState('RUNNING'));
    await s.putCheckpoint(epoch, '9', pointer(1, 3));
    await s.announceCoordinator('c1:5801', 10_000);
    expect(await raw.get('layout:epoch')).toBe(String(epoch));
    expect(JSON.parse((await raw.get('layout:leader'))!)).toMatchObject({ address: 'c1:5801', epoch });
    expect(JSON.parse((await raw.hget('layout:job:9', 'info'))!)).toEqual(jobInfo('9'));
    expect(JSON.parse((await raw.hget('layout:job:9', 'state'))!)).toEqual(jobState('RUNNING'));
    expect(JSON.parse((await raw.hget('layout:job:9:checkpoints', '1'))!)).toEqual(pointer(1, 3));
    expect(await raw.smembers('layout:jobs:active')).toEqual(['9']);
    expect(await raw.zscore('layout:coordinators', 'c1:5801')).not.toBeNull();
    expect(await raw.hget('layout:coordinators:ttl', 'c1:5801')).toBe('10000');
    expect(await raw.pttl('layout:job:9')).toBe(-1);
    await s.endJob(epoch, '9', jobState('FINISHED', 9_000), 60_000);
    expect(await raw.smembers('layout:jobs:active')).toEqual([]);
    const expiresAt = Number(await raw.zscore('layout:jobs:ended', '9'));
    expect(Math.abs(expiresAt - (Date.now() + 60_000))).toBeLessThan(5_000);
    for (const key of ['layout:job:9', 'layout:job:9:checkpoints']) {
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('after the server lost its data (FLUSHALL), a fenced write restores the epoch so no lower one is handed out', async () => {
    const s = await store();
    let epoch = 0;
    for (let i = 0; i < 3; i++) epoch = await s.claimEpoch('c1');
    await s.submitJob(epoch, jobInfo('1'), jobState('RUNNING'));
    await raw.flushall();
    await s.updateJob(epoch, '1', jobState('RUNNING')); // the old leader goes on writing
    const next = await s.claimEpoch('c2');
    expect(next).toBe(epoch + 1);
    await expect(s.putCheckpoint(epoch, '1', pointer(1, 1))).rejects.toBeInstanceOf(StaleEpochError);
    // Nothing fenced since the loss: a claim that knows the highest epoch seen stays above it.
    await raw.flushall();
    expect(await s.claimEpoch('c3', next)).toBe(next + 1);
  });

  it('survives a restart with its append-only file: data back, scripts reloaded, calls work again', async () => {
    const durable = await startRedis({ appendOnly: true });
    const { logger, lines } = recordingLogger();
    try {
      const s = await store({ logger }, durable);
      const epoch = await s.claimEpoch('c1');
      await s.submitJob(epoch, jobInfo('1'), jobState('RUNNING'));
      await s.putCheckpoint(epoch, '1', pointer(1, 5));
      await durable.restart();
      // The first call after the restart may meet the dropped connection; the client reconnects.
      const job = await retry(() => s.job('1'));
      expect(job).toEqual({ info: jobInfo('1'), state: jobState('RUNNING'), checkpoints: { 1: pointer(1, 5) } });
      await s.updateJob(epoch, '1', jobState('FAILING'));
      expect(await s.claimEpoch('c2')).toBe(epoch + 1);
      // A reconnect that found the server back at once logged nothing; a slower one, one warning.
      expect(lines.filter((l) => l.level === 'warn').length).toBeLessThanOrEqual(1);
    } finally {
      await durable.stop();
    }
  });

  it('fails calls within seconds, naming the address, while the server is down, and logs the outage once', async () => {
    const durable = await startRedis({ appendOnly: true });
    const { logger, lines } = recordingLogger();
    try {
      const s = await store({ logger, commandTimeoutMs: 2_000 }, durable);
      const epoch = await s.claimEpoch('c1');
      await durable.stop(); // the folder goes too: it comes back empty
      for (const call of [() => s.job('1'), () => s.updateJob(epoch, '1', jobState('RUNNING')), () => s.claimEpoch('c1')]) {
        const t0 = Date.now();
        const err = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(Date.now() - t0).toBeLessThan(5_000);
        expect(err).toBeInstanceOf(StateStoreError);
        expect(err).toMatchObject({ retryable: true });
        expect((err as Error).message).toMatch(new RegExp(`^the Redis state store at 127\\.0\\.0\\.1:${durable.port} failed \\w+: `));
      }
      await sleep(1_500);
      const outages = lines.filter((l) => l.level === 'warn' && /unreachable/.test(l.message));
      expect(outages).toHaveLength(1); // once per outage, not per reconnect attempt
    } finally {
      await durable.stop();
    }
  });

  it('open() fails fast and names the address when nothing listens, or nothing answers', async () => {
    const port = await freePort();
    const t0 = Date.now();
    const refused = new RedisStateStore({ address: `127.0.0.1:${port}`, connectTimeoutMs: 1_000 });
    await expect(refused.open()).rejects.toThrow(
      new RegExp(`^cannot reach the Redis state store at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
    );
    expect(Date.now() - t0).toBeLessThan(1_000);
    const silent: Server = createServer(() => {}); // accepts, never answers (like a SIGSTOPped Redis)
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPort = (silent.address() as { port: number }).port;
    try {
      const t1 = Date.now();
      const hung = new RedisStateStore({ address: `127.0.0.1:${silentPort}`, connectTimeoutMs: 500 });
      const err = await hung.open().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateStoreError);
      expect((err as Error).message).toMatch(new RegExp(`^cannot reach the Redis state store at 127\\.0\\.0\\.1:${silentPort}: `));
      expect(Date.now() - t1).toBeLessThan(2_000);
      await hung.close();
    } finally {
      silent.close();
    }
    await refused.close();
  });

  it('open() says when the password is wrong', async () => {
    const locked = await startRedis({ password: 'right' });
    try {
      const s = new RedisStateStore({ address: `127.0.0.1:${locked.port}`, password: 'wrong' });
      await expect(s.open()).rejects.toThrow(
        new RegExp(`^cannot reach the Redis state store at 127\\.0\\.0\\.1:${locked.port}: WRONGPASS`),
      );
      await s.close();
      const ok = await store({ password: 'right' }, locked);
      expect(await ok.claimEpoch('c1')).toBe(1);
    } finally {
      await locked.stop();
    }
  });

  it('warns when no replica acknowledges a critical write, and waits for a real one when there is', async () => {
    const { logger, lines, text } = recordingLogger();
    const lonely = await store({ waitReplicas: 1, waitTimeoutMs: 200, logger }); // the server has no replica yet
    const e1 = await lonely.claimEpoch('c1');
    await lonely.submitJob(e1, jobInfo('2'), jobState('RUNNING'));
    await lonely.updateJob(e1, '2', jobState('RUNNING')); // not critical: no WAIT
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      expect.stringMatching(/^only 0 of 1 Redis replicas acknowledged claimEpoch within 200 ms/),
      expect.stringMatching(/^only 0 of 1 Redis replicas acknowledged submitJob within 200 ms/),
    ]);
    expect(text()).not.toContain('s3cret'); // job configs never reach the log
    lines.length = 0;

    const replica = await startRedis({ replicaOf: { host: '127.0.0.1', port: server.port } });
    try {
      await waitForReplica(raw);
      const replicated = await store({ waitReplicas: 1, waitTimeoutMs: 5_000, logger });
      const epoch = await replicated.claimEpoch('c1');
      await replicated.submitJob(epoch, jobInfo('1'), jobState('RUNNING'));
      await replicated.putCheckpoint(epoch, '1', pointer(1, 1));
      await replicated.endJob(epoch, '1', jobState('FINISHED', 9_000), 60_000);
      expect(lines).toEqual([]);
      const onReplica = new Redis({ host: '127.0.0.1', port: replica.port, lazyConnect: true });
      await onReplica.connect();
      // WAIT returned: the replica has the writes already.
      expect(await onReplica.zscore(`t${prefixes}:jobs:ended`, '1')).not.toBeNull();
      onReplica.disconnect();
    } finally {
      await replica.stop();
    }
  });
});

/** Until the primary reports one replica online (WAIT counts only those). */
async function waitForReplica(primary: Redis): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const info = await primary.info('replication');
    if (/slave0:.*state=online/.test(info)) return;
    await sleep(100);
  }
  throw new Error('the replica did not come online within 10 s');
}

async function retry<T>(fn: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !(err instanceof StateStoreError)) throw err;
      await sleep(100);
    }
  }
}
