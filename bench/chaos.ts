/**
 * `node --import tsx --conditions=source bench/chaos.ts`: issue 10's chaos proof, once per
 * sink: `tideway chaos --kills 50 --sink both --coordinators 3 --json` (a Redis, 3
 * coordinators, the resource manager, 3 workers, engine defaults), then a Markdown section for
 * bench/RESULTS.md: rows lost and duplicated, the job's status, and the seconds until rows moved
 * again by kind of process killed (median, p90). The command's progress goes to stderr.
 *
 * env: BENCH_CHAOS_KILLS (default 50), BENCH_CHAOS_SEED (default: the command picks one),
 * BENCH_CHAOS_SINK (the command's --sink: both, the default, or localfile, jdbc, iceberg, kafka),
 * BENCH_CHAOS_SOURCE (sequence, the default, or kafka). With kafka on either side the bench
 * starts a private KRaft broker (libs/testing, Apache Kafka from scripts/ensure-kafka.sh) and
 * gives its address to the command: BENCH_CHAOS_SOURCE=kafka BENCH_CHAOS_SINK=kafka is issue
 * 34's Kafka -> Kafka EXACTLY_ONCE check.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import type { ChaosRunReport, RecoveryStats } from '@tideway/cli';
import { startKafka } from '@tideway/testing';
import { machineLine } from './machine.js';

const KILLS = process.env.BENCH_CHAOS_KILLS ?? '50';
const SINK = process.env.BENCH_CHAOS_SINK ?? 'both';
if (!['both', 'localfile', 'jdbc', 'iceberg', 'kafka'].includes(SINK))
  throw new Error(`BENCH_CHAOS_SINK=${SINK} is not supported: use both, localfile, jdbc, iceberg or kafka`);
const SOURCE = process.env.BENCH_CHAOS_SOURCE ?? 'sequence';
if (!['sequence', 'kafka'].includes(SOURCE)) throw new Error(`BENCH_CHAOS_SOURCE=${SOURCE} is not supported: use sequence or kafka`);
const broker = SINK === 'kafka' || SOURCE === 'kafka' ? await startKafka({ heapMb: 512 }) : undefined;
const root = fileURLToPath(new URL('..', import.meta.url));

/** One run of the --json report: the command's own report, with its pass and recovery statistics. */
type Run = ChaosRunReport & { passed: boolean; recovery: RecoveryStats[] };

const machine = machineLine({ postgres: true, load: true });
const args = [
  'chaos',
  '--kills',
  KILLS,
  '--sink',
  SINK,
  '--source',
  SOURCE,
  ...(broker ? ['--kafka-bootstrap', broker.bootstrap] : []),
  '--coordinators',
  '3',
  '--json',
  ...(process.env.BENCH_CHAOS_SEED ? ['--seed', process.env.BENCH_CHAOS_SEED] : []),
];
const started = new Date();
const child = spawn(process.execPath, [...cliNodeArgs(), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
let stdout = '';
child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
await broker?.stop();
if (!stdout.trim().startsWith('{')) throw new Error(`tideway chaos ended with exit code ${code} and no report`);
const report = JSON.parse(stdout) as { passed: boolean; runs: Run[] };

const s = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(1));
const lines = [
  `## tideway chaos: ${KILLS} kills per sink${SOURCE === 'kafka' ? ', rows from a Kafka topic' : ''} (issue ${SOURCE === 'kafka' || SINK === 'kafka' ? '34' : '10'}, bench/chaos.ts)`,
  '',
  `${started.toISOString()}; \`tideway ${args.join(' ')}\` (exit code ${code}). ${machine}`,
  '',
  `A Redis (AOF, fsync always) as state store and lease node, 3 coordinators, the resource manager and 3 workers (2 slots each), each a \`tideway cluster start\` process with the engine defaults (lease 5 s, heartbeat 3 s / 30 s, job.retry.times 3 and 3 s apart); ${SOURCE === 'kafka' ? 'a BATCH job reading a Kafka topic (4 partitions) filled first with the Sequence rows (8 keys), 2 readers paced at 250 rows/s each by read_limit.rows_per_second, checkpoint.interval 1 s,' : 'a BATCH Sequence job (8 keys, 2 readers at 250 rows/s each, checkpoint.interval 1 s)'} into the sink${SINK === 'kafka' ? ' (EXACTLY_ONCE, checked by a read_committed consumer)' : ''}; one process at a time SIGKILLed (started again after) or SIGSTOPped for 1.2-2 leases, chosen by kind (leader 3, job worker 3, follower 1, idle worker 1, resource manager 1).`,
  '',
  '| sink | seed | expected | seen | lost | duplicated | job status | kills | run |',
  '|---|---|---|---|---|---|---|---|---|',
  ...report.runs.map(
    (r) =>
      `| ${r.sink} | ${r.seed} | ${r.rows.expected} | ${r.rows.seen} | ${r.rows.lost} | ${r.rows.duplicated} | ${r.status} | ${r.kills.length} of ${r.killsAsked} | ${Math.round(r.seconds)} s |`,
  ),
  '',
  ...report.runs.flatMap((r) => r.problems.map((p) => `- ${r.sink}: ${p}`)),
  '',
  "Seconds from the kill until rows moved again (a later attempt running and its rows growing; for the leader, the job's rows growing under the new leader; for a pause, the pause included when the process was not replaced):",
  '',
  '| sink | killed | kills | median s | p90 s | max s |',
  '|---|---|---|---|---|---|',
  ...report.runs.flatMap((r) =>
    r.recovery.map(
      (g) => `| ${r.sink} | ${g.group} | ${g.recovered} of ${g.kills} | ${s(g.medianSeconds)} | ${s(g.p90Seconds)} | ${s(g.maxSeconds)} |`,
    ),
  ),
  '',
];
process.stdout.write(lines.join('\n'));
process.exitCode = code ?? 1;
