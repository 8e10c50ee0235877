/**
 * `pnpm bench:soak [--minutes 60] [--batch-per-second 2] [--streams 3] [--write]`: issue 36's
 * soak (bench/soak-run.ts) on an HA cluster of real processes: batch jobs submitted continuously,
 * long streaming jobs cancelled or stopped with a savepoint and restored at random, one SIGKILL
 * of the leader half-way. Prints progress to stderr and a Markdown section (stuck jobs, leaked
 * slots, rows lost or doubled, memory of every process over time, the state store's size);
 * `--write` appends it to bench/RESULTS.md.
 *
 * Memory is judged as the issue asks: each process's resident memory at the end against its
 * value after the first 10 minutes (the first sixth of a shorter run), within 10 %.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineLine } from './machine.js';
import { runSoak, type SoakReport, type SoakSample } from './soak-run.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    'batch-per-second': { type: 'string', default: '2' },
    streams: { type: 'string', default: '3' },
    'history-expire-minutes': { type: 'string', default: '5' },
    write: { type: 'boolean', default: false },
  },
});
const number = (name: keyof typeof values, min: number): number => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < min) {
    process.stderr.write(`--${name} must be a number of at least ${min} (got ${String(values[name])})\n`);
    process.exit(2);
  }
  return n;
};
const minutes = number('minutes', 1);
const batchPerSecond = number('batch-per-second', 0.1);
const streams = number('streams', 1);
const historyExpireMinutes = number('history-expire-minutes', 1);

const machine = machineLine({ load: true });
const startedAt = new Date();
const dir = mkdtempSync(join(tmpdir(), 'tideway-soak-bench-'));
let report: SoakReport;
try {
  report = await runSoak({
    minutes,
    batchPerSecond,
    streams,
    historyExpireMinutes,
    sampleEverySec: minutes >= 30 ? 60 : 10,
    dir,
    progress: (l) => process.stderr.write(`${l}\n`),
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** RSS after the warm-up (10 minutes, or a sixth of a shorter run) and at the end, per process. */
function memoryRows(r: SoakReport): string[] {
  const warm = Math.min(600, (minutes * 60) / 6);
  const after = r.samples.find((s) => s.t >= warm) ?? r.samples[0];
  const end = r.samples.at(-1)!;
  return Object.keys(end.rssMb).map((name) => {
    const a = after?.rssMb[name as keyof typeof after.rssMb];
    const e = end.rssMb[name as keyof typeof end.rssMb];
    const change = a && e ? ((e - a) / a) * 100 : undefined;
    const verdict = change === undefined ? '-' : Math.abs(change) <= 10 ? 'flat (within 10 %)' : change > 0 ? 'grew' : 'shrank';
    return `| ${name} | ${a ?? '-'} | ${e ?? '-'} | ${change === undefined ? '-' : `${change.toFixed(1)} %`} | ${verdict} |`;
  });
}

/** Each process's RSS at about ten points of the run (a plateau shows settling, a steady climb a leak). */
function memoryTimeline(r: SoakReport): string[] {
  const names = Object.keys(r.samples.at(-1)?.rssMb ?? {}) as Array<keyof SoakSample['rssMb']>;
  const step = Math.max(1, Math.floor(r.samples.length / 10));
  const picked = r.samples.filter((_, i) => i % step === 0 || i === r.samples.length - 1);
  return [
    `| RSS, MB, at | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---|').join('')}`,
    ...picked.map((smp) => `| ${smp.t} s | ${names.map((n) => smp.rssMb[n] ?? '-').join(' | ')} |`),
  ];
}

const peakState = Math.max(...report.samples.map((s) => s.stateBytes));
const text = [
  '',
  `## Soak: ${minutes} minutes of jobs on an HA cluster (issue 36, bench/soak.ts, ${startedAt.toISOString().slice(0, 10)})`,
  '',
  `${startedAt.toISOString()}; \`pnpm bench:soak --minutes ${minutes} --batch-per-second ${batchPerSecond} --streams ${streams} --history-expire-minutes ${historyExpireMinutes}\`. ${machine}`,
  '',
  'A Redis (AOF) state store and lease (5 s, the default), 2 coordinators, the resource manager and 3 workers (6 slots each), real processes; BATCH Sequence jobs (2 keys x 100 rows into exactly-once LocalFile) submitted continuously; streaming Sequence jobs (4 keys, 2 readers at 25 rows/s, checkpoint every 2 s) cancelled and replaced, or stopped with a savepoint and restored, one every 20 s; the leader SIGKILLed half-way and started again 5 s later.',
  '',
  '| figure | value |',
  '|---|---|',
  `| run | ${report.seconds} s |`,
  `| batch jobs submitted / finished | ${report.batchSubmitted} / ${report.batchFinished} |`,
  `| streaming jobs started / cancelled / savepoint and restore | ${report.streamsStarted} / ${report.cancels} / ${report.savepointRestores} |`,
  `| leader fail-overs | ${report.failovers} |`,
  `| jobs stuck past their expected time (must be 0) | ${report.stuck.length} |`,
  `| slots leaked at the end (must be 0) | ${report.leakedSlots} of ${report.totalSlots} |`,
  `| rows lost / duplicated (must be 0) | ${report.lost} / ${report.duplicated} |`,
  `| ended jobs kept past the history expiry (must be 0) | ${report.keptPastExpiry} |`,
  `| state store: peak / end | ${(peakState / 2 ** 20).toFixed(1)} MB / ${(report.samples.at(-1)!.stateBytes / 2 ** 20).toFixed(1)} MB in ${report.samples.at(-1)!.stateKeys} keys |`,
  '',
  '| process | RSS after warm-up, MB | RSS at the end, MB | change | |',
  '|---|---|---|---|---|',
  ...memoryRows(report),
  '',
  ...memoryTimeline(report),
  '',
  ...report.stuck.map((s) => `- stuck: ${s}`),
  ...report.problems.map((p) => `- problem: ${p}`),
  '',
].join('\n');
process.stdout.write(text);
if (values.write) appendFileSync(join(fileURLToPath(new URL('.', import.meta.url)), 'RESULTS.md'), text);
const failed = report.stuck.length > 0 || report.leakedSlots > 0 || report.lost + report.duplicated > 0 || report.problems.length > 0;
process.exit(failed ? 1 : 0);
