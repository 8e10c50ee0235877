/**
 * examples/plugins/http-sink as a plugin author builds it and an operator runs it (issue 33,
 * items 1 and 4): the packed @tideway/api (pnpm pack, as published) is the example's peer
 * dependency; tsc builds the example against the tarball's declarations; the built package goes
 * into a plugin folder named by the engine config; `tideway run` runs a job whose sink is it,
 * into an HTTP server this test starts. Every row arrives once.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { repoRoot } from '../conformance/conformance-files.js';
import { writeEngineConfig, writeJob } from './plugin-job.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'tideway-http-sink-'));
const pluginDir = join(dir, 'plugins');
/** Batches by Idempotency-Key, as the endpoint keeps them; every POST, repeats included. */
const batches = new Map<string, Array<Record<string, unknown>>>();
const posts: string[] = [];
let server: Server;
let url = '';

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

  // The API tarball, as `pnpm pack` makes it for authors outside the repository.
  const packs = join(dir, 'packs');
  mkdirSync(packs);
  await exec('pnpm', ['pack', '--pack-destination', packs], { cwd: join(repoRoot, 'libs', 'api'), timeout: 300_000 });
  const [tarball] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  expect(tarball).toBeDefined();

  // The author's checkout of the example, its peer dependency installed from the tarball (where
  // npm puts it: the tarball's package/ folder as node_modules/@tideway/api), then built.
  const build = join(dir, 'build');
  cpSync(join(repoRoot, 'examples', 'plugins', 'http-sink'), build, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist)$/.test(src),
  });
  const api = join(build, 'node_modules', '@tideway', 'api');
  mkdirSync(api, { recursive: true });
  await exec('tar', ['-xzf', join(packs, tarball), '-C', api, '--strip-components=1']);
  const tsc = createRequire(join(repoRoot, 'package.json')).resolve('typescript/bin/tsc');
  const compiled = await exec(process.execPath, [tsc, '-p', build], { timeout: 180_000 }).then(
    () => '',
    (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
  );
  expect(compiled).toBe('');

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
