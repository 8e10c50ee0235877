import { join } from 'node:path';
import { ClusterProcesses, sequenceJobConfig, startRedis, type RedisServer, type SequenceReport } from '@tideway/launchers';
import { sleep } from '@tideway/common';
import { JobClient } from '@tideway/client';
import { JobProbe, allRunning, isEnded, type JobSample } from './job-probe.js';
import { killOne, type KillRecord } from './kill-step.js';
import { SeededRandom } from './random.js';
import { runPassed } from './chaos-report.js';
import {
  icebergSink,
  jdbcSink,
  kafkaSequenceSource,
  kafkaSink,
  localFileSink,
  type ChaosSink,
  type ChaosSinkKind,
  type ChaosSourceKind,
  type JdbcLogin,
} from './sinks.js';

/** A chaos run's settings, checked by the command. */
export interface ChaosOptions {
  coordinators: number;
  workers: number;
  kills: number;
  seed: number;
  keys: number;
  /** Rows per key; by default enough for the kills to fit (see rowsPerKeyFor). */
  rowsPerKey?: number;
  /** Rows per second per reader (the job has two readers). */
  rate: number;
  /**
   * Where the rows come from: the Sequence source, or (kafka) a topic filled with the same rows
   * first, read by the Kafka source at `rate` (read_limit.rows_per_second) with its offsets in
   * the checkpoints.
   */
  source: ChaosSourceKind;
  jdbc?: JdbcLogin;
  /** host:port of the Kafka broker of `--sink kafka` or `--source kafka` (the user's own). */
  kafkaBootstrap?: string;
  /** The hadoop catalog's folder of `--sink iceberg` (absolute; default: `warehouse` in the run's folder). */
  icebergWarehouse?: string;
  /** Node arguments that start the Tideway CLI, for the cluster processes. */
  cli: string[];
  cwd?: string;
  /** The engine's default lease and heartbeat timings (the run keeps them). */
  leaseTtlMs: number;
  /** One line per event, for stderr. */
  progress(line: string): void;
  signal: AbortSignal;
}

/** What one run found. */
export interface ChaosRunReport {
  source: ChaosSourceKind;
  sink: ChaosSinkKind;
  where: string;
  seed: number;
  jobId: string;
  keys: number;
  rowsPerKey: number;
  /** The job's final status (or the last one seen when it did not end). */
  status: string;
  rows: SequenceReport;
  killsAsked: number;
  kills: KillRecord[];
  /** Why the run is not a pass, beyond lost and duplicated rows (a stuck job, kills left undone). */
  problems: string[];
  /** The folder of the run (configs, logs, checkpoints, LocalFile output), kept when the run failed. */
  dir?: string;
  seconds: number;
}

const PARALLELISM = 2;
/** Seconds a kill takes on average, pause, recovery, restart and settling included (to size the job). */
const SECONDS_PER_KILL = 14;
const LEAD_SECONDS = 15;

/** Rows per key that keep the job running long enough for `kills` kills at `rate` rows/s per reader. */
export function rowsPerKeyFor(kills: number, keys: number, rate: number): number {
  return Math.ceil(((LEAD_SECONDS + kills * SECONDS_PER_KILL) * rate * PARALLELISM) / keys);
}

