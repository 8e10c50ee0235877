/**
 * The rolling upgrade of docs/operations.md with real processes (issue 36 item 2): two
 * coordinators over Redis, a resource manager and three workers run a STREAMING Sequence job into
 * the exactly-once LocalFile sink. Each worker is drained (`tideway cluster drain`, which waits
 * until it is empty), sent SIGTERM (it exits 0) and started again; then the follower coordinator
 * is restarted; then the leader hands over (`tideway cluster step-down`) and is restarted. The
 * job stays RUNNING throughout; stopped with a savepoint at the end, its committed rows have no
 * gap and no duplicate. The longest pause of committed rows during each step is measured and
 * printed, not asserted (the machine's load decides it). TIDEWAY_ROLLING_ROUNDS=N repeats the
 * whole procedure N times (default 1); even rounds hand the leadership over by SIGTERM instead of
 * a step-down.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatusToJSON } from '@tideway/contracts';
import { sequenceJob } from '../e2e/sequence-job.js';
import { startHaCluster, type HaCluster } from './ha-cluster.js';
import { jobFile, type ProcessName, type TestCluster } from './test-cluster.js';

const KEYS = 4;
const ROUNDS = Math.max(1, Number(process.env.TIDEWAY_ROLLING_ROUNDS ?? 1));

let ha: HaCluster;
let cluster: TestCluster;

beforeAll(async () => {
  ha = await startHaCluster({ tidewayYaml: ['drain: { grace-period: 60000 }'] });
  cluster = ha.cluster;
}, 120_000);

afterAll(async () => {
  await ha?.stop();
});

/** Committed rows per `key,seq`, read from the sink's committed files. */
function committed(out: string): Map<string, number> {
  const counts = new Map<string, number>();
  let names: string[];
  try {
    names = readdirSync(out);
  } catch {
    return counts; // nothing committed yet
  }
  for (const name of names) {
    const file = join(out, name);
    if (!statSync(file).isFile()) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      const [k, s] = line.split(',');
      counts.set(`${k},${s}`, (counts.get(`${k},${s}`) ?? 0) + 1);
    }
  }
  return counts;
}

function rowCount(out: string): number {
  let n = 0;
  for (const c of committed(out).values()) n += c;
  return n;
}

/**
 * Samples the committed row count every 250 ms; `pause(from, to)` is the longest time within the
 * window that the count did not grow (a hand-over's pause, as a user sees it).
 */
function rowSampler(out: string) {
  const samples: Array<{ t: number; rows: number }> = [];
  const timer = setInterval(() => samples.push({ t: Date.now(), rows: rowCount(out) }), 250);
  return {
    stop: () => clearInterval(timer),
    pause(from: number, to: number): number {
      let longest = 0;
      let lastGrowth = from;
      let last = -1;
      for (const s of samples) {
        if (s.t < from) {
          last = s.rows;
          continue;
        }
        if (s.t > to) break;
        if (s.rows > last) {
          longest = Math.max(longest, s.t - lastGrowth);
          lastGrowth = s.t;
          last = s.rows;
        }
      }
      return Math.max(longest, to - lastGrowth);
    },
  };
}

