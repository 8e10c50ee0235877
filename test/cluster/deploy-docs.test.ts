/**
 * docs/cluster.md's ways to start a cluster work as written: the by-hand commands with the
 * engine configs in deploy/cluster/ (run with the ports moved to free ones, the one change, so
 * the test never takes the machine's 5801-5803), and deploy/local-cluster.sh, which starts the
 * compiled build when it is current, as ./tideway does.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, freePortRange } from '@tideway/testing';
import { repoRoot } from '../conformance/conformance-files.js';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { buildIsCurrent } from '../../scripts/cli-entry.mjs';

const dir = mkdtempSync(join(tmpdir(), 'tideway-deploy-docs-'));
const started: Array<ReturnType<typeof spawnCli>> = [];
afterAll(async () => {
  for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The by-hand block of docs/cluster.md: its `./tideway ...` lines, split into arguments. */
function byHandCommands(): string[][] {
  const doc = readFileSync(join(repoRoot, 'docs/cluster.md'), 'utf8');
  const block = /By hand,[\s\S]*?```\n([\s\S]*?)```/.exec(doc);
  expect(block, 'docs/cluster.md has a by-hand block').not.toBeNull();
  return block![1]
    .split('\n')
    .filter((l) => l.startsWith('./tideway '))
    .map((l) => l.split(/\s+/).slice(1));
}

describe("docs/cluster.md's by-hand cluster", () => {
  it('starts from the engine configs in deploy/cluster/ and runs a job', async () => {
    const commands = byHandCommands();
    expect(commands.map((c) => c.slice(0, 4).join(' '))).toEqual([
      'cluster start --role resource-manager',
      'cluster start --role coordinator',
      'cluster start --role worker',
      'submit -c examples/fake_to_console.conf --engine-config',
    ]);
    const ports = new Map<string, string>([
      ['5801', String(await freePort())],
      ['5802', String(await freePort())],
      ['5803', String(await freePort())],
    ]);
    const moved = (file: string) => {
      expect(existsSync(join(repoRoot, file)), `${file} exists`).toBe(true);
      const copy = join(dir, file.replaceAll('/', '_'));
      writeFileSync(
        copy,
        readFileSync(join(repoRoot, file), 'utf8')
          .replace(/port: (580[123])/g, (_m, p: string) => `port: ${ports.get(p)}`)
          .replace('/tmp/tideway/checkpoints/', `${dir}/checkpoints/`),
      );
      return copy;
    };
    const withMovedFiles = (args: string[]) =>
      args.map((a, i) => (args[i - 1] === '--engine-config' ? moved(a) : args[i - 1] === '--metrics-port' ? '0' : a));
    for (const args of commands.slice(0, 3)) {
      const child = spawnCli(withMovedFiles(args));
      started.push(child);
      let log = '';
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (log += s));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${log}`)), 60_000);
        child.stderr!.on('data', () => /metrics at http/.test(log) && (clearTimeout(timer), resolve()));
        child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`${args.join(' ')} exited ${code}:\n${log}`))));
      });
    }
    const submit = await runCli(withMovedFiles(commands[3]));
    expect(submit.code, submit.stderr).toBe(0);
    expect(submit.stdout).toContain('Job Statistic Information');
    for (const c of started) c.kill('SIGTERM');
    await Promise.all(started.filter((c) => c.exitCode === null).map(waitForExit));
  }, 150_000);
});

describe('deploy/local-cluster.sh', () => {
  it('starts four processes from the compiled build when it is current, answers a job, and stops', async () => {
    const base = await freePortRange(4);
    const metrics = await freePortRange(4);
    const cdir = join(dir, 'local');
    const script = join(repoRoot, 'deploy/local-cluster.sh');
    const args = ['--dir', cdir, '--base-port', String(base), '--metrics-base-port', String(metrics)];
    try {
      execFileSync('bash', [script, 'start', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const pid = readFileSync(join(cdir, 'pids/coordinator.pid'), 'utf8').trim();
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      expect(cmdline).toContain(buildIsCurrent() ? 'services/cli/dist/main.js' : 'services/cli/src/main.ts');
      const res = await runCli(['submit', '-c', join(repoRoot, 'examples/fake_to_console.conf'), '--address', `127.0.0.1:${base}`]);
      expect(res.code, res.stderr).toBe(0);
    } finally {
      const stop = spawnSync('bash', [script, 'stop', '--dir', cdir], { encoding: 'utf8' });
      expect(stop.stdout).not.toContain('killed');
    }
  }, 150_000);
});
