/**
 * A streaming job run through the real CLI (`tideway run`), with its own checkpoint directory
 * and coordinator port, so a test can watch its checkpoints, SIGKILL it and restore it.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileCheckpointStorage } from '@tideway/checkpoint';
import { runCli, spawnCli, waitForExit, type CliResult } from '../conformance/cli-process.js';
import { freePort } from '@tideway/testing';

/** Polls `fn` every `everyMs` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  everyMs = 200,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A temp folder removed by `cleanup()`. */
export class TempDirs {
  private readonly dirs: string[] = [];
  make(prefix = 'tideway-cdc-'): string {
    const d = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(d);
    return d;
  }
  cleanup(): void {
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

const started = new Set<ChildProcess>();

/** SIGKILLs every CLI process these tests started that is still running (for afterAll). */
export function killStartedJobs(): void {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  started.clear();
}

/** One running `tideway run` process of a job. */
export interface RunningCli {
  readonly child: ChildProcess;
  readonly exit: Promise<CliResult>;
  readonly address: string;
  /** The last 8 kB of its stderr so far (for failure messages). */
  stderrTail(): string;
}

/**
 * A job config, its engine config (local checkpoint storage in a private folder) and its id:
 * `start()` runs it, `restore()` runs it again from its latest checkpoint (`run -r`).
 */
export class CliJob {
  readonly jobId = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
  readonly conf: string;
  readonly engine: string;
  readonly checkpoints: string;

  constructor(dir: string, jobConfig: string) {
    this.conf = join(dir, 'job.conf');
    this.engine = join(dir, 'seatunnel.yaml');
    this.checkpoints = join(dir, 'checkpoints');
    writeFileSync(this.conf, jobConfig);
    writeFileSync(
      this.engine,
      [
        'seatunnel:',
        '  engine:',
        '    checkpoint:',
        '      storage:',
        '        type: localfile',
        '        plugin-config:',
        `          namespace: ${this.checkpoints}/`,
        '',
      ].join('\n'),
    );
  }

  /** `tideway run -c job.conf --set-job-id <id>`. */
  start(): Promise<RunningCli> {
    return this.spawn(['--set-job-id', this.jobId]);
  }

  /** `tideway run -r <id> -c job.conf`: same job id, from its latest checkpoint. */
  restore(): Promise<RunningCli> {
    return this.spawn(['-r', this.jobId]);
  }

  /**
   * A cluster of its own (`cluster start --role all`) with this job's engine config, its
   * coordinator and resource manager on free ports, answering once it lists jobs: the job is
   * then submitted, savepointed and restored against its address.
   */
  async startCluster(): Promise<RunningCli> {
    const [coordinator, resourceManager] = [await freePort(), await freePort()];
    appendFileSync(
      this.engine,
      [
        'tideway:',
        `  coordinator: { host: 127.0.0.1, port: ${coordinator} }`,
        `  resource-manager: { host: 127.0.0.1, port: ${resourceManager} }`,
        '  worker: { host: 127.0.0.1, port: 0 }',
        '',
      ].join('\n'),
    );
    const cluster = this.spawnWith(['cluster', 'start', '--role', 'all', '--engine-config', this.engine], `127.0.0.1:${coordinator}`);
    await until('the cluster answering', async () =>
      (await runCli(['list', '--address', cluster.address], 30_000)).code === 0 ? true : undefined,
    );
    return cluster;
  }

  private async spawn(extra: string[]): Promise<RunningCli> {
    const port = await freePort();
    return this.spawnWith(
      ['run', '-c', this.conf, '--engine-config', this.engine, '--coordinator-port', String(port), ...extra],
      `127.0.0.1:${port}`,
    );
  }

  private spawnWith(args: string[], address: string): RunningCli {
    const child = spawnCli(args);
    const exit = waitForExit(child);
    started.add(child);
    let tail = '';
    child.stderr!.on('data', (s: string) => (tail = (tail + s).slice(-8192)));
    return { child, exit, address, stderrTail: () => tail };
  }

  /**
   * `tideway verify` of this job while it runs: waits for its sink to pass the source log
   * position of now, then compares every table; fails the test unless it reports equal.
   */
  async verifyEqual(): Promise<void> {
    const res = await runCli(
      ['verify', '-c', this.conf, '--engine-config', this.engine, '--job-id', this.jobId, '--timeout', '60'],
      90_000,
    );
    if (res.code !== 0) throw new Error(`tideway verify of job ${this.jobId} exited with ${res.code}:\n${res.stdout}\n${res.stderr}`);
  }

  /** `tideway status <id> --address`: the job as JSON, or undefined while it cannot answer. */
  async status(cli: RunningCli): Promise<{ status: string; completedCheckpoints?: number } | undefined> {
    const res = await runCli(['status', this.jobId, '--address', cli.address], 30_000);
    return res.code === 0 ? (JSON.parse(res.stdout) as { status: string; completedCheckpoints?: number }) : undefined;
  }

  /** `tideway metrics <id> --address` as JSON. */
  async metrics(cli: RunningCli): Promise<Record<string, unknown> | undefined> {
    const res = await runCli(['metrics', this.jobId, '--address', cli.address], 30_000);
    return res.code === 0 ? (JSON.parse(res.stdout) as Record<string, unknown>) : undefined;
  }

  /**
   * Waits until the checkpoint directory holds a completed checkpoint of this job, polling
   * every 50 ms: faster than `tideway status` (a process start per poll) where timing matters.
   */
  async checkpointStored(timeoutMs = 60_000): Promise<void> {
    const storage = new LocalFileCheckpointStorage({ directory: this.checkpoints });
    try {
      await until(
        `a checkpoint of job ${this.jobId} in ${this.checkpoints}`,
        async () => ((await storage.listCheckpoints(this.jobId)).length > 0 ? true : undefined),
        timeoutMs,
        50,
      );
    } finally {
      await storage.close();
    }
  }

  /** The enumerator states of this job's latest stored checkpoint (pipeline 1), or undefined before the first. */
  async latestEnumeratorStates(): Promise<unknown[] | undefined> {
    const storage = new LocalFileCheckpointStorage({ directory: this.checkpoints });
    try {
      const latest = await storage.readLatest(this.jobId, 1);
      return latest?.checkpoint.enumeratorStates.map((e) => e.state);
    } finally {
      await storage.close();
    }
  }

  /** Waits until this run has completed at least `n` checkpoints (per `tideway status`). */
  async checkpointsCompleted(cli: RunningCli, n: number, timeoutMs = 60_000): Promise<number> {
    let last: unknown;
    return until(
      `${n} completed checkpoint(s) of job ${this.jobId}`,
      async () => {
        const exited = await Promise.race([cli.exit.then((r) => r), new Promise<undefined>((r) => setTimeout(() => r(undefined), 0))]);
        if (exited) throw new Error(`job ${this.jobId} ended (code ${exited.code}) before ${n} checkpoint(s):\n${exited.stderr}`);
        const s = await this.status(cli);
        last = s;
        const done = s?.completedCheckpoints ?? 0;
        return done >= n ? done : undefined;
      },
      timeoutMs,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last status ${JSON.stringify(last)}; stderr:\n${cli.stderrTail()}`);
    });
  }
}