describe('rolling upgrade', () => {
  it(`drains and restarts every worker, then the follower, then the leader after a step-down (${ROUNDS} round(s)), under a streaming exactly-once job: 0 lost, 0 duplicated`, {
    timeout: 300_000 * ROUNDS,
  }, async () => {
    const out = join(cluster.dir, 'rolling');
    const file = jobFile(
      cluster,
      'rolling.conf',
      sequenceJob({ mode: 'STREAMING', keys: KEYS, rowsPerKey: 10_000_000, rowsPerSecond: 200, out, env: 'job.retry.times = 3' }),
    );
    const submit = await cluster.cli(['submit', '--async', '-c', file]);
    expect(submit.code, submit.stderr).toBe(0);
    const jobId = submit.stdout.trim();
    const status = async () => jobStatusToJSON((await cluster.job(jobId)).status);
    await cluster.until('rows committed', () => rowCount(out) > 0, 90_000);
    const sampler = rowSampler(out);
    const pauses: Array<[string, number]> = [];
    /** Runs one step, then waits for committed rows to grow past where they were after it; records the pause. */
    const step = async (what: string, run: () => Promise<void>) => {
      const from = Date.now();
      await run();
      const after = rowCount(out);
      await cluster.until(`rows moving after: ${what}`, () => rowCount(out) > after, 90_000);
      expect(await status()).toBe('RUNNING');
      pauses.push([what, sampler.pause(from, Date.now())]);
    };
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        for (const worker of cluster.processes.workerNames()) {
          await step(`round ${round}: drain and restart ${worker}`, async () => {
            const drain = await cluster.cli(['cluster', 'drain', cluster.addressOf(worker)], 120_000);
            expect(drain.code, drain.stderr).toBe(0);
            expect(drain.stderr).toMatch(/is empty after/);
            expect(await cluster.kill(worker, 'SIGTERM')).toBe(0);
            await cluster.startProcess(worker);
            await cluster.until(`${worker} registered again`, async () => {
              const w = (await cluster.workers()).filter((x) => x.address === cluster.addressOf(worker));
              return w.length === 1 && !w[0].draining;
            });
          });
        }
        const leader = await waitForLeader();
        const follower = cluster.coordinatorNames().find((n) => n !== leader)!;
        await step(`round ${round}: restart the follower ${follower}`, async () => {
          expect(await cluster.kill(follower, 'SIGTERM')).toBe(0);
          await cluster.startProcess(follower);
        });
        // Odd rounds hand over with a step-down, even ones (TIDEWAY_ROLLING_ROUNDS >= 2) by SIGTERM.
        const how = round % 2 === 1 ? 'step-down' : 'SIGTERM';
        const released = cluster.logLines(leader, 'released the leader lease of epoch');
        await step(`round ${round}: ${how} of the leader ${leader}, then its restart`, async () => {
          // The follower must be announced before the leader may hand over to it.
          await cluster.until('the follower announced itself', async () => {
            const o = await cluster.cli(['overview']);
            return o.code === 0 && (JSON.parse(o.stdout) as { coordinators: unknown[] }).coordinators.length === 2;
          });
          if (how === 'step-down') {
            const down = await cluster.cli(['cluster', 'step-down']);
            expect(down.code, down.stderr).toBe(0);
            expect(down.stderr).toContain('stepped down');
            await cluster.until('the follower leads', async () => (await cluster.leaderName()) === follower, 30_000);
            expect(await cluster.kill(leader, 'SIGTERM')).toBe(0);
          } else {
            expect(await cluster.kill(leader, 'SIGTERM')).toBe(0);
            await cluster.until('the follower leads', async () => (await cluster.leaderName()) === follower, 30_000);
          }
          expect(cluster.logLines(leader, 'released the leader lease of epoch')).toBe(released + 1);
          await cluster.startProcess(leader);
        });
      }
    } finally {
      sampler.stop();
    }
    for (const [what, ms] of pauses) console.log(`rolling upgrade: ${what}: longest pause of committed rows ${(ms / 1000).toFixed(1)} s`);
    const job = await cluster.job(jobId);
    expect(job.failovers.filter((f) => /moved off draining worker/.test(f.reason)).length).toBeGreaterThanOrEqual(1);
    // Stop with a savepoint: everything read is committed, and the committed rows are checked.
    const sp = await cluster.cli(['savepoint', jobId], 120_000);
    expect(sp.code, sp.stderr).toBe(0);
    const counts = committed(out);
    let lost = 0;
    let duplicated = 0;
    let rows = 0;
    const examples: string[] = [];
    for (let k = 0; k < KEYS; k++) {
      let max = -1;
      for (const key of counts.keys()) if (key.startsWith(`${k},`)) max = Math.max(max, Number(key.slice(key.indexOf(',') + 1)));
      for (let s = 0; s <= max; s++) {
        const n = counts.get(`${k},${s}`) ?? 0;
        rows += n;
        if (n === 0) lost++;
        if (n > 1) duplicated += n - 1;
        if (n !== 1 && examples.length < 5) examples.push(`key ${k} seq ${s} committed ${n} time(s)`);
      }
    }
    console.log(`rolling upgrade: ${rows} rows committed, ${lost} lost, ${duplicated} duplicated`);
    expect({ lost, duplicated }, examples.join('; ')).toEqual({ lost: 0, duplicated: 0 });
    expect(rows).toBeGreaterThan(1000);
  });
});

async function waitForLeader(): Promise<ProcessName> {
  let name: ProcessName | undefined;
  await cluster.until('a leader', async () => (name = await cluster.leaderName()) !== undefined, 30_000);
  return name!;
}
