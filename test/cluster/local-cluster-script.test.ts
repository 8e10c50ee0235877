/**
 * deploy/local-cluster.sh --ha as a user runs it: the script starts its own Redis (AOF on), two
 * coordinators, the resource manager and two workers; a job submitted with both coordinators'
 * addresses survives a SIGKILL of the leader with every row once; `stop` ends every process,
 * Redis included. The ports come from TIDEWAY_CLUSTER_BASE_PORT, so the machine's own servers
 * (a Redis on 6379, a cluster on 5801) are never touched.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobServiceClient, jobStatusToJSON } from '@tideway/contracts';
import { LeaderCaller, call, clientOptions, insecure } from '@tideway/rpc';
import { repoRoot } from '../conformance/conformance-files.js';
import { runCli } from '../conformance/cli-process.js';
import { checkSequenceOutput } from '../e2e/sequence-checker.js';
import { sequenceJob } from '../e2e/sequence-job.js';
import { freePortRange } from '@tideway/testing';
import { pollUntil } from './poll-until.js';

const SCRIPT = join(repoRoot, 'deploy', 'local-cluster.sh');

let dir: string;
let env: NodeJS.ProcessEnv;
let addresses: string[];
let jobs: LeaderCaller<JobServiceClient>;

/** Runs the script to its end with this test's folder and ports. */
function script(args: string[], timeoutMs = 150_000): Promise<{ code: number | null; out: string }> {
  const child = spawn('bash', [SCRIPT, ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

const pidOf = (name: string) => Number(readFileSync(join(dir, 'pids', `${name}.pid`), 'utf8'));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const logs = () =>
    readdirSync(join(dir, 'logs'))
      .map(
        (f) =>
          `--- ${f}\n${readFileSync(join(dir, 'logs', f), 'utf8')
            .split('\n')
            .slice(-10)
            .join('\n')}`,
      )
      .join('\n');
  return pollUntil(what, check, timeoutMs, logs, 200);
}

const job = (jobId: string) => jobs.call((c) => call(c, 'getJob', { jobId }, { deadlineMs: 10_000 }), 30_000);
const rowsRead = async (jobId: string) =>
  Number((await jobs.call((c) => call(c, 'getJobMetrics', { jobId }, { deadlineMs: 5000 }), 30_000)).sourceReceivedCount);

/** The coordinator that `status` names as leader, and the exit code and text of `status`. */
async function statusLeader(): Promise<{ leader?: string; code: number | null; out: string }> {
  const res = await script(['status']);
  const leader = /^(coordinator-\d) running .*: leader, epoch \d+$/m.exec(res.out)?.[1];
  return { leader, ...res };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tideway-local-ha-'));
  // Six gRPC ports (Redis is base + 5) and five Prometheus ports.
  const base = await freePortRange(6);
  const metricsBase = await freePortRange(5);
  env = {
    ...process.env,
    TIDEWAY_CLUSTER_DIR: dir,
    TIDEWAY_CLUSTER_BASE_PORT: String(base),
    TIDEWAY_CLUSTER_METRICS_BASE_PORT: String(metricsBase),
  };
  addresses = [`127.0.0.1:${base}`, `127.0.0.1:${base + 4}`];
  const started = await script(['--ha', 'start']);
  expect(started.code, started.out).toBe(0);
  jobs = new LeaderCaller(addresses, (a) => new JobServiceClient(a, insecure, clientOptions));
}, 180_000);

afterAll(async () => {
  jobs?.close();
  // Whatever the test did, nothing it started outlives it.
  if (dir && existsSync(join(dir, 'cluster.env'))) await script(['stop']);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('deploy/local-cluster.sh --ha', () => {
  it('runs Redis with AOF and two coordinators; the leader SIGKILLed mid-job, the job finishes with every row once; stop ends everything', {
    timeout: 300_000,
  }, async () => {
    const redisConfig = await script(['status']);
    expect(redisConfig.code, redisConfig.out).toBe(0);
    expect(redisConfig.out).toMatch(/^redis running \(pid \d+\)/m);
    expect(redisConfig.out.match(/: leader, epoch \d+$/gm), redisConfig.out).toHaveLength(1);
    expect(redisConfig.out.match(/: follower$/gm), redisConfig.out).toHaveLength(1);
    expect(existsSync(join(dir, 'redis', 'appendonlydir'))).toBe(true);

    const out = join(dir, 'out');
    const file = join(dir, 'job.conf');
    writeFileSync(
      file,
      sequenceJob({
        mode: 'BATCH',
        keys: 4,
        rowsPerKey: 3000,
        rowsPerSecond: 400,
        out,
        env: 'job.retry.times = 10\n  job.retry.interval.seconds = 0',
      }),
    );
    const submitted = await runCli(['submit', '--async', '-c', file, '--address', addresses.join(',')]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const jobId = submitted.stdout.trim();
    await until('two checkpoints completed', async () => (await job(jobId)).completedCheckpoints >= 2);

    const { leader } = await statusLeader();
    expect(leader).toBeDefined();
    const before = await rowsRead(jobId);
    const killedAt = Date.now();
    process.kill(pidOf(leader!), 'SIGKILL');
    await until('rows moving again under the other coordinator', async () => (await rowsRead(jobId)) > before);
    console.log(
      `local-cluster.sh --ha (lease-ttl 5000 ms): leader killed, rows moving again after ${((Date.now() - killedAt) / 1000).toFixed(1)} s`,
    );
    await until('job finished', async () => jobStatusToJSON((await job(jobId)).status) === 'FINISHED', 150_000);
    const report = checkSequenceOutput(out, 4, 3000);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 12000 });

    // status names the other coordinator as leader, the killed one as stopped, and fails.
    const after = await statusLeader();
    expect(after.leader, after.out).toBeDefined();
    expect(after.leader).not.toBe(leader);
    expect(after.out).toMatch(new RegExp(`^${leader} stopped$`, 'm'));
    expect(after.code).toBe(1);

    const pids = readdirSync(join(dir, 'pids')).map((f) => Number(readFileSync(join(dir, 'pids', f), 'utf8')));
    expect(pids.length).toBe(6);
    const stopped = await script(['stop']);
    expect(stopped.code, stopped.out).toBe(0);
    expect(stopped.out).toMatch(/^redis stopped$/m);
    expect(pids.filter(alive)).toEqual([]);
  });
});
