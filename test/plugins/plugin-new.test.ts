/**
 * `tideway plugin new` (issue 33, item 4): a package of each kind, scaffolded, its peer
 * dependency installed from the packed @tideway/api, builds and passes its own tests (node
 * --test); the three, put in a plugin folder, run together in a job with `tideway run`: the
 * source's rows, upper-cased by the transform, land once in the sink's files.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { TSC, installApi, packApi, runTool, writeEngineConfig } from './plugin-job.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-new-'));
const projects = join(dir, 'projects');
const KINDS = [
  ['counter', 'Counter', 'source'],
  ['shout', 'Shout', 'transform'],
  ['json-lines', 'JsonLines', 'sink'],
] as const;
let tarball = '';

beforeAll(async () => {
  tarball = await packApi(dir);
}, 400_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tideway plugin new', () => {
  it('scaffolds a package of each kind that builds against the API tarball and passes its tests', async () => {
    for (const [folder, name, kind] of KINDS) {
      const res = await runCli(['plugin', 'new', name, '--kind', kind, '--dir', projects]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain(`${join(projects, folder)}: ${kind} plugin ${name}`);
      const project = join(projects, folder);
      const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest.peerDependencies).toEqual({ '@tideway/api': '^0.1.0' });
      expect(manifest.tideway).toEqual({ api: '^0.1.0', plugins: [{ name, kind, factory: expect.stringMatching(/Factory$/) as string }] });
      await installApi(project, tarball);
      await runTool(process.execPath, [TSC, '-p', project], project);
      const tests = await runTool(process.execPath, ['--test', 'dist/'], project);
      expect(tests).toMatch(/^# pass 2$/m);
      expect(tests).toMatch(/^# fail 0$/m);
    }
  }, 400_000);

  it('refuses a kind it does not make, and a folder that exists, by name (exit 2)', async () => {
    const kind = await runCli(['plugin', 'new', 'Csv', '--kind', 'format', '--dir', projects]);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('--kind format: expected one of source, sink, transform');
    const again = await runCli(['plugin', 'new', 'Counter', '--kind', 'source', '--dir', projects]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${join(projects, 'counter')} already exists`);
  }, 120_000);

  it('runs the three from a plugin folder in one job', async () => {
    const plugins = join(dir, 'plugins');
    for (const [folder] of KINDS)
      cpSync(join(projects, folder), join(plugins, folder), { recursive: true, filter: (src) => !/[/\\]node_modules$/.test(src) });
    const out = join(dir, 'out');
    const job = join(dir, 'job.conf');
    writeFileSync(
      job,
      `env {\n  job.mode = "BATCH"\n  parallelism = 2\n}\nsource { Counter { rows = 1500 } }\ntransform { Shout { fields = [label] } }\nsink { JsonLines { path = "${out}" } }\n`,
    );
    const res = await runCli(['run', '-c', job, '--engine-config', writeEngineConfig(dir, plugins)], 180_000);
    expect(res.code, res.stderr).toBe(0);
    const rows = readdirSync(out)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(join(out, f), 'utf8').trim().split('\n'))
      .map((l) => JSON.parse(l) as { id: string; label: string });
    expect(rows).toHaveLength(3000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3000);
    expect(rows.every((r) => r.label === `ROW ${r.id}`)).toBe(true);
    expect(readdirSync(join(out, '.pending'))).toEqual([]);
  }, 240_000);
});
