/**
 * Failures name the plugin (issue 33, item 3), through `tideway run` and a plugin folder: a
 * package built for another plugin API, one reusing a built-in's name (refused at start), one
 * whose module does not load or lacks its factory (refused at submit, when a job names it) get
 * one sentence naming the package and the reason and exit 2, never a stack trace; a plugin that
 * throws, in its call or later from a timer, fails its own task (the job FAILED, exit 1, with
 * the plugin's message), not the process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { repoRoot } from '../conformance/conformance-files.js';
import { writeEngineConfig, writeJob, writePluginPackage } from './plugin-job.js';

const API = (JSON.parse(readFileSync(join(repoRoot, 'libs', 'api', 'package.json'), 'utf8')) as { version: string }).version;

let dir: string;
let pluginDir: string;

const sink = (exportName: string, name: string, write = '') =>
  `export const ${exportName} = { type: 'sink', name: '${name}', description: 'test', spec: { options: [] },\n` +
  `  create: () => ({ createWriter: () => ({ write(rows) { ${write} }, close() {} }) }) };\n`;
const declares = (name: string, factory = 'f', api = '^0.1.0') => ({ api, plugins: [{ name, kind: 'sink', factory }] });

/** A failed task is restored once, a second later (the defaults, 3 times 3 s apart, only add waiting). */
const RETRY_ONCE = ['job.retry.times = 1', 'job.retry.interval.seconds = 1'];

async function run(sinkBlock: string, engine = '') {
  const res = await runCli(
    ['run', '-c', writeJob(dir, 20, sinkBlock, RETRY_ONCE), '--engine-config', writeEngineConfig(dir, pluginDir, engine)],
    180_000,
  );
  const lines = res.stderr.split('\n').filter((l) => l.startsWith('tideway: '));
  return { ...res, lines };
}

/** No stack frame anywhere in what the user sees. */
const noStack = (s: string) => expect(s).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tideway-plugin-failures-'));
  pluginDir = join(dir, 'plugins');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a broken plugin package is refused in one sentence naming it (exit 2)', () => {
  it('built for another plugin API: at start, before any job', async () => {
    writePluginPackage(pluginDir, 'old-sink', declares('OldSink', 'f', '^2.0.0'), sink('f', 'OldSink'));
    const res = await run('Console {}');
    expect(res.code, res.stderr).toBe(2);
    expect(res.lines).toEqual([
      `tideway: plugin package old-sink (${join(pluginDir, 'old-sink')}): it was built for plugin API ^2.0.0, and this Tideway has API ${API}; rebuild it against @tideway/api ${API} [TW-CONFIG-012]`,
    ]);
    noStack(res.stderr);
  }, 200_000);

  it("reusing a built-in's name: at start", async () => {
    writePluginPackage(pluginDir, 'my-console', declares('Console'), sink('f', 'Console'));
    const res = await run('Console {}');
    expect(res.code, res.stderr).toBe(2);
    expect(res.lines).toHaveLength(1);
    expect(res.lines[0]).toMatch(
      /^tideway: plugin package my-console \(.+\): its sink Console has the name of a built-in sink; give it another name/,
    );
  }, 200_000);

  it('whose module does not load, or lacks its factory: when a job names it', async () => {
    writePluginPackage(pluginDir, 'broken', declares('Broken'), "import 'a-package-it-never-installed';\n" + sink('f', 'Broken'));
    writePluginPackage(pluginDir, 'no-factory', declares('NoFactory', 'noFactorySink'), sink('somethingElse', 'NoFactory'));
    const broken = await run('Broken {}');
    expect(broken.code, broken.stderr).toBe(2);
    expect(broken.lines).toHaveLength(1);
    expect(broken.lines[0]).toMatch(
      /^tideway: plugin package broken \(.+\): its module index.js does not load: Cannot find (package|module) 'a-package-it-never-installed'/,
    );
    noStack(broken.stderr);
    const missing = await run('NoFactory {}');
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.lines).toHaveLength(1);
    expect(missing.lines[0]).toMatch(
      /^tideway: plugin package no-factory \(.+\): it does not export noFactorySink, which its package.json names as the factory of its sink NoFactory \[TW-CONFIG-012\]$/,
    );
  }, 300_000);
});

describe('a plugin that throws fails its task, not the process', () => {
  it('in its call, or later from a timer of its own', async () => {
    writePluginPackage(pluginDir, 'throws', declares('Throws'), sink('f', 'Throws', "throw new Error('Throws: the warehouse said no');"));
    const thrown = await run('Throws {}');
    expect(thrown.code, thrown.stderr).toBe(1);
    expect(thrown.lines.at(-1)).toMatch(/^tideway: job \d+ FAILED: Throws: the warehouse said no/);
    // Retried as any task failure: the pipeline restarted before the job gave up.
    expect(thrown.stderr).toMatch(/"attempt":0,"restart":true,"error":"Throws: the warehouse said no"/);
    noStack(thrown.stderr);
    writePluginPackage(
      pluginDir,
      'throws-later',
      declares('ThrowsLater'),
      sink(
        'f',
        'ThrowsLater',
        "setTimeout(() => { throw new Error('ThrowsLater: out of band'); }, 0); return new Promise((r) => setTimeout(r, 2000));",
      ),
    );
    const later = await run('ThrowsLater {}');
    expect(later.code, later.stderr).toBe(1);
    expect(later.lines.at(-1)).toMatch(/^tideway: job \d+ FAILED: .*ThrowsLater: out of band/);
    noStack(later.stderr);
  }, 300_000);
});

describe('a plugin call past its time limit (tideway.plugin-call-timeout) fails its task, naming the plugin and the call', () => {
  it('a write that spins in a loop, and one whose promise never settles', async () => {
    const limits = '  plugin-call-timeout:\n    write: 3000\n';
    writePluginPackage(pluginDir, 'spins', declares('Spins'), sink('f', 'Spins', 'for (;;) {}'));
    const spun = await run('Spins {}', limits);
    expect(spun.code, spun.stderr).toBe(1);
    expect(spun.lines.at(-1)).toMatch(
      /^tideway: job \d+ FAILED: sink Spins \(\S+job\.conf:14\): its SinkWriter\.write call did not return within 3 s \(tideway\.plugin-call-timeout\.write\); its task was stopped/,
    );
    // Retried as any task failure first.
    expect(spun.stderr).toMatch(/"restart":true,"error":"sink Spins/);
    noStack(spun.stderr);
    writePluginPackage(pluginDir, 'hangs', declares('Hangs'), sink('f', 'Hangs', 'return new Promise(() => {});'));
    const hung = await run('Hangs {}', limits);
    expect(hung.code, hung.stderr).toBe(1);
    expect(hung.lines.at(-1)).toMatch(/^tideway: job \d+ FAILED: sink Hangs \(\S+\): its SinkWriter\.write call did not return within 3 s/);
  }, 300_000);
});
