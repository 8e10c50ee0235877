/**
 * ORC write and read of the orders table (shared/bench/orders-postgres.sql's formulas, 12
 * columns, BENCH_ROWS rows, default 2,000,000), Tideway's LocalFile orc sink and source against
 * pyarrow's ORC writer and reader (Apache ORC's C++ library), snappy for both, in the same run and
 * in alternating rounds (BENCH_ROUNDS, default 5), since the machine is shared and its speed moves:
 *
 * - writing: each round times pyarrow writing the table of Tideway's file (read into memory before
 *   its clock, in a process of its own) and Tideway's writer, in turn (which goes first
 *   alternates). Tideway's is a paired run (parquet-paired.ts): the rows, made as Tideway's
 *   PostgreSQL source hands them to a sink (batches of 1024, orders-rows.ts), go through the
 *   LocalFile orc sink in blocks of 65,536, alternating with blocks of the same rows made only;
 *   the writer's seconds are what the written blocks took more. The rows a sink gets are fresh;
 *   made all before the clock (as pyarrow's table is) they are 1.8 GB of old objects, and a
 *   writer's garbage collections then mark them all, a cost no job's sink pays. The ratio of
 *   each round is pyarrow's seconds over Tideway's.
 * - reading: each round times pyarrow reading its own file, and Tideway's LocalFile source reading
 *   Tideway's file (in a process of its own, modules loaded before the clock), in turn.
 *
 * Before the rounds, as before 2026-12-05: the sink with its rows made on the fly, and the rows
 * made alone, each in its own process (the writer's share by subtraction, a figure the machine's
 * load moves); pyarrow checks that it reads Tideway's file as the same table it writes. Needs the
 * ORC peers (scripts/ensure-orc-peers.sh). Results: bench/RESULTS.md.
 *
 *   BENCH_ROWS=500000 BENCH_ROUNDS=3 node --import tsx --conditions=source bench/orc.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BATCH, batchOf, commitFile, pairedRuns, ROWS, rowGroupThread, sinkWriter, sourceRowCount, writeBatch } from './parquet-paired.js';

const PYTHON = join(process.env.TIDEWAY_CACHE ?? join(homedir(), '.cache', 'tideway'), 'orc', 'venv', 'bin', 'python');
const SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), 'orc_pyarrow.py');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const rss = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuSecs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

function pyarrow(...args: string[]): { secs: number; rows: number } {
  return JSON.parse(execFileSync(PYTHON, [SCRIPT, ...args], { encoding: 'utf8' })) as { secs: number; rows: number };
}

/** The file Tideway's sink wrote under `dir`. */
const tidewayFile = (dir: string) => join(dir, 'tideway', readdirSync(join(dir, 'tideway'))[0]);

interface WriteRound {
  pyarrowSecs: number;
  /** The writer's own seconds in a paired run (parquet-paired.ts): blocks of rows made and written less the same blocks made only. */
  tidewaySecs: number;
  /** CPU seconds of Tideway's process in the paired run: rows made twice, and written once (its row-group thread's CPU too). */
  tidewayCpu: number;
}

async function phase(name: string, dir: string): Promise<unknown> {
  await Promise.all([import('@tideway/connector-localfile'), import('@tideway/api')]); // loaded before the clock starts
  if (name === 'write-rounds') {
    // one process, so the rounds share the made rows' code and the writer's thread, warm
    await rowGroupThread();
    const rounds: WriteRound[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let pyarrowSecs = 0;
      let tidewaySecs = 0;
      let tidewayCpu = 0;
      for (const who of round % 2 === 0 ? ['pyarrow', 'tideway'] : ['tideway', 'pyarrow']) {
        if (who === 'pyarrow') pyarrowSecs = pyarrow('write', tidewayFile(dir), join(dir, 'pyarrow-round.orc')).secs;
        else {
          const cpu0 = process.cpuUsage();
          tidewaySecs = (await pairedRuns(dir, 'orc', 1))[0].writerSecs;
          tidewayCpu = cpuSecs(cpu0);
        }
      }
      rounds.push({ pyarrowSecs, tidewaySecs, tidewayCpu });
    }
    return { rounds, rssMB: rss() };
  }
  await rowGroupThread();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  if (name === 'generate') {
    let n = 0;
    for (let g = 1; g <= ROWS; g += BATCH) n += batchOf(g).length;
    if (n === 0) throw new Error('nothing generated');
  } else if (name === 'tideway-write') {
    const { sink, writer } = await sinkWriter(join(dir, 'tideway'), 'orc');
    for (let g = 1; g <= ROWS; g += BATCH) await writeBatch(writer, g);
    await commitFile(sink, writer);
  } else if (name === 'tideway-read') {
    const rows = await sourceRowCount(join(dir, 'tideway'), 'orc');
    if (rows !== ROWS) throw new Error(`read ${rows} rows, expected ${ROWS}`);
  }
  const secs = (performance.now() - t0) / 1000;
  return { secs, cpu: cpuSecs(cpu0), rowsPerSec: Math.round(ROWS / secs), rssMB: rss() };
}

/** The median of `xs`, and their range. */
function stats(xs: readonly number[]): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const median = s.length % 2 === 1 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { median, min: s[0], max: s[s.length - 1] };
}

