/**
 * `node --import tsx --conditions=source bench/state-store-overhead.ts`: the checkpoint overhead
 * of a job in a cluster whose coordinator keeps its state in Redis (state-store type redis,
 * its lease on the same Redis, AOF with fsync always, as tideway chaos runs it) against the
 * same in a cluster with the in-memory store (issue 10: within 2 percentage points).
 *
 * Two clusters of real processes (libs/testing's ClusterProcesses: one coordinator, the
 * resource manager, one worker with 2 slots) run side by side; each round runs four jobs in
 * turn: {memory, redis} x {no periodic checkpoint, checkpoint.interval = 1000 ms}, so machine
 * noise spreads over all four. FakeSource (5 columns) -> LocalFile text with transactions,
 * BATCH, parallelism 2; rows/s from the job's metrics and its start and finish timestamps;
 * median of BENCH_REPEAT rounds (default 3). Prints a Markdown section for bench/RESULTS.md.
 *
 * env: BENCH_ROWS rows per reader (default 2,000,000), BENCH_REPEAT (default 3).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JobClient } from '@tideway/client';
import { JobStatus, jobStatusToJSON } from '@tideway/contracts';
import { ClusterProcesses, startRedis } from '@tideway/testing';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import { machineLine } from './machine.js';
import { checkpointJobText } from './job-configs.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 2_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const root = fileURLToPath(new URL('..', import.meta.url));

function config(out: string, interval: number | undefined): string {
  return checkpointJobText(out, ROWS, 2, interval);
}

async function startCluster(redisPort?: number): Promise<ClusterProcesses> {
  const c = await ClusterProcesses.create({
    cli: cliNodeArgs(),
    cwd: root,
    workers: [{ attributes: {} }],
    slotNum: 2,
    jobScheduleStrategy: 'WAIT',
    ha: redisPort ? { stateAddress: `127.0.0.1:${redisPort}` } : undefined,
    env: { TIDEWAY_LOG_LEVEL: 'warn' },
  });
  await c.startAll();
  for (
    let i = 0;
    (await c.metric('resource-manager', 'tideway_workers').catch(() => 0)) !== 1 || (await c.leaderName()) === undefined;
    i++
  ) {
    if (i > 240) throw new Error('the cluster did not come up within 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  return c;
}

/** Runs one job to its end; rows read per second of the job's run time. */
async function runJob(
  c: ClusterProcesses,
  name: string,
  interval: number | undefined,
): Promise<{ rowsPerSec: number; checkpoints: number }> {
  const client = new JobClient(c.coordinatorAddresses);
  const out = join(c.dir, name);
  try {
    const { jobId } = await client.submit({ configText: config(out, interval), configFile: `${name}.conf`, format: 'hocon' });
    const last = await client.watch(jobId, () => {}, 500);
    const job = last.job!;
    if (job.status !== JobStatus.FINISHED) throw new Error(`job ${name} ended ${jobStatusToJSON(job.status)}: ${job.error?.message ?? ''}`);
    const metrics = await client.metrics(jobId);
    const info = await client.get(jobId);
    return {
      rowsPerSec: Number(metrics.sourceReceivedCount) / ((info.finishTimeMs - info.startTimeMs) / 1000),
      checkpoints: info.completedCheckpoints,
    };
  } finally {
    client.close();
    rmSync(out, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const machine = machineLine({ load: true });
const redis = await startRedis({ appendOnly: true });
const memoryCluster = await startCluster();
const redisCluster = await startCluster(redis.port);
const cases = [
  { key: 'memory-off', cluster: memoryCluster, interval: undefined },
  { key: 'memory-on', cluster: memoryCluster, interval: 1000 },
  { key: 'redis-off', cluster: redisCluster, interval: undefined },
  { key: 'redis-on', cluster: redisCluster, interval: 1000 },
] as const;
const rates = new Map<string, number[]>(cases.map((c) => [c.key, []]));
const checkpoints = new Map<string, number[]>(cases.map((c) => [c.key, []]));
try {
  for (let round = 0; round < REPEAT; round++) {
    // Alternate the order too, so neither store always runs first in a round.
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) {
      const r = await runJob(c.cluster, `${c.key}-${round}`, c.interval);
      rates.get(c.key)!.push(r.rowsPerSec);
      checkpoints.get(c.key)!.push(r.checkpoints);
      process.stderr.write(`round ${round + 1}: ${c.key} ${Math.round(r.rowsPerSec)} rows/s, ${r.checkpoints} checkpoints\n`);
    }
  }
} finally {
  await memoryCluster.stop();
  await redisCluster.stop();
  await redis.stop();
}

const m = (k: string) => median(rates.get(k)!);
const overheadMemory = (1 - m('memory-on') / m('memory-off')) * 100;
const overheadRedis = (1 - m('redis-on') / m('redis-off')) * 100;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const every = (k: string) => rates.get(k)!.map(fmt).join(', ');
process.stdout.write(
  [
    '## Checkpoint overhead: Redis state store against the in-memory store (issue 10, bench/state-store-overhead.ts)',
    '',
    `${new Date().toISOString()}. ${machine}`,
    '',
    `Two clusters of real processes side by side (one coordinator, the resource manager, one worker with 2 slots; the Redis one with state-store type redis, its lease on the same Redis, AOF with fsync always); FakeSource (5 columns, ${fmt(ROWS)} rows per reader, parallelism 2) -> LocalFile text with transactions, BATCH; each round runs the four jobs in turn (order reversed every other round); median of ${REPEAT} rounds.`,
    '',
    '| state store | job | rows/s (median) | every round | checkpoints |',
    '|---|---|---|---|---|',
    `| memory | no periodic checkpoints (one final) | ${fmt(m('memory-off'))} | ${every('memory-off')} | ${checkpoints.get('memory-off')!.join(', ')} |`,
    `| memory | checkpoint.interval = 1000 ms | ${fmt(m('memory-on'))} | ${every('memory-on')} | ${checkpoints.get('memory-on')!.join(', ')} |`,
    `| redis | no periodic checkpoints (one final) | ${fmt(m('redis-off'))} | ${every('redis-off')} | ${checkpoints.get('redis-off')!.join(', ')} |`,
    `| redis | checkpoint.interval = 1000 ms | ${fmt(m('redis-on'))} | ${every('redis-on')} | ${checkpoints.get('redis-on')!.join(', ')} |`,
    '',
    `Checkpoint overhead: ${overheadMemory.toFixed(1)}% with the in-memory store, ${overheadRedis.toFixed(1)}% with Redis: ${(overheadRedis - overheadMemory).toFixed(1)} percentage points apart (target: within 2).`,
    '',
  ].join('\n'),
);
