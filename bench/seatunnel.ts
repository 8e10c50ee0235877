/**
 * `pnpm bench:seatunnel`: the same job configs on Tideway and on Apache SeaTunnel itself (the
 * release of decision 0045, local mode on both: `tideway run` and `seatunnel.sh -m local`),
 * alternating engines within each round, BENCH_ROUNDS rounds (5), medians and spread.
 *
 * Jobs: FakeSource (BENCH_ROWS rows in all, 8,000,000; row.num is per degree of parallelism, so
 * it is BENCH_ROWS / parallelism) at parallelism 1 and 2 into a Console sink with
 * `log.print.data = false` (rows are taken and dropped: the engines' own cost per row shows).
 * Per job and engine: the whole command's wall time, rows/s over it, peak RSS of the process
 * (/usr/bin/time -v; Tideway's worker threads are in its process, SeaTunnel's local mode is one
 * JVM), and start-up: the wall time of the same job with one row, start to exit.
 *
 * Both engines run with TZ=UTC and the C.UTF-8 locale, the same parallelism and the same
 * checkpoint interval (the config's env: none set, so each engine's default). SeaTunnel's JVM
 * heap: -Xms2g -Xmx2g (BENCH_SEATUNNEL_HEAP), the heap of its distribution's jvm_options.
 * Prints the table; `--write` appends it to bench/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEATUNNEL_VERSION, ensureSeaTunnel, seaTunnelLocalCommand } from '@tideway/testing';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import { machineLine } from './machine.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 8_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HEAP = process.env.BENCH_SEATUNNEL_HEAP ?? '2g';
const root = fileURLToPath(new URL('..', import.meta.url));

type Engine = 'Tideway' | 'SeaTunnel';

interface Measured {
  seconds: number;
  peakRssMb: number;
}

function fakeJob(rows: number, parallelism: number): string {
  return `env {
  job.mode = "BATCH"
  parallelism = ${parallelism}
}
source {
  FakeSource {
    row.num = ${Math.ceil(rows / parallelism)}
    schema = { fields { id = "bigint", name = "string", score = "int", price = "double", at = "timestamp" } }
  }
}
sink {
  Console { log.print.data = false }
}
`;
}

/** Runs a command under /usr/bin/time -v: wall seconds and peak RSS; throws when it fails. */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv): Measured {
  const t0 = performance.now();
  const res = spawnSync('/usr/bin/time', ['-v', command, ...args], { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  const seconds = (performance.now() - t0) / 1000;
  if (res.status !== 0) throw new Error(`${command} exited ${res.status}:\n${res.stdout.slice(-2000)}\n${res.stderr.slice(-3000)}`);
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(res.stderr)?.[1];
  return { seconds, peakRssMb: kb === undefined ? Number.NaN : Number(kb) / 1024 };
}

async function runOnce(engine: Engine, home: string, conf: string): Promise<Measured> {
  const env = { ...process.env, TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
  if (engine === 'Tideway') return timed(process.execPath, [...cliNodeArgs(), 'run', '-c', conf], env);
  const cmd = await seaTunnelLocalCommand(home, conf, { heap: HEAP });
  try {
    return timed('java', cmd.args, cmd.env);
  } finally {
    cmd.cleanup();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const got = ensureSeaTunnel();
  if ('missing' in got) {
    console.error(`bench:seatunnel: ${got.missing}`);
    process.exit(3);
  }
  const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-seatunnel-'));
  const results: { job: string; engine: Engine; runs: Measured[]; startup: Measured[] }[] = [];
  try {
    for (const parallelism of [1, 2]) {
      const big = join(dir, `fake-p${parallelism}.conf`);
      const one = join(dir, `fake-one-p${parallelism}.conf`);
      writeFileSync(big, fakeJob(ROWS, parallelism));
      writeFileSync(one, fakeJob(parallelism, parallelism));
      const job = `FakeSource -> Console (dropped), parallelism ${parallelism}`;
      const per = new Map<Engine, { runs: Measured[]; startup: Measured[] }>([
        ['Tideway', { runs: [], startup: [] }],
        ['SeaTunnel', { runs: [], startup: [] }],
      ]);
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating, the first engine changing every round: drift in the machine's load lands on both.
        const order: Engine[] = round % 2 === 0 ? ['Tideway', 'SeaTunnel'] : ['SeaTunnel', 'Tideway'];
        for (const engine of order) {
          const r = per.get(engine)!;
          r.startup.push(await runOnce(engine, got.home, one));
          r.runs.push(await runOnce(engine, got.home, big));
          const last = r.runs[r.runs.length - 1];
          console.error(`${job}, round ${round + 1}/${ROUNDS}, ${engine}: ${last.seconds.toFixed(1)} s, ${Math.round(last.peakRssMb)} MB`);
        }
      }
      for (const [engine, r] of per) results.push({ job, engine, ...r });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const javaVersion = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0] ?? 'java';
  const lines = [
    '',
    `## Tideway against SeaTunnel ${SEATUNNEL_VERSION} (bench/seatunnel.ts, ${new Date().toISOString().slice(0, 10)})`,
    '',
    `${machineLine({ load: true })} ${javaVersion.trim()}; SeaTunnel ${SEATUNNEL_VERSION} in local mode (\`seatunnel.sh -m local\`'s java command), JVM heap -Xms${HEAP} -Xmx${HEAP}.`,
    `FakeSource, ${ROWS.toLocaleString('en')} rows in all (5 columns: bigint, string, int, double, timestamp) into Console with log.print.data = false; both engines local, TZ=UTC, C.UTF-8, each engine's default checkpoint interval. ${ROUNDS} rounds, engines alternating. Seconds: the whole command (start, job, exit); start-up: the same job with one row per degree of parallelism; peak RSS from /usr/bin/time -v, the largest over the rounds.`,
    '',
    '| job | engine | seconds (median) | every run | rows/s (median) | start-up s (median) | peak RSS MB | Tideway / SeaTunnel rows/s |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const secs = median(r.runs.map((m) => m.seconds));
    const other = results.find((o) => o.job === r.job && o.engine !== r.engine)!;
    const ratio = median(other.runs.map((m) => m.seconds)) / secs;
    lines.push(
      `| ${r.job} | ${r.engine} | ${secs.toFixed(1)} | ${r.runs.map((m) => m.seconds.toFixed(1)).join(', ')} | ${Math.round(ROWS / secs).toLocaleString('en')} | ${median(r.startup.map((m) => m.seconds)).toFixed(1)} | ${Math.round(Math.max(...r.runs.map((m) => m.peakRssMb)))} | ${r.engine === 'Tideway' ? `${ratio.toFixed(2)}x` : ''} |`,
    );
  }
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(text);
  if (process.argv.includes('--write')) appendFileSync(join(root, 'bench', 'RESULTS.md'), text);
}

await main();
