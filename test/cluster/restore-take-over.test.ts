/**
 * A job started from a cancelled job's checkpoint (--restore-with-checkpoint, at another
 * parallelism) on a real cluster of two coordinators over Redis, whose leader is SIGKILLed before
 * the new job's own first checkpoint: the new leader restarts it from the checkpoint it was
 * restored from (not from nothing), and it goes on to the end with every row exactly once
 * (Sequence into the transactional LocalFile sink; its checkpoints taken by hand with
 * `tideway checkpoint`, the periodic ones being an hour apart).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSequenceOutput, sequenceJobConfig, startRedis, type RedisServer } from '@tideway/testing';
import { TestCluster } from './test-cluster.js';

let redis: RedisServer;
let cluster: TestCluster;
const dir = mkdtempSync(join(tmpdir(), 'tideway-restore-take-over-'));

beforeAll(async () => {
  redis = await startRedis();
  cluster = await TestCluster.start({
    workers: [{ attributes: {} }],
    slotNum: 4,
    jobScheduleStrategy: 'WAIT',
    coordinators: 2,
    ha: { state: redis, leaseTtlMs: 2000, retryIntervalMs: 200 },
  });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const KEYS = 4;
const ROWS_PER_KEY = 2000;
const out = join(dir, 'out');
const seen = () =>
  existsSync(out) ? checkSequenceOutput(out, KEYS, ROWS_PER_KEY) : { seen: 0, lost: KEYS * ROWS_PER_KEY, duplicated: 0, examples: [] };

function conf(name: string, parallelism: number, checkpointIntervalMs: number): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    sequenceJobConfig({
      mode: 'STREAMING',
      keys: KEYS,
      rowsPerKey: ROWS_PER_KEY,
      rowsPerSecond: 300,
      parallelism,
      checkpointIntervalMs,
      sink: { kind: 'localfile', path: out },
    }),
  );
  return file;
}

async function status(jobId: string): Promise<string> {
  const res = await cluster.cli(['status', jobId]);
  return res.code === 0 ? (JSON.parse(res.stdout) as { status: string }).status : '';
}

describe('a job restored from another job, taken over before its own first checkpoint', () => {
  it('restarts from the checkpoint it was restored from: every row once', async () => {
    const [a, b] = [String(Date.now()), String(Date.now() + 1)];
    const submitA = await cluster.cli(['submit', '-c', conf('a.conf', 2, 500), '--async', '--set-job-id', a]);
    expect(submitA.code, submitA.stderr).toBe(0);
    await cluster.until('rows committed by the first job', () => seen().seen >= 1500, 60_000);
    expect((await cluster.cli(['cancel', a])).code).toBe(0);
    await cluster.until('the first job cancelled', async () => (await status(a)) === 'CANCELED', 60_000);
    const before = seen().seen;

    const submitB = await cluster.cli([
      'submit',
      '-c',
      conf('b.conf', 3, 3_600_000),
      '--async',
      '--set-job-id',
      b,
      '--restore-with-checkpoint',
      a,
    ]);
    expect(submitB.code, submitB.stderr).toBe(0);
    await cluster.until('the new job running', async () => (await status(b)) === 'RUNNING', 60_000);
    // It reads, but commits nothing before a checkpoint: none comes before the leader dies.
    await new Promise((r) => setTimeout(r, 1500));
    expect(seen().seen).toBe(before);

    const leader = (await cluster.leaderName())!;
    await cluster.kill(leader);
    await cluster.until('a new leader', async () => ((await cluster.leaderName()) ?? leader) !== leader, 60_000);
    await cluster.until('the new job running again', async () => (await status(b)) === 'RUNNING', 60_000);

    // Checkpoints by hand until every row is committed.
    await cluster.until(
      'every row committed',
      async () => {
        await cluster.cli(['checkpoint', b]);
        const now = seen();
        expect(now.duplicated, now.examples.join('; ')).toBe(0);
        return now.seen >= KEYS * ROWS_PER_KEY;
      },
      120_000,
    );
    const report = seen();
    console.log(
      `restore, take-over before its first checkpoint: rows seen ${report.seen}, lost ${report.lost}, duplicated ${report.duplicated}`,
    );
    expect(report).toMatchObject({ lost: 0, duplicated: 0, seen: KEYS * ROWS_PER_KEY });
    await cluster.cli(['cancel', b]);
  }, 300_000);
});
