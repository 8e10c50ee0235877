import type { ChaosRunReport } from './chaos-run.js';
import type { KillRecord } from './kill-step.js';
import { median, percentile } from './stats.js';

/** Whether a run proved what it should: FINISHED, nothing lost or duplicated, every kill done and recovered. */
export function runPassed(r: ChaosRunReport): boolean {
  return r.status === 'FINISHED' && r.rows.lost === 0 && r.rows.duplicated === 0 && r.problems.length === 0;
}

/** Recovery seconds of a group of kills: count, median, p90, max. */
export interface RecoveryStats {
  group: string;
  kills: number;
  recovered: number;
  medianSeconds?: number;
  p90Seconds?: number;
  maxSeconds?: number;
}

function statsOf(group: string, kills: readonly KillRecord[]): RecoveryStats {
  const secs = kills.flatMap((k) => (k.recoverySeconds === undefined ? [] : [k.recoverySeconds]));
  return {
    group,
    kills: kills.length,
    recovered: secs.length,
    medianSeconds: median(secs),
    p90Seconds: percentile(secs, 90),
    maxSeconds: secs.length ? Math.max(...secs) : undefined,
  };
}

/** Recovery statistics over every kill, then by kind of process and signal. */
export function recoveryStats(kills: readonly KillRecord[]): RecoveryStats[] {
  const groups = new Map<string, KillRecord[]>();
  for (const k of kills) {
    const g = `${k.kind}, ${k.signal}`;
    groups.set(g, [...(groups.get(g) ?? []), k]);
  }
  return [statsOf('every kill', kills), ...[...groups].sort(([a], [b]) => a.localeCompare(b)).map(([g, ks]) => statsOf(g, ks))];
}

/** The report of the runs as JSON (what --json prints). */
export function reportJson(runs: readonly ChaosRunReport[]): string {
  return JSON.stringify(
    { passed: runs.every(runPassed), runs: runs.map((r) => ({ ...r, passed: runPassed(r), recovery: recoveryStats(r.kills) })) },
    null,
    2,
  );
}

const secs = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(1));

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** The report of the runs as text tables (stdout). */
export function reportText(runs: readonly ChaosRunReport[]): string {
  const out: string[] = [];
  for (const r of runs) {
    out.push(
      `chaos run, source ${r.source}, sink ${r.sink} (${r.where}), seed ${r.seed}, job ${r.jobId}: ${runPassed(r) ? 'PASSED' : 'FAILED'} in ${r.seconds.toFixed(0)} s`,
    );
    out.push('');
    out.push(
      ...table(
        ['expected', 'seen', 'lost', 'duplicated', 'job status', 'kills'],
        [
          [
            String(r.rows.expected),
            String(r.rows.seen),
            String(r.rows.lost),
            String(r.rows.duplicated),
            r.status,
            `${r.kills.length} of ${r.killsAsked}`,
          ],
        ],
      ),
    );
    if (r.rows.examples.length > 0) out.push(`rows wrong, for example: ${r.rows.examples.join('; ')}`);
    for (const p of r.problems) out.push(`problem: ${p}`);
    if (r.dir) out.push(`logs, configs and output kept in ${r.dir}`);
    if (r.kills.length > 0) {
      out.push('');
      out.push(
        ...table(
          ['#', 'at s', 'process', 'kind', 'signal', 'pause s', 'recovery s', 'leader after', 'attempt'],
          r.kills.map((k) => [
            String(k.n),
            k.atSeconds.toFixed(1),
            k.target,
            k.kind,
            k.signal,
            secs(k.pauseSeconds),
            k.outcome === 'recovered' ? secs(k.recoverySeconds) : k.outcome,
            k.leaderAfter ?? '-',
            `${k.attemptBefore} -> ${k.attemptAfter ?? '?'}`,
          ]),
        ),
      );
      out.push('');
      out.push(
        ...table(
          ['recovery (s)', 'kills', 'recovered', 'median', 'p90', 'max'],
          recoveryStats(r.kills).map((s) => [
            s.group,
            String(s.kills),
            String(s.recovered),
            secs(s.medianSeconds),
            secs(s.p90Seconds),
            secs(s.maxSeconds),
          ]),
        ),
      );
    }
    out.push('');
  }
  return out.join('\n');
}
