/**
 * The plugin SDK as authors outside the repository use it (issue 33, items 1 and 4), against one
 * packed @tideway/api (pnpm pack, as published; packed once here, as packing writes libs/api/dist):
 * - examples/plugins/http-sink: tsc builds it against the tarball's declarations; the built
 *   package goes into a plugin folder named by the engine config; `tideway run` runs a job whose
 *   sink is it, into an HTTP server this test starts. Every row arrives once.
 * - `tideway plugin new`: a package of each kind builds against the tarball and passes its own
 *   tests (node --test); the three, in a plugin folder, run together in one job: the source's
 *   rows, upper-cased by the transform, land once in the sink's files.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { repoRoot } from '../conformance/conformance-files.js';
import { TSC, installApi, packApi, runTool, writeEngineConfig, writeJob } from './plugin-job.js';

/** The plugin API this Tideway has: scaffolds ask for its caret range. */
const API = (JSON.parse(readFileSync(join(repoRoot, 'libs', 'api', 'package.json'), 'utf8')) as { version: string }).version;

const dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-sdk-'));
const pluginDir = join(dir, 'plugins');
/** Batches by Idempotency-Key, as the endpoint keeps them; every POST, repeats included. */
const batches = new Map<string, Array<Record<string, unknown>>>();
const posts: string[] = [];
let server: Server;
let url = '';
let tarball = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (s: string) => (body += s));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      posts.push(key);
      if (!key) {
        res.writeHead(400).end();
        return;
      }
      if (!batches.has(key)) batches.set(key, (JSON.parse(body) as { rows: Array<Record<string, unknown>> }).rows);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rows`;

  tarball = await packApi(dir);
  // The author's checkout of the example, its peer dependency installed from the tarball, then built.
  const build = join(dir, 'build');
  cpSync(join(repoRoot, 'examples', 'plugins', 'http-sink'), build, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist)$/.test(src),
  });
  await installApi(build, tarball);
  await runTool(process.execPath, [TSC, '-p', build], build);

  // Installed as an operator would: the package folder in a plugin folder.
  cpSync(build, join(pluginDir, 'http-sink'), { recursive: true, filter: (src) => !/[/\\]node_modules$/.test(src) });
}, 600_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('examples/plugins/http-sink, from a plugin folder', () => {
  it('is listed by `tideway describe` with its package', async () => {
    const res = await runCli(['describe', '--engine-config', writeEngineConfig(dir, pluginDir)]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^sink +HttpSink +\(tideway-plugin-http-sink\)$/m);
    expect(res.stdout).toMatch(/^sink +Console$/m);
  }, 120_000);

  it('runs a job with `tideway run`: every row POSTed once, in batches keyed by checkpoint', async () => {
    const job = writeJob(dir, 60, `HttpSink { url = "${url}" }`);
    const res = await runCli(['run', '-c', job, '--engine-config', writeEngineConfig(dir, pluginDir)], 180_000);
    expect(res.code, res.stderr).toBe(0);
    const rows = [...batches.values()].flat();
    expect(rows).toHaveLength(120); // FakeSource: row.num rows per subtask, parallelism 2
    expect(new Set(posts).size).toBe(batches.size);
    expect(rows.every((r) => r._table !== undefined && typeof r.id === 'string' && typeof r.name === 'string')).toBe(true);
    for (const key of batches.keys()) expect(key).toMatch(/^.+-[01]-\d+$/);
  }, 240_000);

  it('refuses a bad url option naming it, before any row moves', async () => {
    const job = writeJob(dir, 5, 'HttpSink { url = "ftp://example" }');
    const before = posts.length;
    const res = await runCli(['run', '-c', job, '--engine-config', writeEngineConfig(dir, pluginDir)], 180_000);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("url 'ftp://example' must start with http:// or https://");
    expect(posts.length).toBe(before);
  }, 240_000);
});

const projects = join(dir, 'projects');
const KINDS = [
  ['counter', 'Counter', 'source'],
  ['shout', 'Shout', 'transform'],
  ['json-lines', 'JsonLines', 'sink'],
] as const;

describe('tideway plugin new', () => {
  it('scaffolds a package of each kind that builds against the API tarball and passes its tests', async () => {
    for (const [folder, name, kind] of KINDS) {
      const res = await runCli(['plugin', 'new', name, '--kind', kind, '--dir', projects]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain(`${join(projects, folder)}: ${kind} plugin ${name}`);
      const project = join(projects, folder);
      const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest.peerDependencies).toEqual({ '@tideway/api': `^${API}` });
      expect(manifest.tideway).toEqual({ api: `^${API}`, plugins: [{ name, kind, factory: expect.stringMatching(/Factory$/) as string }] });
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
    const plugins = join(dir, 'scaffolded-plugins');
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