async function until<T>(what: string, timeoutMs: number, signal: AbortSignal, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await sleep(250, signal);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`);
}

/**
 * Starts the cluster (a Redis with AOF as state store and lease node, the coordinators, the
 * resource manager, the workers), runs the checkpointed Sequence job into `sinkKind`, kills or
 * pauses a random process `kills` times, one at a time (each killed process started again,
 * each paused one resumed, and the cluster settled with a checkpoint completed, before the
 * next), waits for the job to end and checks every row. Everything started is stopped.
 */
export async function runChaos(sinkKind: ChaosSinkKind, o: ChaosOptions): Promise<ChaosRunReport> {
  const started = Date.now();
  const random = new SeededRandom(o.seed);
  const rowsPerKey = o.rowsPerKey ?? rowsPerKeyFor(o.kills, o.keys, o.rate);
  let redis: RedisServer | undefined;
  let cluster: ClusterProcesses | undefined;
  let sink: ChaosSink | undefined;
  let client: JobClient | undefined;
  let probe: JobProbe | undefined;
  let keep = false;
  try {
    o.progress(
      `chaos (${sinkKind}): starting Redis, ${o.coordinators} coordinators, the resource manager and ${o.workers} workers (seed ${o.seed})`,
    );
    redis = await startRedis({ appendOnly: true });
    cluster = await ClusterProcesses.create({
      cli: o.cli,
      cwd: o.cwd,
      workers: Array.from({ length: o.workers }, () => ({ attributes: {} })),
      slotNum: PARALLELISM,
      jobScheduleStrategy: 'WAIT',
      coordinators: o.coordinators,
      ha: { stateAddress: `127.0.0.1:${redis.port}` },
    });
    const c = cluster;
    await c.startAll();
    const settled = () => settle(c, o.workers, o.signal);
    await settled();
    sink =
      sinkKind === 'localfile'
        ? localFileSink(c.dir)
        : sinkKind === 'kafka'
          ? await kafkaSink(o.kafkaBootstrap!, `tideway-chaos-${o.seed}-${Date.now()}`)
          : sinkKind === 'iceberg'
            ? icebergSink(o.icebergWarehouse ?? join(c.dir, 'warehouse'), `seq_${o.seed}_${Date.now()}`)
            : await jdbcSink(`chaos_${o.seed}_${Date.now()}`, o.jdbc);
    const sourceBlock =
      o.source === 'kafka'
        ? await kafkaSequenceSource(o.kafkaBootstrap!, `tideway-chaos-in-${o.seed}-${Date.now()}`, o.keys, rowsPerKey, (line) =>
            o.progress(line),
          )
        : undefined;
    const config = sequenceJobConfig({
      mode: 'BATCH',
      keys: o.keys,
      rowsPerKey,
      rowsPerSecond: o.rate,
      parallelism: PARALLELISM,
      checkpointIntervalMs: 1000,
      env: sourceBlock ? `job.name = "chaos"\n  read_limit.rows_per_second = ${o.rate}` : 'job.name = "chaos"',
      sourceBlock,
      sink: sink.spec,
    });
    client = new JobClient(c.coordinatorAddresses);
    const jobId = (await client.submit({ configText: config, configFile: 'chaos.conf', format: 'hocon' })).jobId;
    const submittedAt = Date.now();
    const up = (address: string) => {
      const name = c.nameOf(address);
      return name !== undefined && c.isRunning(name) && !c.isPaused(name);
    };
    const p = (probe = new JobProbe(c.coordinatorAddresses, jobId, up));
    o.progress(
      `chaos (${sinkKind}): job ${jobId} submitted: ${o.keys} keys x ${rowsPerKey} rows at ${o.rate * PARALLELISM} rows/s from ${o.source === 'kafka' ? 'a Kafka topic' : 'the Sequence source'} into ${sink.where}`,
    );
    let last = await until('the job to run and complete a checkpoint', 120_000, o.signal, async () => {
      const s = await p.sample();
      return s && (isEnded(s.status) || (allRunning(s) && s.completedCheckpoints > 0)) ? s : undefined;
    });

    const kills: KillRecord[] = [];
    const problems: string[] = [];
    /** The cluster did not settle after a kill: the kills stopped there. */
    let unsettled = false;
    const expected = o.keys * rowsPerKey;
    for (let n = 1; n <= o.kills && !isEnded(last.status); n++) {
      const k = await killOne(
        { cluster: c, probe: p, random, leaseTtlMs: o.leaseTtlMs, recoveryTimeoutMs: 120_000, submittedAt, signal: o.signal },
        n,
        last,
      );
      kills.push(k);
      o.progress(`chaos (${sinkKind}): ${describeKill(k, o.kills)}`);
      // A stuck job is a failed run, but the killed process is started again and the kills go on:
      // whether the rows still arrive exactly once, and how often it happens, are worth knowing.
      if (k.outcome === 'stuck')
        problems.push(
          `the job was stuck after kill ${n} (${k.signal} of ${k.target}, the ${k.kind}): rows did not move again within 120 s`,
        );
      if (k.signal === 'SIGKILL') await c.startProcess(k.target);
      const checkpoints = k.outcome === 'recovered' ? ((await p.sample())?.completedCheckpoints ?? 0) : 0;
      try {
        last = await settled().then(() =>
          until(`the job to run and checkpoint again after kill ${n}`, 120_000, o.signal, async () => {
            const s = await p.sample();
            return s && (isEnded(s.status) || (allRunning(s) && s.completedCheckpoints > checkpoints)) ? s : undefined;
          }),
        );
      } catch (err) {
        if (o.signal.aborted) throw err;
        problems.push((err as Error).message);
        unsettled = true;
        break;
      }
      await sleep(gapMs(random, last, expected, o, kills, n, submittedAt), o.signal);
    }
    if (kills.length < o.kills && !unsettled) {
      problems.push(`the job ended after ${kills.length} of ${o.kills} kills: give it more rows (--rows-per-key) or a lower --rate`);
    }

    // A cluster that did not settle gets a minute more, not the time the job's rows would take.
    const end = await until('the job to end', unsettled ? 60_000 : endTimeoutMs(last, expected, o), o.signal, async () => {
      const s = await p.sample();
      return s && isEnded(s.status) ? s : undefined;
    }).catch(async (err: Error) => {
      if (o.signal.aborted) throw err;
      problems.push(err.message);
      return (await p.sample()) ?? last;
    });
    const rows = await sink.check(o.keys, rowsPerKey);
    const report: ChaosRunReport = {
      source: o.source,
      sink: sinkKind,
      where: sink.where,
      seed: o.seed,
      jobId,
      keys: o.keys,
      rowsPerKey,
      status: end.status,
      rows,
      killsAsked: o.kills,
      kills,
      problems,
      dir: c.dir,
      seconds: (Date.now() - started) / 1000,
    };
    keep = !runPassed(report);
    if (!keep) delete report.dir;
    return report;
  } catch (err) {
    // A run that could not go on (a cluster that did not start, a job that was refused) keeps
    // its logs for a look; an interrupted one leaves nothing behind.
    if (o.signal.aborted || !cluster) throw err;
    keep = true;
    throw new Error(`${(err as Error).message} (logs kept in ${cluster.dir}/logs)`, { cause: err });
  } finally {
    probe?.close();
    client?.close();
    await cluster?.stop({ keepDir: keep });
    await redis?.stop();
    await sink?.close();
  }
}

/** Waits until every process runs, the resource manager knows every worker and a coordinator leads. */
async function settle(c: ClusterProcesses, workers: number, signal: AbortSignal): Promise<void> {
  await until('every worker to register and a leader', 120_000, signal, async () => {
    const registered = await c.metric('resource-manager', 'tideway_workers', 2000);
    return registered === workers && (await c.leaderName()) !== undefined ? true : undefined;
  });
}

/**
 * The pause before the next kill: what is left of the job's rows, shared among the kills left
 * (less the time a kill has taken so far), so the kills spread over the whole job; 0.5 to 30 s.
 */
function gapMs(
  random: SeededRandom,
  s: JobSample,
  expected: number,
  o: ChaosOptions,
  kills: KillRecord[],
  n: number,
  submittedAt: number,
): number {
  const jitter = random.between(0.7, 1.3);
  const left = o.kills - n;
  if (left <= 0) return 0;
  const remainingSeconds = Math.max(0, expected - s.rows) / (o.rate * PARALLELISM);
  const perKill = (Date.now() - submittedAt) / 1000 / kills.length;
  const spent = Math.min(perKill, SECONDS_PER_KILL);
  const slot = (remainingSeconds * 0.85) / left - spent;
  return Math.round(Math.min(30, Math.max(0.5, slot * jitter)) * 1000);
}

/** How long the job may take to end after the last kill: its rows left at the rate, three times, plus two minutes. */
function endTimeoutMs(s: JobSample, expected: number, o: ChaosOptions): number {
  return (Math.max(0, expected - s.rows) / (o.rate * PARALLELISM)) * 3000 + 120_000;
}

/** One progress line for a kill. */
export function describeKill(k: KillRecord, of: number): string {
  const what = k.signal === 'SIGKILL' ? `SIGKILL ${k.target}` : `SIGSTOP ${k.target} for ${k.pauseSeconds!.toFixed(1)} s`;
  const result =
    k.outcome === 'recovered'
      ? `rows moving again after ${k.recoverySeconds!.toFixed(1)} s`
      : k.outcome === 'job ended'
        ? 'the job ended meanwhile'
        : 'rows did not move again (stuck)';
  const leader = k.leaderAfter && k.leaderAfter !== k.leaderBefore ? `, leader ${k.leaderBefore ?? '?'} -> ${k.leaderAfter}` : '';
  return `kill ${k.n}/${of} at ${k.atSeconds.toFixed(1)} s: ${what} (${k.kind}): ${result}${leader}, attempt ${k.attemptBefore} -> ${k.attemptAfter ?? '?'}`;
}
