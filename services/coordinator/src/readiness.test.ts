import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStateStore, type LeaderElection } from '@tideway/cluster';
import { CoordinatorServer } from './server.js';
import { MemoryStorage, until } from './gateway-fakes.js';

/** An election this coordinator never wins (another holds the lease, or none can be taken). */
class NeverElected implements LeaderElection {
  readonly description = 'never elected';
  readonly leading = false;
  start(): void {}
  async stop(): Promise<void> {}
}

const servers: CoordinatorServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe('coordinator readiness', () => {
  it('a follower is not ready while no leader answers, and ready once a live leader is recorded', async () => {
    const store = new MemoryStateStore();
    const c = new CoordinatorServer({
      host: '127.0.0.1',
      port: 0,
      resourceManagerAddress: '127.0.0.1:1',
      jobScheduleStrategy: 'REJECT',
      historyExpireMs: 60_000,
      checkpoint: { intervalMs: 0, timeoutMs: 1000, minPauseMs: 0 },
      checkpointStorage: new MemoryStorage(),
      store,
      election: () => new NeverElected(),
    });
    servers.push(c);
    await c.start();
    expect(c.readiness()).toEqual({
      ready: false,
      reason: 'following, and no leader answers (an election is under way, or the state store is unreachable)',
    });
    // A leader recorded but silent (dead) does not count.
    await store.claimEpoch('10.0.0.9:5801');
    await new Promise((r) => setTimeout(r, 1500));
    expect(c.readiness().ready).toBe(false);
    await store.announceCoordinator('10.0.0.9:5801', 60_000);
    await until(() => c.readiness().ready, 'the follower sees the leader', 5000);
    expect(c.readiness().reason).toBe('following the leader at 10.0.0.9:5801');
    await c.stop();
    expect(c.readiness()).toEqual({ ready: false, reason: 'the coordinator is stopping' });
  });
});
