/**
 * Local mode (`tideway run`) keeps a job's lines in a file of its own, as a cluster's processes do
 * (docs/logs.md), and `tideway logs <jobId> --local` reads them after the run, with secrets masked.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-local-logs-'));
const logDir = join(dir, 'log');
const engine = join(dir, 'engine.yaml');
writeFileSync(engine, ['tideway:', '  logs:', `    dir: ${JSON.stringify(logDir)}`, ''].join('\n'));
const SECRET = 'Tw0-local-planted-s3cret';
const JOB_ID = '8800000000000001';

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('per-job logs in local mode', () => {
  it('a local run leaves its job file, which `tideway logs --local` reads with the secret masked', async () => {
    const job = join(dir, 'job.conf');
    writeFileSync(
      job,
      `env {
  parallelism = 1
  job.mode = "BATCH"
  spark.hadoop.fs.s3a.secret.key = "${SECRET}"
}
source { FakeSource { row.num = 10, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`,
    );
    const run = await runCli(['run', '-c', job, '--engine-config', engine, '--set-job-id', JOB_ID]);
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(logDir)).toEqual([`job-${JOB_ID}-all-local.log`]);

    const logs = await runCli(['logs', JOB_ID, '--local', '--engine-config', engine]);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(/INFO {2}all local {2}coordinator: job submitted/);
    expect(logs.stdout).toContain('task group deployed');
    expect(logs.stdout).toContain('******');
    expect(logs.stdout).not.toContain(SECRET);

    const json = await runCli(['logs', JOB_ID, '--local', '--engine-config', engine, '--json', '--level', 'warn']);
    expect(json.code, json.stderr).toBe(0);
    for (const line of json.stdout.split('\n').filter(Boolean))
      expect((JSON.parse(line) as { level: number }).level).toBeGreaterThanOrEqual(40);
  }, 120_000);

  it('refuses what --local cannot do, and names the folder of a job it has no file for', async () => {
    const follow = await runCli(['logs', JOB_ID, '--local', '--follow', '--engine-config', engine]);
    expect(follow.code).toBe(2);
    expect(follow.stderr).toContain('--follow with --local is not supported');
    const missing = await runCli(['logs', '1234', '--local', '--engine-config', engine]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`job 1234 has no log file under ${logDir}`);
  }, 60_000);
});
