import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { buildIsCurrent, cliNodeArgs } from '../scripts/cli-entry.mjs';

/**
 * The machine notes of bench/RESULTS.md: CPUs, memory, Node, the PostgreSQL version when the
 * benchmark used one, the kernel; and the load average when asked (other work on a shared
 * machine moves the numbers).
 */
export function machineLine(opts: { postgres?: boolean; load?: boolean } = {}): string {
  const pg = opts.postgres ? `; PostgreSQL ${execFileSync('psql', ['--version']).toString().trim().split(' ')[2]}` : '';
  const load = opts.load ? `; load average at the start ${loadavg()[0].toFixed(1)}` : '';
  return `Machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}${pg}, ${readFileSync('/proc/version', 'utf8').split(' ').slice(0, 3).join(' ')}${load}.`;
}

const TICK = 100; // clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ)

/** CPU seconds of a process (all threads) and of its reaped children. */
export function procCpu(pid: number): { own: number; reaped: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { own: (Number(f[11]) + Number(f[12])) / TICK, reaped: (Number(f[13]) + Number(f[14])) / TICK };
}

/**
 * The job names a bench's `--jobs` option (comma-separated) selects, each checked against the
 * bench's jobs; an unknown name ends the process with exit code 2, naming the known ones.
 */
export function selectJobs<T extends string>(bench: string, given: string, jobs: readonly T[]): (job: T) => boolean {
  const selected = given.split(',').map((s) => s.trim());
  for (const j of selected) {
    if (!(jobs as readonly string[]).includes(j)) {
      console.error(`${bench}: --jobs: no job named '${j}' (the jobs: ${jobs.join(', ')})`);
      process.exit(2);
    }
  }
  return (job) => selected.includes(job);
}

/**
 * Ends the process with exit code 2 when services/cli/dist is older than the sources: a bench
 * that times Tideway runs its build, as users do. From the TypeScript sources (through tsx) each
 * process and task thread compiles the modules it loads at every start: about 0.5 s more
 * start-up and twice the CPU (a LocalFile read's one-row job took 1.1 s instead of 0.56 s), so
 * figures measured so are tsx's. `pnpm bench:*` builds first.
 */
export function requireCurrentBuild(bench: string): void {
  if (!buildIsCurrent()) {
    console.error(`${bench}: services/cli/dist is older than the sources; run pnpm build first (pnpm ${bench} does)`);
    process.exit(2);
  }
}

/** The node arguments that start this checkout's CLI, from its build (see requireCurrentBuild). */
export function builtCli(bench: string): string[] {
  requireCurrentBuild(bench);
  return cliNodeArgs();
}
