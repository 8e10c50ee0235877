import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEngineConfig } from '@tideway/config';
import { startRedis, type RedisServer } from '@tideway/testing';
import { electionFromConfig, stateStoreFromConfig } from './from-config.js';
import { SoleLeaderElection } from './leader-election.js';
import { MemoryStateStore } from './memory-state-store.js';
import { RedisStateStore } from './redis-state-store.js';
import { RedlockElection } from './redlock-election.js';
import { sleep } from './test/fixtures.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe('stateStoreFromConfig / electionFromConfig', () => {
  it('gives local mode the memory store and the sole coordinator', () => {
    const engine = loadEngineConfig();
    const store = stateStoreFromConfig(engine);
    expect(store).toBeInstanceOf(MemoryStateStore);
    expect(electionFromConfig(engine, store, '127.0.0.1:5801')).toBeInstanceOf(SoleLeaderElection);
  });

  it('gives type redis the Redis store and a Redlock lease on the listed nodes, under the key prefix', () => {
    const text =
      'tideway:\n  state-store: { type: redis, redis: { address: "10.0.0.1:6379", key-prefix: "prod:" } }\n  ha: { lock-nodes: [n1:1, n2:2, n3:3] }\n';
    const engine = loadEngineConfig({ file: 'e.yaml', text });
    const store = stateStoreFromConfig(engine);
    expect(store).toBeInstanceOf(RedisStateStore);
    expect(store.description).toBe('redis 10.0.0.1:6379');
    const election = electionFromConfig(engine, store, 'c1:5801');
    expect(election).toBeInstanceOf(RedlockElection);
    expect(election.description).toBe('Redlock lease prod:leader-lease on n1:1, n2:2, n3:3');
  });

  it('elects a coordinator over the state Redis alone when no lock nodes are listed', async () => {
    const text = `tideway:\n  state-store: { type: redis, redis: { address: "127.0.0.1:${redis.port}" } }\n  ha: { lease-ttl: 4000 }\n`;
    const engine = loadEngineConfig({ file: 'e.yaml', text });
    const store = stateStoreFromConfig(engine);
    await store.open();
    const election = electionFromConfig(engine, store, 'c1:5801');
    const elected: number[] = [];
    election.start({ onElected: (e) => void elected.push(e), onLost: () => {} });
    try {
      for (let i = 0; i < 500 && elected.length === 0; i++) await sleep(10);
      expect(elected).toEqual([1]);
      expect(election.leading).toBe(true);
      expect(await store.leader()).toMatchObject({ address: 'c1:5801', epoch: 1 });
    } finally {
      await election.stop();
      await store.close();
    }
    expect(election.leading).toBe(false);
  });
});
