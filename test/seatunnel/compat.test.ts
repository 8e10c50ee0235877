/**
 * `tideway compat`: per SeaTunnel config, whether Tideway runs it unchanged. Its verdicts are the
 * planner's, so they must equal what `tideway run` does with the same configs: for a sample of
 * the shared conformance folder and for configs naming a plugin or option Tideway lacks.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedConformanceDir } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';

const shared = sharedConformanceDir();
const work = mkdtempSync(join(tmpdir(), 'tideway-compat-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const VARIABLES = 'connector-seatunnel-e2e-base__fake_to_console.variables.conf';
const SAMPLE_RUNS = ['connector-seatunnel-e2e-base__fakesource_to_console.conf', 'seatunnel-transforms-v2-e2e-part-2__sql_transform.conf'];

/** compat's line for one file: `runs <file>` or `refused <reason>`. */
function verdictLine(stdout: string, file: string): string {
  const line = stdout.split('\n').find((l) => l.includes(file));
  if (line === undefined) throw new Error(`compat printed no line for ${file}:\n${stdout}`);
  return line;
}

describe.skipIf(shared === undefined)('tideway compat on the shared conformance folder', () => {
  it('gives a verdict per config, refuses the one that needs job variables, exits 1', async () => {
    const res = await runCli(['compat', join(shared!, 'cases')]);
    expect(res.code, res.stderr).toBe(1);
    const lines = res.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('runs '))).toHaveLength(28);
    expect(lines.filter((l) => l.startsWith('refused '))).toEqual([
      expect.stringMatching(
        new RegExp(`^refused  .*${VARIABLES.replace(/\./g, '\\.')}:29: column 25: the variable 'resName' in \\$\\{resName\\} is not set`),
      ),
    ]);
    expect(lines[lines.length - 1]).toBe('28 of 29 config(s) run unchanged on Tideway');
  });

  it('says the same as running each config of a sample', async () => {
    const folder = join(work, 'sample');
    mkdirSync(folder);
    for (const f of [...SAMPLE_RUNS, VARIABLES]) copyFileSync(join(shared!, 'cases', f), join(folder, f));
    writeFileSync(
      join(folder, 'hudi_sink.conf'),
      'env { job.mode = "BATCH" }\nsource {\n  FakeSource {\n    row.num = 3\n    schema = { fields { a = "int" } }\n  }\n}\nsink {\n  Hudi {\n    table_name = "t"\n  }\n}\n',
    );
    writeFileSync(
      join(folder, 'unknown_option.conf'),
      'env { job.mode = "BATCH" }\nsource {\n  FakeSource {\n    row.num = 3\n    fake_seed = 7\n    schema = { fields { a = "int" } }\n  }\n}\nsink { Console {} }\n',
    );
    const compat = await runCli(['compat', folder]);
    expect(compat.code, compat.stderr).toBe(1);
    for (const f of [...SAMPLE_RUNS, VARIABLES, 'hudi_sink.conf', 'unknown_option.conf']) {
      const path = join(folder, f);
      const run = await runCli(['run', '-c', path]);
      const line = verdictLine(compat.stdout, path);
      if (run.code === 0) {
        expect(line, run.stderr).toBe(`runs     ${path}`);
      } else {
        // A refused config: run exits 2 with the same sentence compat printed.
        expect(run.code, run.stderr).toBe(2);
        expect(line.startsWith('refused  ')).toBe(true);
        expect(run.stderr.trim().split('\n').pop()).toBe(`tideway: ${line.slice('refused  '.length)}`);
      }
    }
    expect(verdictLine(compat.stdout, 'hudi_sink.conf')).toContain("hudi_sink.conf:9: unknown sink plugin 'Hudi'");
    expect(verdictLine(compat.stdout, 'unknown_option.conf')).toContain("unknown_option.conf:5, plugin FakeSource, option 'fake_seed'");
  }, 240_000);

  it('exits 0 when every config runs, and takes job variables', async () => {
    const one = await runCli(['compat', join(shared!, 'cases', SAMPLE_RUNS[0])]);
    expect(one.code, one.stderr).toBe(0);
    const vars = [
      '-i',
      'resName=a',
      '-i',
      'rowNum=10',
      '-i',
      'strTemplate=[abc,def]',
      '-i',
      'nameType=string',
      '-i',
      'nameVal=abc',
      '-i',
      'sourceTableName=sql',
    ];
    const withVars = await runCli(['compat', join(shared!, 'cases', VARIABLES), ...vars]);
    expect(withVars.code, withVars.stdout + withVars.stderr).toBe(0);
  });
});

describe('tideway compat usage errors', () => {
  it('exits 2 for a path that does not exist and for a folder without configs', async () => {
    const missing = await runCli(['compat', join(work, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`tideway: ${join(work, 'nope')}: no such file`);
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const none = await runCli(['compat', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no job configs (.conf, .hocon, .json) in this folder');
    expect((await runCli(['compat'])).code).toBe(2);
  });
});
