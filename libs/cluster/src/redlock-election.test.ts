import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '@tideway/testing';
import { RedisStateStore } from './redis-state-store.js';
import { RedlockElection } from './redlock-election.js';
import { jobInfo, jobState, sleep } from './test/fixtures.js';
import { recordingLogger, type LoggedLine } from './test/recording-logger.js';

// Long enough that a loaded 2-core machine does not delay an extension (every ttl/3) past the lease.
const TTL = 1_500;
const RETRY = 100;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./test/election-process.ts', import.meta.url));

let state: RedisServer;
let nodes: RedisServer[] = [];
let prefix = '';
let tests = 0;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  state = await startRedis();
});
afterAll(async () => {
  await state?.stop();
});
beforeEach(async () => {
  prefix = `e${++tests}:`;
  nodes = await Promise.all([startRedis(), startRedis(), startRedis()]);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all(nodes.map((n) => n.stop()));
});

const nodeAddresses = () => nodes.map((n) => `127.0.0.1:${n.port}`);

interface Candidate {
  election: RedlockElection;
  store: RedisStateStore;
  elected: number[];
  lost: string[];
  /** `leading` read at the moment onLost was called (must already be false). */
  leadingAtLoss: boolean[];
  logs: LoggedLine[];
}

/** An in-process coordinator stand-in: its own store client and election, over this test's nodes. */
async function candidate(address: string, epochFloor?: () => number): Promise<Candidate> {
  const store = new RedisStateStore({ address: `127.0.0.1:${state.port}`, keyPrefix: prefix });
  await store.open();
  const { logger, lines } = recordingLogger();
  const election = new RedlockElection({
    nodes: nodeAddresses(),
    key: `${prefix}leader-lease`,
    leaseTtlMs: TTL,
    retryIntervalMs: RETRY,
    store,
    address,
    logger,
    epochFloor,
  });
  const c: Candidate = { election, store, elected: [], lost: [], leadingAtLoss: [], logs: lines };
  election.start({
    onElected: (epoch) => void c.elected.push(epoch),
    onLost: (reason) => {
      c.leadingAtLoss.push(election.leading);
      c.lost.push(reason);
    },
  });
  cleanups.push(async () => {
    await election.stop();
    await store.close();
  });
  return c;
}

async function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
  return Date.now() - t0;
}

type ChildEvent = {
  event: 'elected' | 'write' | 'refused' | 'lost' | 'error';
  epoch?: number;
  current?: number;
  reason?: string;
  message?: string;
};

/** The same stand-in in its own process (test/election-process.ts), to SIGKILL or SIGSTOP. */
function childCandidate(address: string, jobId: string): { child: ChildProcess; events: ChildEvent[]; stderr: () => string } {
  const args = { nodes: nodeAddresses(), state: `127.0.0.1:${state.port}`, address, ttl: TTL, retry: RETRY, prefix, jobId };
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', CHILD, JSON.stringify(args)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: ChildEvent[] = [];
  let buffered = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as ChildEvent);
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
  return { child, events, stderr: () => err };
}

