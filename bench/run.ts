/**
 * `pnpm bench`: throughput and peak memory of real jobs in local mode, beside the in-process
 * async queue baseline, all measured in this run. Each job runs in its own process
 * (bench/job-case.ts) so its peak RSS is its own. Prints a Markdown report (paste it into
 * bench/RESULTS.md) with the ratios issue 2 and issue 3 ask about.
 *
 * env: BENCH_ROWS rows per reader (default 2,000,000), BENCH_REPEAT runs per job (default 3;
 * the median is reported).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_QUERY, jobConfigText, type BenchJob } from './job-configs.js';
import { queueRowsPerSecond } from './queue-baseline.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 2_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const root = fileURLToPath(new URL('..', import.meta.url));

interface CaseResult {
  rowsRead: number;
  rowsWritten: number;
  runMs: number;
  wallMs: number;
  maxRssMB: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function runJob(dir: string, job: BenchJob): CaseResult & { rowsPerSec: number } {
  const file = join(dir, `${job.name}.conf`);
  writeFileSync(file, jobConfigText(job));
  const runs: CaseResult[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', 'bench/job-case.ts', file], {
      cwd: root,
      encoding: 'utf8',
    });
    runs.push(JSON.parse(out.trim().split('\n').pop()!) as CaseResult);
  }
  const rates = runs.map((r) => r.rowsRead / (r.runMs / 1000));
  const pick = runs[rates.indexOf(median(rates))];
  return { ...pick, rowsPerSec: median(rates), maxRssMB: Math.max(...runs.map((r) => r.maxRssMB)) };
}

const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-'));
try {
  const q1 = median([
    await queueRowsPerSecond(1_000_000, 1),
    await queueRowsPerSecond(1_000_000, 1),
    await queueRowsPerSecond(1_000_000, 1),
  ]);
  const q512 = median([
    await queueRowsPerSecond(4_000_000, 512),
    await queueRowsPerSecond(4_000_000, 512),
    await queueRowsPerSecond(4_000_000, 512),
  ]);
  const jobs: BenchJob[] = [
    { name: 'fake-console-p1', parallelism: 1, rowsPerReader: ROWS, sql: false },
    { name: 'fake-console-p2', parallelism: 2, rowsPerReader: ROWS, sql: false },
    { name: 'fake-sql-console-p1', parallelism: 1, rowsPerReader: ROWS, sql: true },
    { name: 'fake-sql-console-p2', parallelism: 2, rowsPerReader: ROWS, sql: true },
  ];
  const res = new Map<string, ReturnType<typeof runJob>>();
  for (const j of jobs) {
    res.set(j.name, runJob(dir, j));
    process.stderr.write(`bench: ${j.name} done\n`);
  }
  const r = (n: string) => res.get(n)!;
  const lines = [
    `Date: ${new Date().toISOString()}; machine: ${availableParallelism()} CPUs (nproc), Node ${process.version}; ${fmt(ROWS)} rows per reader, median of ${REPEAT} runs.`,
    '',
    '| job | parallelism | rows read | rows written | job time (ms) | wall, submit to end (ms) | rows/s (read / job time) | peak RSS (MB) |',
    '|---|---|---|---|---|---|---|---|',
    ...jobs.map((j) => {
      const x = r(j.name);
      return `| ${j.sql ? 'FakeSource -> Sql -> Console (no print)' : 'FakeSource -> Console (no print)'} | ${j.parallelism} | ${fmt(x.rowsRead)} | ${fmt(x.rowsWritten)} | ${fmt(x.runMs)} | ${fmt(x.wallMs)} | ${fmt(x.rowsPerSec)} | ${x.maxRssMB} |`;
    }),
    '',
    `In-process async queue baseline (this run): ${fmt(q1)} rows/s at 1 row per batch, ${fmt(q512)} rows/s at 512 rows per batch.`,
    '',
    '| ratio | value |',
    '|---|---|',
    `| p2 / p1, no Sql (issue 2 wants >= 1.6) | ${(r('fake-console-p2').rowsPerSec / r('fake-console-p1').rowsPerSec).toFixed(2)} |`,
    `| p2 / p1, with Sql | ${(r('fake-sql-console-p2').rowsPerSec / r('fake-sql-console-p1').rowsPerSec).toFixed(2)} |`,
    `| Sql / no Sql, p1 (issue 3 wants >= 0.5) | ${(r('fake-sql-console-p1').rowsPerSec / r('fake-console-p1').rowsPerSec).toFixed(2)} |`,
    `| Sql / no Sql, p2 | ${(r('fake-sql-console-p2').rowsPerSec / r('fake-console-p2').rowsPerSec).toFixed(2)} |`,
    `| p1 job / queue baseline at 512 rows per batch | ${(r('fake-console-p1').rowsPerSec / q512).toFixed(3)} |`,
    '',
    `Sql query: \`${BENCH_QUERY}\``,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
