/**
 * Flexible restore (issue 36): a cancelled exactly-once job keeps its last checkpoint, and a new
 * job starts from it under a new job id (--restore-with-checkpoint) at another parallelism:
 * 2 -> 3 -> 1, each run cancelled mid-way, the last one to the end. A Sequence source (per-key
 * counters) into the transactional LocalFile sink: nothing lost, nothing doubled. Also
 * `tideway checkpoint <jobId>` by hand, and the refusals (a running source job, a sink that
 * cannot change its parallelism is covered by the unit test of rescale.ts).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, sequenceJobConfig } from '@tideway/testing';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { checkSequenceOutput } from './sequence-checker.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const KEYS = 6;
const ROWS_PER_KEY = 3000;

describe('restore with checkpoint: a new job from a cancelled one, at another parallelism', () => {
  it('runs at parallelism 2, then 3, then 1 from each cancelled run: every row once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tideway-rescale-'));
    dirs.push(dir);
    const out = join(dir, 'out');
    const engine = join(dir, 'seatunnel.yaml');
    // A private checkpoint folder, and cancelled jobs' checkpoints kept for an hour.
    writeFileSync(
      engine,
      [
        'seatunnel:',
        '  engine:',
        '    history-job-expire-minutes: 60',
        '    checkpoint:',
        '      storage:',
        '        type: localfile',
        '        plugin-config:',
        `          namespace: ${join(dir, 'checkpoints')}`,
        '',
      ].join('\n'),
    );
    const conf = (parallelism: number) => {
      const file = join(dir, `job-p${parallelism}.conf`);
      writeFileSync(
        file,
        sequenceJobConfig({
          mode: 'STREAMING',
          keys: KEYS,
          rowsPerKey: ROWS_PER_KEY,
          rowsPerSecond: 600,
          parallelism,
          sink: { kind: 'localfile', path: out },
        }),
      );
      return file;
    };
    const seen = () =>
      existsSync(out)
        ? checkSequenceOutput(out, KEYS, ROWS_PER_KEY)
        : { expected: KEYS * ROWS_PER_KEY, seen: 0, lost: KEYS * ROWS_PER_KEY, duplicated: 0, examples: [] };

    /** Runs one job in local mode until it committed `more` rows, then cancels it from another process. */
    async function runAndCancel(jobId: string, args: string[], more: number): Promise<void> {
      const enough = seen().seen + more;
      const port = await freePort();
      const address = `127.0.0.1:${port}`;
      const child = spawnCli(['run', ...args, '--set-job-id', jobId, '--engine-config', engine, '--coordinator-port', String(port)]);
      const exit = waitForExit(child);
      let ended = false;
      exit.then(
        () => (ended = true),
        () => (ended = true),
      );
      try {
        await until(
          `job ${jobId}: ${enough} rows committed`,
          () => {
            if (ended) throw new Error(`job ${jobId} ended before ${enough} rows were committed`);
            return seen().seen >= enough ? true : undefined;
          },
          90_000,
        );
        const manual = await runCli(['checkpoint', jobId, '--address', address]);
        expect(manual.code, manual.stderr).toBe(0);
        expect(manual.stdout).toMatch(new RegExp(`^${jobId} pipeline 1 checkpoint \\d+$`, 'm'));
        const cancel = await runCli(['cancel', jobId, '--address', address]);
        expect(cancel.code, cancel.stderr).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGINT');
      }
      const res = await exit;
      expect(res.stderr).toContain(`job ${jobId} CANCELED`);
      const partial = seen();
      expect(partial.duplicated, partial.examples.join('; ')).toBe(0);
    }

    const base = Date.now();
    const [first, second, third] = [String(base), String(base + 1), String(base + 2)];
    const total = KEYS * ROWS_PER_KEY;
    await runAndCancel(first, ['-c', conf(2)], total / 6);
    await runAndCancel(second, ['-c', conf(3), '--restore-with-checkpoint', first], total / 4);

    // The last run, at parallelism 1, goes to the end.
    const last = spawnCli(['run', '-c', conf(1), '--restore-with-checkpoint', second, '--set-job-id', third, '--engine-config', engine]);
    const lastExit = waitForExit(last);
    try {
      await until('every row committed after the last restore', () => (seen().seen >= total ? true : undefined), 120_000);
    } finally {
      last.kill('SIGINT');
    }
    await lastExit;
    const report = seen();
    console.log(
      `restore 2 -> 3 -> 1: rows expected ${report.expected}, seen ${report.seen}, lost ${report.lost}, duplicated ${report.duplicated}`,
    );
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: total });
  }, 300_000);
});