describe('RedlockElection over 3 Redis nodes', () => {
  it('resign hands the lease over at once: the follower leads before the lease could have expired, with a higher epoch, and the resigned one waits out its pause', async () => {
    const a = await candidate('a:5801');
    await until('a leads', () => a.election.leading);
    const b = await candidate('b:5801');
    await sleep(TTL); // b contends against a held lease meanwhile
    expect(b.election.leading).toBe(false);
    const t0 = Date.now();
    await a.election.resign(10 * TTL);
    expect(a.election.leading).toBe(false);
    expect(a.lost).toEqual(['resigned: handing the leadership over']);
    await until('b leads', () => b.election.leading);
    // Taken at b's next try (every RETRY ms), not after the lease's ttl.
    expect(Date.now() - t0).toBeLessThan(TTL);
    expect(b.elected[0]).toBeGreaterThan(a.elected[0]);
    await b.election.stop();
    await sleep(3 * TTL);
    expect(a.election.leading).toBe(false); // still pausing: no claim before 10 ttl
    expect(a.logs.some((l) => l.message.includes('released the leader lease of epoch') && l.message.endsWith('handed over'))).toBe(true);
  });

  it('lets exactly one of two contenders lead, with the epoch the store recorded for it', async () => {
    const a = await candidate('a:5801');
    const b = await candidate('b:5801');
    await until('a leader', () => a.election.leading || b.election.leading);
    const t0 = Date.now();
    while (Date.now() - t0 < 3 * TTL) {
      expect(a.election.leading && b.election.leading).toBe(false);
      expect(a.election.leading || b.election.leading).toBe(true); // extensions keep it: no gap
      await sleep(10);
    }
    const [leader, follower] = a.election.leading ? [a, b] : [b, a];
    expect(leader.elected).toHaveLength(1);
    expect(follower.elected).toEqual([]);
    expect(leader.lost).toEqual([]);
    expect(await leader.store.leader()).toMatchObject({ address: leader === a ? 'a:5801' : 'b:5801', epoch: leader.elected[0] });
  });

  it('claims an epoch above the highest one seen elsewhere, when told it', async () => {
    const a = await candidate('a:5801', () => 41);
    await until('a to lead', () => a.election.leading);
    expect(a.elected).toEqual([42]);
  });

  it('stop() releases the lease: the other takes over at once, with a higher epoch', async () => {
    const a = await candidate('a:5801');
    await until('a to lead', () => a.election.leading);
    const b = await candidate('b:5801');
    await sleep(2 * RETRY);
    await a.election.stop();
    expect(a.lost).toEqual(['stopped']);
    expect(a.leadingAtLoss).toEqual([false]);
    const waited = await until('b to lead', () => b.election.leading);
    expect(waited).toBeLessThan(TTL); // released, not expired
    expect(b.elected[0]).toBeGreaterThan(a.elected[0]);
  });

  it('a killed leader (SIGKILL) is replaced once its lease ran out, with a higher epoch', async () => {
    const old = childCandidate('old:5801', 'j1');
    await until('the child to lead', () => old.events.some((e) => e.event === 'elected'), 20_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${old.stderr()}`);
    });
    const oldEpoch = old.events.find((e) => e.event === 'elected')!.epoch!;
    const b = await candidate('b:5801');
    await sleep(3 * RETRY);
    expect(b.election.leading).toBe(false);
    old.child.kill('SIGKILL');
    await until('b to lead', () => b.election.leading, 3 * TTL);
    expect(b.elected[0]).toBeGreaterThan(oldEpoch);
  });

  it('a leader paused past its lease (SIGSTOP) is replaced, and once resumed its writes are refused and it steps down', async () => {
    const old = childCandidate('old:5801', 'j1');
    await until('the child to lead', () => old.events.some((e) => e.event === 'elected'), 20_000);
    const oldEpoch = old.events.find((e) => e.event === 'elected')!.epoch!;
    await until('the child to write', () => old.events.some((e) => e.event === 'write'));
    const b = await candidate('b:5801');
    old.child.kill('SIGSTOP');
    await until('b to lead', () => b.election.leading, 3 * TTL);
    const newEpoch = b.elected[0];
    expect(newEpoch).toBeGreaterThan(oldEpoch);
    await b.store.submitJob(newEpoch, jobInfo('j1'), jobState('RUNNING', 0, newEpoch));
    const seen = old.events.length;
    old.child.kill('SIGCONT');
    await until('the resumed child to step down', () => old.events.slice(seen).some((e) => e.event === 'lost'));
    await until('a write of the resumed child', () => old.events.slice(seen).some((e) => e.event === 'refused'));
    const after = old.events.slice(seen);
    expect(after.filter((e) => e.event === 'write' && e.epoch === oldEpoch)).toEqual([]);
    expect(after.find((e) => e.event === 'refused')).toMatchObject({ epoch: oldEpoch, current: newEpoch });
    expect((await b.store.job('j1'))!.state.epoch).toBe(newEpoch);
    expect(b.election.leading).toBe(true);
  });

  it('keeps the lease when one of three nodes dies', async () => {
    const a = await candidate('a:5801');
    await until('a to lead', () => a.election.leading);
    const b = await candidate('b:5801');
    await nodes[0].stop();
    const t0 = Date.now();
    while (Date.now() - t0 < 3 * TTL) {
      expect(a.election.leading).toBe(true);
      await sleep(20);
    }
    expect(a.lost).toEqual([]);
    expect(b.elected).toEqual([]);
    // The dead node is reported once by each candidate, not once per attempt.
    for (const c of [a, b])
      expect(c.logs.filter((l) => l.level === 'warn' && /lock node .* is unreachable/.test(l.message))).toHaveLength(1);
  });

  it('takes the lease on a node that was unreachable when it was acquired, so one more node may die later', async () => {
    process.kill(nodes[0].pid!, 'SIGSTOP'); // accepts connections, answers nothing
    cleanups.push(() => void process.kill(nodes[0].pid!, 'SIGCONT'));
    const a = await candidate('a:5801');
    await until('a to lead', () => a.election.leading);
    process.kill(nodes[0].pid!, 'SIGCONT');
    await sleep(TTL); // a few extensions
    await nodes[1].stop();
    const t0 = Date.now();
    while (Date.now() - t0 < 2 * TTL) {
      expect(a.election.leading).toBe(true);
      await sleep(20);
    }
    expect(a.lost).toEqual([]);
  });

  it('loses the lease within about its ttl when two of three nodes die, and nobody leads', async () => {
    const a = await candidate('a:5801');
    await until('a to lead', () => a.election.leading);
    const b = await candidate('b:5801');
    await Promise.all([nodes[0].stop(), nodes[1].stop()]);
    const waited = await until('a to lose the lease', () => a.lost.length > 0, 3 * TTL);
    expect(waited).toBeLessThanOrEqual(TTL + 500); // the lease's end, plus timer slack
    expect(a.leadingAtLoss).toEqual([false]);
    expect(a.lost[0]).toMatch(/^the lease expired at .* before it could be extended$/);
    await sleep(2 * TTL);
    expect(a.election.leading || b.election.leading).toBe(false);
    expect(b.elected).toEqual([]);
    expect(a.logs.filter((l) => l.level === 'warn' && /lock node .* is unreachable/.test(l.message))).toHaveLength(2);
  });

  it('stops believing it leads once the lease expired, even while its event loop was blocked', async () => {
    const a = await candidate('a:5801');
    await until('a to lead', () => a.election.leading);
    const busyUntil = Date.now() + TTL + 200;
    while (Date.now() < busyUntil) {
      // Blocked: no timer, no extension can run.
    }
    expect(a.election.leading).toBe(false); // read before any timer ran
    expect(a.lost).toEqual([]);
    await until('onLost', () => a.lost.length > 0);
    expect(a.lost[0]).toMatch(/lease expired/);
    // Nobody else contends: it takes the lease again, under a new epoch.
    await until('a to lead again', () => a.elected.length === 2);
    expect(a.elected[1]).toBeGreaterThan(a.elected[0]);
    expect(a.election.leading).toBe(true);
  });
});