const [, , child, dirArg] = process.argv;
if (child) {
  process.stdout.write(JSON.stringify(await phase(child, dirArg)));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tideway-orc-bench-'));
  try {
    const run = <T>(name: string) =>
      JSON.parse(
        execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name, dir], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ) as T;
    type Phase = { secs: number; cpu: number; rowsPerSec: number; rssMB: number };
    const gen = run<Phase>('generate');
    const tw = run<Phase>('tideway-write');
    const file = tidewayFile(dir);
    const own = join(dir, 'pyarrow.orc');
    const check = JSON.parse(execFileSync(PYTHON, [SCRIPT, 'check', file, own], { encoding: 'utf8' })) as { rows: number; same: boolean };
    if (check.rows !== ROWS) throw new Error(`pyarrow read ${check.rows} rows of Tideway's file, expected ${ROWS}`);
    const writes = run<{ rounds: WriteRound[]; rssMB: number }>('write-rounds');
    const reads: { pyarrowSecs: number; tidewaySecs: number; tidewayCpu: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let pyarrowSecs = 0;
      let t: Phase | undefined;
      for (const who of round % 2 === 0 ? ['pyarrow', 'tideway'] : ['tideway', 'pyarrow']) {
        if (who === 'pyarrow') {
          const r = pyarrow('read', own);
          if (r.rows !== ROWS) throw new Error(`pyarrow read ${r.rows} rows of its own file`);
          pyarrowSecs = r.secs;
        } else t = run<Phase>('tideway-read');
      }
      reads.push({ pyarrowSecs, tidewaySecs: t!.secs, tidewayCpu: t!.cpu });
    }
    const rate = (secs: number) => Math.round(ROWS / secs).toLocaleString('en');
    const range = (s: { min: number; max: number }, digits = 2) => `${s.min.toFixed(digits)}-${s.max.toFixed(digits)}`;
    const w = writes.rounds;
    const wRatio = stats(w.map((r) => r.pyarrowSecs / r.tidewaySecs));
    const wTide = stats(w.map((r) => r.tidewaySecs));
    const wPy = stats(w.map((r) => r.pyarrowSecs));
    const wCpu = stats(w.map((r) => r.tidewayCpu));
    const rRatio = stats(reads.map((r) => r.pyarrowSecs / r.tidewaySecs));
    const rTide = stats(reads.map((r) => r.tidewaySecs));
    const rPy = stats(reads.map((r) => r.pyarrowSecs));
    const rCpu = stats(reads.map((r) => r.tidewayCpu));
    const lines = [
      `Date: ${new Date().toISOString()}; ${ROWS.toLocaleString('en')} rows, snappy, ${ROUNDS} rounds; Tideway file ${(statSync(file).size / 1e6).toFixed(1)} MB, pyarrow file ${(statSync(own).size / 1e6).toFixed(1)} MB; pyarrow reads Tideway's file as ${check.rows.toLocaleString('en')} rows, and what it writes of it back as the same table: ${check.same}.`,
      '',
      '| in alternating rounds (median; range) | seconds | rows/s | Tideway CPU seconds |',
      '|---|---|---|---|',
      `| Tideway LocalFile sink, orc: the writer's own seconds in a paired run (CPU: the whole run, rows made twice) | ${wTide.median.toFixed(2)} (${range(wTide)}) | ${rate(wTide.median)} | ${wCpu.median.toFixed(2)} (${range(wCpu)}) |`,
      `| pyarrow orc.write_table of the table in memory | ${wPy.median.toFixed(2)} (${range(wPy)}) | ${rate(wPy.median)} | - |`,
      `| Tideway LocalFile source, orc, reading Tideway's file | ${rTide.median.toFixed(2)} (${range(rTide)}) | ${rate(rTide.median)} | ${rCpu.median.toFixed(2)} (${range(rCpu)}) |`,
      `| pyarrow ORCFile(...).read() of its own file | ${rPy.median.toFixed(2)} (${range(rPy)}) | ${rate(rPy.median)} | - |`,
      '',
      `Ratios, pyarrow's seconds over Tideway's in each round (target >= 0.5): write ${wRatio.median.toFixed(2)} (rounds ${range(wRatio)}), read ${rRatio.median.toFixed(2)} (rounds ${range(rRatio)}). Peak RSS of the paired runs' process: ${writes.rssMB} MB.`,
      '',
      '| before the rounds, each in its own process | rows/s | CPU seconds | peak RSS (MB) |',
      '|---|---|---|---|',
      `| generate the rows only (PostgreSQL's COPY text parsed by Tideway's PostgreSQL source, in batches as a sink receives them) | ${gen.rowsPerSec} | ${gen.cpu.toFixed(2)} | ${gen.rssMB} |`,
      `| Tideway LocalFile sink, orc (rows generated on the fly) | ${tw.rowsPerSec} | ${tw.cpu.toFixed(2)} | ${tw.rssMB} |`,
      `| Tideway ORC writer alone (the two lines above subtracted) | ${tw.secs > gen.secs ? Math.round(ROWS / (tw.secs - gen.secs)) : 'drift'} | ${(tw.cpu - gen.cpu).toFixed(2)} | - |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
