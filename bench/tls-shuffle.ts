/**
 * The cost of mutual TLS on a shuffle: the same job (FakeSource x2 -> shuffle -> Console x1,
 * every row over DataExchange on loopback) run in local mode (bench/job-case.ts) with plaintext
 * and with mutual TLS on every gRPC channel (TIDEWAY_TLS_CA/CERT/KEY, certificates written by
 * `tideway cluster certs`), alternating, BENCH_REPEAT runs each (default 3), medians compared in
 * the same run. Prints a Markdown table for bench/RESULTS.md.
 *
 * usage: node --import tsx --conditions=source bench/tls-shuffle.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-tls-'));

const job = `
env { job.mode = "BATCH", parallelism = 2 }
source { FakeSource { plugin_output = "fake", row.num = ${rows}, schema = { fields { id = bigint, name = string, v = double } } } }
sink { Console { plugin_input = "fake", parallelism = 1, log.print.data = false } }
`;

interface Run {
  rowsRead: string;
  runMs: number;
}

function run(file: string, env: NodeJS.ProcessEnv): Run {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=source', 'bench/job-case.ts', file], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.trim().split('\n').pop()!) as Run;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  execFileSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', 'services/cli/src/main.ts', 'cluster', 'certs', '--out', join(dir, 'tls')],
    { cwd: root },
  );
  const file = join(dir, 'shuffle.conf');
  writeFileSync(file, job);
  const tls = {
    TIDEWAY_TLS_CA: join(dir, 'tls', 'ca.pem'),
    TIDEWAY_TLS_CERT: join(dir, 'tls', 'worker.pem'),
    TIDEWAY_TLS_KEY: join(dir, 'tls', 'worker-key.pem'),
  };
  const times: Record<'plaintext' | 'mutual TLS', number[]> = { plaintext: [], 'mutual TLS': [] };
  for (let i = 0; i < repeat; i++) {
    for (const [mode, env] of [
      ['plaintext', {}],
      ['mutual TLS', tls],
    ] as const) {
      const r = run(file, env);
      if (Number(r.rowsRead) !== 2 * rows) throw new Error(`${mode}: read ${r.rowsRead} rows, expected ${2 * rows}`);
      times[mode].push(r.runMs);
    }
  }
  const plain = median(times.plaintext);
  process.stdout.write(
    `Date: ${new Date().toISOString()}; machine: ${cpus().length} CPUs, Node ${process.version}; ${2 * rows} rows through one shuffle, median of ${repeat}.\n\n`,
  );
  process.stdout.write('| transport | job time (ms) | rows/s | vs plaintext |\n|---|---|---|---|\n');
  for (const [mode, ts] of Object.entries(times)) {
    const ms = median(ts);
    process.stdout.write(
      `| ${mode} | ${ms} | ${Math.round((2 * rows) / (ms / 1000)).toLocaleString('en-US')} | ${(plain / ms).toFixed(2)} |\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
