import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from './conformance-files.js';
import { cliNodeArgs } from '../../scripts/cli-entry.mjs';

/** What a finished CLI process left: its exit code (or signal) and its output. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The real CLI, run from the repository root as ./tideway runs it: the compiled build when it is
 * current (scripts/test.sh builds first), the sources through tsx otherwise.
 */
const cliArgs = cliNodeArgs();

export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [...cliArgs, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Collects a child's output and resolves when it exits. */
export function waitForExit(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((resolveExit, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolveExit({ code, signal, stdout, stderr }));
  });
}

/** Runs the CLI to its end (with `env` added to the environment); kills it (and fails) after `timeoutMs`. */
export async function runCli(args: string[], timeoutMs = 120_000, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = spawnCli(args, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const res = await waitForExit(child);
    if (res.signal === 'SIGKILL') throw new Error(`tideway ${args.join(' ')} did not end within ${timeoutMs} ms\n${res.stderr}`);
    return res;
  } finally {
    clearTimeout(timer);
  }
}
