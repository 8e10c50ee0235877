/**
 * Exactly-once proofs through the real CLI (issue 5): a Sequence source (per-key counters)
 * into the transactional LocalFile sink, checked by reading the committed files back.
 * - fault injection: at least 10 faults (reader exceptions, chain exceptions, worker threads
 *   killed) during one checkpointed job: it finishes with 0 lost and 0 duplicated;
 * - stop-with-savepoint of a STREAMING job, then restore: every row once;
 * - checkpoints in S3 (s3rver): a job fails for good, is restored from S3, every row once.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { checkSequenceOutput } from './sequence-checker.js';
import { sequenceJob } from './sequence-job.js';
import { freePort } from '@tideway/testing';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tideway-e2e-'));
  dirs.push(d);
  return d;
}
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

describe('exactly-once with the LocalFile sink', () => {
  it('survives at least 10 injected faults with nothing lost or duplicated', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const conf = join(dir, 'job.conf');
    writeFileSync(
      conf,
      sequenceJob({
        mode: 'BATCH',
        keys: 8,
        rowsPerKey: 4000,
        rowsPerSecond: 5000,
        out,
        env: 'job.retry.times = 20\n  job.retry.interval.seconds = 0',
        source: `fault.probability = 0.05\n    fault.max = 5\n    fault.dir = "${join(dir, 'reader-faults')}"`,
        chain: `probability = 0.12\n    max = 10\n    dir = "${join(dir, 'chain-faults')}"`,
      }),
    );
    const res = await runCli(['run', '-c', conf], 170_000);
    expect(res.code, res.stderr).toBe(0);
    const faults = readdirSync(join(dir, 'reader-faults')).length + readdirSync(join(dir, 'chain-faults')).length;
    const report = checkSequenceOutput(out, 8, 4000);
    console.log(
      `fault injection: ${faults} faults; rows expected ${report.expected}, seen ${report.seen}, lost ${report.lost}, duplicated ${report.duplicated}`,
    );
    expect(faults).toBeGreaterThanOrEqual(10);
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 32000 });
  }, 180_000);

  it('shuffles rows between stages of different parallelism (2 -> 3) exactly once, through faults', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const conf = join(dir, 'job.conf');
    writeFileSync(
      conf,
      sequenceJob({
        mode: 'BATCH',
        keys: 9,
        rowsPerKey: 2000,
        rowsPerSecond: 4000,
        out,
        chainParallelism: 3,
        env: 'job.retry.times = 20\n  job.retry.interval.seconds = 0',
        chain: `probability = 0.1\n    max = 4\n    dir = "${join(dir, 'chain-faults')}"`,
      }),
    );
    const plan = await runCli(['plan', '-c', conf]);
    expect(plan.stdout).toMatch(/shuffle 1: Sequence#1 \(stage 1, x2\) => FaultInjector#2 \(stage 2, x3\)/);
    const res = await runCli(['run', '-c', conf], 170_000);
    expect(res.code, res.stderr).toBe(0);
    const report = checkSequenceOutput(out, 9, 2000);
    console.log(
      `shuffle: ${readdirSync(join(dir, 'chain-faults')).length} faults; rows expected ${report.expected}, seen ${report.seen}, lost ${report.lost}, duplicated ${report.duplicated}`,
    );
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 18000 });
  }, 180_000);

  it('stops a streaming job with a savepoint and restores it: every row once', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const conf = join(dir, 'job.conf');
    writeFileSync(conf, sequenceJob({ mode: 'STREAMING', keys: 4, rowsPerKey: 3000, rowsPerSecond: 500, out }));
    const jobId = String(Date.now());
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const first = spawnCli(['run', '-c', conf, '--set-job-id', jobId, '--coordinator-port', String(port)]);
    const firstExit = waitForExit(first);
    await until('rows written before the savepoint', async () => {
      const m = await runCli(['metrics', jobId, '--address', address]);
      return m.code === 0 && Number((JSON.parse(m.stdout) as { SinkWriteCount?: unknown }).SinkWriteCount) > 1000 ? true : undefined;
    });
    const sp = await runCli(['savepoint', jobId, '--address', address]);
    expect(sp.code, sp.stderr).toBe(0);
    expect(sp.stdout).toContain('SAVEPOINT_DONE');
    const firstRes = await firstExit;
    expect(firstRes.code, firstRes.stderr).toBe(0);
    const partial = checkSequenceOutput(out, 4, 3000);
    expect(partial.duplicated).toBe(0);
    expect(partial.seen).toBeLessThan(12000);

    const second = spawnCli(['run', '-r', jobId, '-c', conf]);
    const secondExit = waitForExit(second);
    try {
      await until(
        'every row committed after the restore',
        () => (checkSequenceOutput(out, 4, 3000).seen >= 12000 ? true : undefined),
        90_000,
      );
    } finally {
      second.kill('SIGINT');
    }
    const secondRes = await secondExit;
    expect(secondRes.code, secondRes.stderr).toBe(130);
    const report = checkSequenceOutput(out, 4, 3000);
    console.log(
      `savepoint/restore: rows expected ${report.expected}, seen ${report.seen}, lost ${report.lost}, duplicated ${report.duplicated}`,
    );
    expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0 });
  }, 180_000);

  it('a cancelled job (Ctrl-C) leaves no temporary transaction files behind', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    const tmp = join(dir, 'tmp');
    const conf = join(dir, 'job.conf');
    writeFileSync(
      conf,
      sequenceJob({ mode: 'STREAMING', keys: 4, rowsPerKey: 0, rowsPerSecond: 2000, out }).replace(
        'is_enable_transaction = true',
        `is_enable_transaction = true\n    tmp_path = "${tmp}"`,
      ),
    );
    const jobId = String(Date.now());
    const child = spawnCli(['run', '-c', conf, '--set-job-id', jobId]);
    const exit = waitForExit(child);
    await until('a committed checkpoint', () => (existsSync(out) && checkSequenceOutput(out, 4, 1).seen > 0 ? true : undefined));
    expect(existsSync(join(tmp, 'seatunnel', jobId))).toBe(true); // the open transaction's files
    child.kill('SIGINT');
    const res = await exit;
    expect(res.code, res.stderr).toBe(130);
    expect(res.stderr).toContain('CANCELED');
    expect(existsSync(join(tmp, 'seatunnel', jobId))).toBe(false);
  }, 120_000);

  describe('with checkpoints in S3', () => {
    let s3: TestS3Server;
    afterAll(async () => s3?.stop());

    it('restores a failed job from its S3 checkpoint: every row once', async () => {
      s3 = await startS3rver(['tideway']);
      const dir = tempDir();
      const out = join(dir, 'out');
      const conf = join(dir, 'job.conf');
      const engine = join(dir, 'seatunnel.yaml');
      writeFileSync(
        engine,
        [
          'seatunnel:',
          '  engine:',
          '    checkpoint:',
          '      storage:',
          '        type: s3',
          '        max-retained: 3',
          '        plugin-config:',
          '          s3.bucket: s3a://tideway',
          '          namespace: /checkpoints/',
          `          fs.s3a.endpoint: ${s3.endpoint}`,
          `          fs.s3a.access.key: ${s3.accessKeyId}`,
          `          fs.s3a.secret.key: ${s3.secretAccessKey}`,
          '          fs.s3a.path.style.access: true',
          '',
        ].join('\n'),
      );
      writeFileSync(
        conf,
        sequenceJob({
          mode: 'BATCH',
          keys: 4,
          rowsPerKey: 3000,
          rowsPerSecond: 2000,
          out,
          env: 'job.retry.times = 0',
          // The fault comes after 5,000 of each subtask's 6,000 rows (about 2.5 s of rows), so
          // that checkpoints have completed in S3 first: at 3,000 rows it came about 0.2 s after
          // the first checkpoint did (the first is triggered once every task runs), and a
          // slightly faster start left nothing to restore from.
          chain: `probability = 1\n    max = 1\n    min.rows = 5000\n    kinds = ["exception"]\n    dir = "${join(dir, 'faults')}"`,
        }),
      );
      const jobId = String(Date.now());
      const failed = await runCli(['run', '-c', conf, '--engine-config', engine, '--set-job-id', jobId]);
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toContain('injected fault');
      const restored = await runCli(['run', '-r', jobId, '-c', conf, '--engine-config', engine]);
      expect(restored.code, restored.stderr).toBe(0);
      const report = checkSequenceOutput(out, 4, 3000);
      console.log(
        `S3 restore: rows expected ${report.expected}, seen ${report.seen}, lost ${report.lost}, duplicated ${report.duplicated}`,
      );
      expect(report, report.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 12000 });
    }, 120_000);
  });
});
