import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

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
