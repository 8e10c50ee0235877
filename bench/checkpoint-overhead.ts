/**
 * `node --import tsx --conditions=source bench/checkpoint-overhead.ts`: throughput of one job
 * with checkpoint.interval = 1000 ms against the same job without periodic checkpoints (issue 5:
 * target under 10% overhead). FakeSource -> transactional LocalFile sink (text), BATCH, each run
 * in its own process through bench/job-case.ts, median of BENCH_REPEAT runs (default 3).
 * Prints a Markdown section for bench/RESULTS.md.
 *
 * env: BENCH_ROWS rows per reader (default 2,000,000), BENCH_PARALLELISM (default 2).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkpointJobText } from './job-configs.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 2_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const PARALLELISM = Number(process.env.BENCH_PARALLELISM ?? 2);
const root = fileURLToPath(new URL('..', import.meta.url));

function config(out: string, interval: number | undefined): string {
  return checkpointJobText(out, ROWS, PARALLELISM, interval);
}

interface Run {
  rowsRead: number;
  runMs: number;
  maxRssMB: number;
}

function measure(dir: string, name: string, interval: number | undefined): { rowsPerSec: number; maxRssMB: number } {
  const rates: number[] = [];
  let rss = 0;
  for (let i = 0; i < REPEAT; i++) {
    const out = join(dir, `${name}-${i}`);
    const file = join(dir, `${name}.conf`);
    writeFileSync(file, config(out, interval));
    const line = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', 'bench/job-case.ts', file], {
      cwd: root,
      encoding: 'utf8',
    });
    const r = JSON.parse(line.trim().split('\n').pop()!) as Run;
    rates.push(r.rowsRead / (r.runMs / 1000));
    rss = Math.max(rss, r.maxRssMB);
    rmSync(out, { recursive: true, force: true });
  }
  rates.sort((a, b) => a - b);
  return { rowsPerSec: rates[Math.floor(rates.length / 2)], maxRssMB: rss };
}

const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-ckpt-'));
try {
  const off = measure(dir, 'no-checkpoints', undefined);
  const on = measure(dir, 'checkpoint-1s', 1000);
  const overhead = (1 - on.rowsPerSec / off.rowsPerSec) * 100;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  process.stdout.write(
    [
      `## Checkpoint overhead (issue 5)`,
      '',
      `${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} cores, Node ${process.version}; FakeSource (5 columns, ${fmt(ROWS)} rows per reader, parallelism ${PARALLELISM}) -> LocalFile text with transactions, BATCH; median of ${REPEAT} runs each.`,
      '',
      '| job | rows/s | peak RSS |',
      '|---|---|---|',
      `| no periodic checkpoints (one final checkpoint) | ${fmt(off.rowsPerSec)} | ${off.maxRssMB} MB |`,
      `| checkpoint.interval = 1000 ms | ${fmt(on.rowsPerSec)} | ${on.maxRssMB} MB |`,
      '',
      `Overhead: ${overhead.toFixed(1)}% (target: under 10%).`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
