/**
 * `pnpm bench:seatunnel`: the same job configs (bench/seatunnel/*.conf, one HOCON text run
 * unchanged by both, its `${...}` filled by `-i key=value` on both command lines) on Tideway and
 * on Apache SeaTunnel itself (the release of decision 0045), alternating engines within each
 * round (the first engine changes every round), medians and spread.
 *
 * Jobs (`--jobs` takes a comma-separated subset of the names):
 * - fake-p1, fake-p2: FakeSource (--fake-rows in all, 8,000,000) into Console without printing;
 * - jdbc-p1, jdbc-p2: Jdbc PostgreSQL -> PostgreSQL of shared/bench's `orders` (--rows, 2,000,000)
 *   on a private PostgreSQL, beside the psql `\copy` pipe (the machine's limit);
 * - text-write, parquet-write: FakeSource (--rows) into LocalFile; text-read, parquet-read: those
 *   files (written once by Tideway before the rounds) into Console without printing;
 * - kafka: Kafka -> Kafka (json) of --rows records on a private KRaft broker (scripts/ensure-kafka.sh),
 *   the source topic filled once by Tideway before the rounds;
 * - recovery: the jdbc job (into a table without a key) on a cluster of one coordinator (SeaTunnel:
 *   master) and two workers, each engine with its defaults; once rows flow, the busy worker is
 *   SIGKILLed and the seconds until rows move again are taken;
 * - pg-cdc: Postgres-CDC -> Jdbc PostgreSQL (bench/seatunnel/pg-cdc-pg.conf), on SeaTunnel 2.3.4, a
 *   whole install of its own (connector-cdc-postgres has no 2.3.8 release: decision 0045): the
 *   snapshot of --rows orders (to every row in the sink; start-up to the first), then --changes
 *   changes (100,000) in one transaction and the seconds from its commit until the sink's count and
 *   checksum match the source's; each run on a new slot, ended by SIGTERM.
 * Per job and engine: the whole command's wall time and rows/s over it; peak RSS of all the
 * engine's processes together (the sum of each process's VmHWM, read from /proc while it runs:
 * Tideway's worker threads are in its one process, SeaTunnel's local mode is one JVM); start-up:
 * command start to the first row written (the target table or file has bytes), or, where the sink
 * drops rows, the wall time of the same job with one row.
 *
 * Both engines: TZ=UTC, C.UTF-8, the same parallelism, checkpoint.interval (10 s) and
 * checkpoint.timeout (600 s; SeaTunnel ships 10 s, which its FakeSource outlasts on a busy machine). SeaTunnel's JVM heap: -Xms2g -Xmx2g (--heap), the heap of its distribution's
 * jvm_options. `--rounds N` (default 5); `--write` appends the tables to bench/RESULTS.md.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, appendFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin } from '@platformatic/kafka';
import pg from 'pg';
import {
  ClusterProcesses,
  SEATUNNEL_CDC_VERSION,
  SEATUNNEL_VERSION,
  SeaTunnelCluster,
  ensureSeaTunnel,
  seaTunnelLocalCommand,
  kafkaMissing,
  startKafka,
  startPostgres,
  type TestDatabaseServer,
} from '@tideway/testing';
import { builtCli, machineLine, selectJobs } from './machine.js';
import { loadOrders, median, pgRun, psqlCopyPipe, psqlEnv, repo } from './orders-servers.js';

const JOBS = [
  'fake-p1',
  'fake-p2',
  'jdbc-p1',
  'jdbc-p2',
  'text-write',
  'text-read',
  'parquet-write',
  'parquet-read',
  'kafka',
  'recovery',
  'pg-cdc',
] as const;
type JobName = (typeof JOBS)[number];

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: process.env.BENCH_ROUNDS ?? '5' },
    jobs: { type: 'string', default: JOBS.join(',') },
    rows: { type: 'string', default: '2000000' },
    changes: { type: 'string', default: '100000' },
    'fake-rows': { type: 'string', default: process.env.BENCH_ROWS ?? '8000000' },
    heap: { type: 'string', default: process.env.BENCH_SEATUNNEL_HEAP ?? '2g' },
    write: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(opts.rounds);
const ROWS = Number(opts.rows);
const CHANGES = Number(opts.changes);
const FAKE_ROWS = Number(opts['fake-rows']);
const HEAP = opts.heap;
const CHECKPOINT_MS = 10_000;
/** SeaTunnel ships a 10 s checkpoint timeout, which its FakeSource (a split made in one poll) outlasts on a busy machine. */
const CHECKPOINT_TIMEOUT_MS = 600_000;
for (const [name, n] of [
  ['--rounds', ROUNDS],
  ['--rows', ROWS],
  ['--changes', CHANGES],
  ['--fake-rows', FAKE_ROWS],
] as const) {
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:seatunnel: ${name} takes a whole number above 0`);
    process.exit(2);
  }
}
const wanted = selectJobs<JobName>('bench:seatunnel', opts.jobs, JOBS);
/** This checkout's CLI, from its build (a stale build ends the bench: see builtCli). */
const tidewayCli = builtCli('bench:seatunnel');

type Engine = 'Tideway' | 'SeaTunnel';
type Tool = Engine | 'psql pipe';
type Vars = Record<string, string>;

/** One run: wall seconds, seconds to the first row written (or undefined), peak RSS of the process tree. */
interface Run {
  seconds: number;
  firstRow?: number;
  peakRssMb: number;
  output: string;
}

const confPath = (name: string) => join(repo, 'bench', 'seatunnel', `${name}.conf`);
const engineEnv = { TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };

/** Pids of `root` and every live descendant. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(e)]);
    } catch {
      // exited meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/** A process's peak resident set so far (VmHWM), in MB; undefined once it is gone. */
function peakRss(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Follows the peak RSS of processes (each one's VmHWM, summed) while they run. */
class RssWatch {
  private readonly peaks = new Map<number, number>();
  private ticks = 0;
  constructor(private readonly roots: () => number[]) {}
  sample(): void {
    const rescan = this.ticks++ % 5 === 0;
    const pids = rescan ? this.roots().flatMap(processTree) : [...this.peaks.keys()];
    for (const pid of pids) {
      const mb = peakRss(pid);
      if (mb !== undefined) this.peaks.set(pid, Math.max(mb, this.peaks.get(pid) ?? 0));
    }
  }
  get totalMb(): number {
    return [...this.peaks.values()].reduce((a, b) => a + b, 0);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How often a run's process tree is sampled for its RSS, and its target looked at for a first row. */
const RSS_EVERY_MS = 100;
const FIRST_ROW_EVERY_MS = 20;

/** A command started with its output kept (the last `keepChars` of it) and its process tree's RSS followed. */
interface Watched {
  readonly started: number;
  readonly closed: Promise<void>;
  /** The exit code; undefined while it runs. */
  code(): number | null | undefined;
  output(): string;
  readonly rss: RssWatch;
  readonly child: ReturnType<typeof spawn>;
}

function spawnWatched(command: string, args: string[], env: NodeJS.ProcessEnv, keepChars = Number.POSITIVE_INFINITY): Watched {
  const started = performance.now();
  const child = spawn(command, args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (s: string) => {
    output += s;
    if (output.length > keepChars) output = output.slice(-keepChars);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  let code: number | null | undefined;
  const closed = new Promise<void>((resolve) =>
    child.once('close', (c) => {
      code = c;
      resolve();
    }),
  );
  const rss = new RssWatch(() => (child.pid === undefined ? [] : [child.pid]));
  return { started, closed, code: () => code, output: () => output, rss, child };
}

/**
 * Runs a command to its end: wall time, the time at which `firstRow` first answered true (polled
 * every 20 ms), the peak RSS of its process tree (sampled every 100 ms). Throws when it exits non-zero.
 */
async function measure(
  label: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  firstRow?: () => Promise<boolean>,
): Promise<Run> {
  const run = spawnWatched(command, args, env);
  let firstRowAt: number | undefined;
  let sampledAt = Number.NEGATIVE_INFINITY;
  while (run.code() === undefined) {
    const now = performance.now();
    if (now - sampledAt >= RSS_EVERY_MS) {
      run.rss.sample();
      sampledAt = now;
    }
    if (firstRow && firstRowAt === undefined && (await firstRow())) firstRowAt = (performance.now() - run.started) / 1000;
    // Until the first row is seen, look often: a start-up of half a second measured in 100 ms
    // steps was up to 20% late (both engines are looked at the same way).
    await Promise.race([run.closed, sleep(firstRow && firstRowAt === undefined ? FIRST_ROW_EVERY_MS : RSS_EVERY_MS)]);
  }
  const seconds = (performance.now() - run.started) / 1000;
  if (run.code() !== 0) throw new Error(`${label} exited ${run.code()}:\n${run.output().slice(-4000)}`);
  return { seconds, firstRow: firstRowAt, peakRssMb: run.rss.totalMb, output: run.output() };
}

const toVarArgs = (vars: Vars) => Object.entries(vars).flatMap(([k, v]) => ['-i', `${k}=${v}`]);

/** The command running a job config on one engine in local mode (`tideway run` / `seatunnel.sh -m local`'s java). */
async function engineCommand(
  engine: Engine,
  home: string,
  conf: string,
  vars: Vars,
): Promise<{ label: string; command: string; args: string[]; env: NodeJS.ProcessEnv; cleanup: () => void }> {
  const all = { checkpoint_interval: String(CHECKPOINT_MS), checkpoint_timeout: String(CHECKPOINT_TIMEOUT_MS), ...vars };
  if (engine === 'Tideway')
    return {
      label: `tideway run ${conf}`,
      command: process.execPath,
      args: [...tidewayCli, 'run', '-c', conf, ...toVarArgs(all)],
      env: { ...process.env, ...engineEnv },
      cleanup: () => {},
    };
  const cmd = await seaTunnelLocalCommand(home, conf, { heap: HEAP, variables: all });
  return { label: `seatunnel ${conf}`, command: 'java', args: cmd.args, env: cmd.env, cleanup: cmd.cleanup };
}

/** One job config on one engine in local mode, run to its end. */
async function runEngine(engine: Engine, home: string, conf: string, vars: Vars, firstRow?: () => Promise<boolean>): Promise<Run> {
  const cmd = await engineCommand(engine, home, conf, vars);
  try {
    return await measure(cmd.label, cmd.command, cmd.args, cmd.env, firstRow);
  } finally {
    cmd.cleanup();
  }
}

/** The row count an engine reports at its end ("Total Read Count : N", printed by both). */
function readCount(output: string): number | undefined {
  const m = /Total Read Count\s*:\s*(\d+)/.exec(output);
  return m ? Number(m[1]) : undefined;
}

/** Bytes of the files under a folder (0 when it is missing). */
function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    try {
      total += statSync(join(e.parentPath, e.name)).size;
    } catch {
      // moved meanwhile (a commit renames the temporary files)
    }
  }
  return total;
}

/** Rows of the text files under a folder (both engines put the newline between rows, none after the last). */
function linesUnder(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const buf = readFileSync(join(e.parentPath, e.name));
    if (buf.length === 0) continue;
    n += buf.at(-1) === 10 ? 0 : 1;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  }
  return n;
}

interface Row {
  job: string;
  tool: Tool;
  rows: number;
  runs: Run[];
  /** Start-up runs (one-row jobs) where the sink drops rows; else the runs' first-row times. */
  startup: number[];
}

const results: Row[] = [];
const notes: string[] = [];

function record(job: string, tool: Tool, rows: number): Row {
  let r = results.find((x) => x.job === job && x.tool === tool);
  if (!r) {
    r = { job, tool, rows, runs: [], startup: [] };
    results.push(r);
  }
  return r;
}

const orderOf = (round: number): Engine[] => (round % 2 === 0 ? ['Tideway', 'SeaTunnel'] : ['SeaTunnel', 'Tideway']);

function progress(job: string, round: number, tool: Tool, run: Run): void {
  const first = run.firstRow === undefined ? '' : `, first row at ${run.firstRow.toFixed(1)} s`;
  console.error(`${job}, round ${round + 1}/${ROUNDS}, ${tool}: ${run.seconds.toFixed(1)} s${first}, ${Math.round(run.peakRssMb)} MB`);
}

async function fakeJobs(home: string): Promise<void> {
  for (const p of [1, 2]) {
    const name = `fake-p${p}` as JobName;
    if (!wanted(name)) continue;
    const job = `FakeSource -> Console (dropped), p${p}`;
    for (let round = 0; round < ROUNDS; round++) {
      for (const engine of orderOf(round)) {
        const r = record(job, engine, FAKE_ROWS);
        r.startup.push((await runEngine(engine, home, confPath('fake-console'), { parallelism: String(p), row_num: '1' })).seconds);
        const run = await runEngine(engine, home, confPath('fake-console'), {
          parallelism: String(p),
          row_num: String(Math.ceil(FAKE_ROWS / p)),
        });
        r.runs.push(run);
        progress(job, round, engine, run);
      }
    }
  }
}

/** A pg client on one database of the server. */
async function pgClient(s: TestDatabaseServer, db: string): Promise<pg.Client> {
  const c = new pg.Client({ host: s.host, port: s.port, user: s.user, password: s.password, database: db });
  await c.connect();
  return c;
}

async function relationBytes(c: pg.Client, table: string): Promise<number> {
  const res = await c.query<{ n: string }>({ text: 'SELECT pg_relation_size($1::regclass)::text AS n', values: [table] });
  return Number(res.rows[0].n);
}

function jdbcVars(s: TestDatabaseServer, parallelism: number, sinkTable: string): Vars {
  return {
    parallelism: String(parallelism),
    source_url: `jdbc:postgresql://${s.host}:${s.port}/src`,
    source_table: 'src.public.orders',
    sink_url: s.jdbcUrl,
    sink_database: s.database,
    sink_table: sinkTable,
    user: s.user,
    password: s.password,
  };
}

async function jdbcJobs(home: string, s: TestDatabaseServer, target: pg.Client): Promise<void> {
  for (const p of [1, 2]) {
    const name = `jdbc-p${p}` as JobName;
    if (!wanted(name)) continue;
    const job = `Jdbc PostgreSQL -> PostgreSQL (COPY), p${p}`;
    const firstRow = async () => (await relationBytes(target, 'public.orders')) > 0;
    const check = async (tool: Tool) => {
      const n = Number((await target.query<{ n: string }>('SELECT count(*)::text AS n FROM orders')).rows[0].n);
      if (n !== ROWS) throw new Error(`${job}, ${tool}: the target has ${n} rows, not ${ROWS}`);
      await target.query('TRUNCATE orders');
      await target.query('CHECKPOINT');
    };
    for (let round = 0; round < ROUNDS; round++) {
      const tools: Tool[] = [...orderOf(round)];
      // The pipe only at parallelism 1 (it has none), in the middle so it shares the drift.
      if (p === 1) tools.splice(1, 0, 'psql pipe');
      for (const tool of tools) {
        const run =
          tool === 'psql pipe'
            ? await measure('psql pipe', 'bash', psqlCopyPipe('src', s.database), { ...process.env, ...psqlEnv(s), ...engineEnv }, firstRow)
            : await runEngine(tool, home, confPath('jdbc-pg-pg'), jdbcVars(s, p, 'public.orders'), firstRow);
        await check(tool);
        const r = record(job, tool, ROWS);
        r.runs.push(run);
        if (run.firstRow !== undefined) r.startup.push(run.firstRow);
        progress(job, round, tool, run);
      }
    }
  }
}

async function fileJobs(home: string, dir: string): Promise<void> {
  for (const format of ['text', 'parquet'] as const) {
    const writeName = `${format}-write` as JobName;
    const readName = `${format}-read` as JobName;
    if (wanted(writeName)) {
      const job = `FakeSource -> LocalFile ${format} (write), p1`;
      for (let round = 0; round < ROUNDS; round++) {
        for (const engine of orderOf(round)) {
          const out = join(dir, `write-${format}-${engine}-${round}`);
          const vars = {
            parallelism: '1',
            row_num: String(ROWS),
            path: join(out, 'data'),
            tmp_path: join(out, 'tmp'),
            file_format: format,
          };
          const run = await runEngine(engine, home, confPath('file-write'), vars, async () => bytesUnder(out) > 0);
          const written = format === 'text' ? linesUnder(join(out, 'data')) : ROWS;
          if (written !== ROWS) throw new Error(`${job}, ${engine}: the files hold ${written} rows, not ${ROWS}`);
          rmSync(out, { recursive: true, force: true });
          const r = record(job, engine, ROWS);
          r.runs.push(run);
          if (run.firstRow !== undefined) r.startup.push(run.firstRow);
          progress(job, round, engine, run);
        }
      }
    }
    if (wanted(readName)) {
      // The input, written once by Tideway: ROWS rows, and one row for the start-up runs.
      const input = (rows: number) => {
        const out = join(dir, `input-${format}-${rows}`);
        return {
          out,
          vars: { parallelism: '1', row_num: String(rows), path: join(out, 'data'), tmp_path: join(out, 'tmp'), file_format: format },
        };
      };
      for (const rows of [ROWS, 1]) await runEngine('Tideway', home, confPath('file-write'), input(rows).vars);
      const job = `LocalFile ${format} -> Console (dropped, read), p1`;
      for (let round = 0; round < ROUNDS; round++) {
        for (const engine of orderOf(round)) {
          const r = record(job, engine, ROWS);
          r.startup.push(
            (await runEngine(engine, home, confPath(`file-read-${format}`), { parallelism: '1', path: input(1).vars.path })).seconds,
          );
          const run = await runEngine(engine, home, confPath(`file-read-${format}`), { parallelism: '1', path: input(ROWS).vars.path });
          const n = readCount(run.output);
          if (n !== undefined && n !== ROWS) throw new Error(`${job}, ${engine}: read ${n} rows, not ${ROWS}`);
          r.runs.push(run);
          progress(job, round, engine, run);
        }
      }
      for (const rows of [ROWS, 1]) rmSync(input(rows).out, { recursive: true, force: true });
    }
  }
}

/** Bytes of a topic's log segments in a broker's data folder (its index files are preallocated: left out). */
function topicBytes(dataDir: string, topic: string): number {
  if (!existsSync(dataDir)) return 0;
  let total = 0;
  for (const d of readdirSync(dataDir)) {
    if (!d.startsWith(`${topic}-`) || !/^\d+$/.test(d.slice(topic.length + 1))) continue;
    for (const f of readdirSync(join(dataDir, d))) if (f.endsWith('.log')) total += statSync(join(dataDir, d, f)).size;
  }
  return total;
}

async function kafkaJob(home: string): Promise<void> {
  if (!wanted('kafka')) return;
  const missing = kafkaMissing();
  if (missing) {
    notes.push('', `Kafka -> Kafka did not run: ${missing}.`);
    return;
  }
  const cluster = await startKafka({ heapMb: 1024 });
  try {
    const bootstrap = cluster.bootstrap;
    const dataDir = join(cluster.brokers[0].dir, 'data');
    // Every topic made before the jobs (one partition each): Tideway's producer does not create
    // topics (allow.auto.create.topics false), SeaTunnel's does, and a job meeting a missing topic
    // would restart once and be timed with it.
    const admin = new Admin({ clientId: 'bench-seatunnel', bootstrapBrokers: [bootstrap] });
    try {
      const outs = Array.from({ length: ROUNDS }, (_, round) =>
        (['Tideway', 'SeaTunnel'] as const).map((e) => `bench-out-${e}-${round}`),
      ).flat();
      await admin.createTopics({ topics: ['bench-in', ...outs], partitions: 1, replicas: 1 });
    } finally {
      await admin.close();
    }
    await runEngine('Tideway', home, confPath('kafka-fill'), { row_num: String(ROWS), bootstrap, topic: 'bench-in' });
    const job = 'Kafka -> Kafka (json), p1';
    for (let round = 0; round < ROUNDS; round++) {
      for (const engine of orderOf(round)) {
        const topic = `bench-out-${engine}-${round}`;
        const vars = { parallelism: '1', bootstrap, source_topic: 'bench-in', sink_topic: topic, group: `bench-${engine}-${round}` };
        const run = await runEngine(engine, home, confPath('kafka-kafka'), vars, async () => topicBytes(dataDir, topic) > 0);
        const n = readCount(run.output);
        if (n !== undefined && n !== ROWS) throw new Error(`${job}, ${engine}: read ${n} records, not ${ROWS}`);
        const r = record(job, engine, ROWS);
        r.runs.push(run);
        if (run.firstRow !== undefined) r.startup.push(run.firstRow);
        progress(job, round, engine, run);
      }
    }
  } finally {
    await cluster.stop();
  }
}

/** CPU seconds a process has used so far (user + system). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** Of the worker pids, the one that used the most CPU over the next second (the one running the job). */
async function busiest(pids: number[]): Promise<number> {
  const before = pids.map(cpuSeconds);
  await sleep(1000);
  const used = pids.map((p, i) => cpuSeconds(p) - before[i]);
  return pids[used.indexOf(Math.max(...used))];
}

/**
 * Waits for rows in `orders_r`, lets them flow 2 s, SIGKILLs the busiest worker and returns the
 * seconds until rows move again: a connection opened after the kill is writing `orders_r` and the
 * table has grown since that connection was first seen.
 */
async function killAndRecover(
  target: pg.Client,
  workers: number[],
  kill: (pid: number) => void,
  failed: () => string | undefined,
): Promise<number | undefined> {
  const deadline = Date.now() + 300_000;
  while ((await relationBytes(target, 'public.orders_r')) === 0) {
    const why = failed();
    if (why !== undefined) throw new Error(why);
    if (Date.now() > deadline) throw new Error('no rows reached orders_r within 300 s');
    await sleep(100);
  }
  await sleep(2000);
  const victim = await busiest(workers);
  const killedAt = (await target.query<{ t: Date }>('SELECT clock_timestamp() AS t')).rows[0].t;
  const t0 = performance.now();
  kill(victim);
  let baseline: number | undefined;
  while (performance.now() - t0 < 240_000) {
    const res = await target.query<{ n: string }>({
      text: "SELECT count(*)::text AS n FROM pg_stat_activity WHERE backend_start > $1 AND query ILIKE '%orders_r%' AND datname = current_database()",
      values: [killedAt],
    });
    if (Number(res.rows[0].n) > 0) {
      const size = await relationBytes(target, 'public.orders_r');
      if (baseline === undefined) baseline = size;
      else if (size > baseline) return (performance.now() - t0) / 1000;
    }
    await sleep(100);
  }
  return undefined;
}

async function recoveryJob(home: string, s: TestDatabaseServer, target: pg.Client, dir: string): Promise<void> {
  if (!wanted('recovery')) return;
  const job = 'cluster: worker SIGKILL to rows moving again (Jdbc PG -> PG, p1)';
  const conf = confPath('jdbc-pg-pg');
  const vars: Vars = {
    checkpoint_interval: String(CHECKPOINT_MS),
    checkpoint_timeout: String(CHECKPOINT_TIMEOUT_MS),
    ...jdbcVars(s, 1, 'public.orders_r'),
  };
  const seconds = new Map<Engine, (number | undefined)[]>([
    ['Tideway', []],
    ['SeaTunnel', []],
  ]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const engine of orderOf(round)) {
      await target.query('DROP TABLE IF EXISTS orders_r; CREATE TABLE orders_r (LIKE orders)');
      let took: number | undefined;
      if (engine === 'Tideway') {
        const processes = await ClusterProcesses.create({
          cli: tidewayCli,
          cwd: repo,
          dir: join(dir, `tideway-cluster-${round}`),
          workers: [{ attributes: {} }, { attributes: {} }],
          slotNum: 2,
          jobScheduleStrategy: 'WAIT',
          env: { ...engineEnv, TIDEWAY_LOG_LEVEL: 'info' },
        });
        let client: ReturnType<typeof spawn> | undefined;
        try {
          await processes.startAll();
          await sleep(3000); // the workers' first heartbeats reach the resource manager
          client = spawn(
            process.execPath,
            [...tidewayCli, 'submit', '-c', conf, ...toVarArgs(vars), '--address', processes.address('coordinator')],
            {
              cwd: repo,
              env: { ...process.env, ...engineEnv },
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          );
          let out = '';
          client.stdout?.setEncoding('utf8').on('data', (t: string) => (out += t));
          client.stderr?.setEncoding('utf8').on('data', (t: string) => (out += t));
          let exit: number | null | undefined;
          client.once('close', (c) => (exit = c));
          const pids = processes.workerNames().map((n) => processes.pid(n)!);
          took = await killAndRecover(
            target,
            pids,
            (pid) => {
              const name = processes.workerNames().find((n) => processes.pid(n) === pid)!;
              // Not awaited: it resolves on the exit, and the clock runs from the signal.
              processes.kill(name, 'SIGKILL').catch(() => undefined);
            },
            () => (exit === undefined ? undefined : `tideway submit ended (${exit}) before rows flowed:\n${out.slice(-3000)}`),
          );
        } finally {
          client?.kill('SIGKILL');
          await processes.stop();
        }
      } else {
        const cluster = await SeaTunnelCluster.start(home, { heap: HEAP, workers: 2 });
        let ended: string | undefined;
        try {
          const submitted = cluster.run(conf, { variables: vars, timeoutMs: 600_000 });
          submitted
            .then((r) => (ended = `SeaTunnel's client ended (${r.exitCode}) before rows flowed:\n${r.output.slice(-3000)}`))
            .catch((e: unknown) => (ended = String(e)));
          const pids = cluster.workerPids().filter((p): p is number => p !== undefined);
          took = await killAndRecover(
            target,
            pids,
            (pid) => process.kill(pid, 'SIGKILL'),
            () => ended,
          );
        } finally {
          await cluster.stop();
        }
      }
      seconds.get(engine)!.push(took);
      console.error(
        `${job}, round ${round + 1}/${ROUNDS}, ${engine}: ${took === undefined ? 'no rows within 240 s' : `${took.toFixed(1)} s`}`,
      );
    }
  }
  recoveryLines.push(
    '',
    `${job}: one coordinator (SeaTunnel: master, separated mode) and two workers, each engine with its own defaults (Tideway: heartbeat 3 s, timeout 30 s, a dropped connection to a worker running task groups probed at once; SeaTunnel: Hazelcast as its config ships), job retry interval 3 s on both, checkpoint.interval ${CHECKPOINT_MS / 1000} s; 2 s after the first rows the worker that used the most CPU over the next second gets SIGKILL. Rows move again when a connection opened after the kill writes the target and the table grows.`,
    '',
    '| engine | seconds (median) | every run |',
    '|---|---|---|',
    ...[...seconds].map(([engine, xs]) => {
      const ok = xs.filter((x): x is number => x !== undefined);
      return `| ${engine} | ${ok.length ? median(ok).toFixed(1) : '-'} | ${xs.map((x) => (x === undefined ? '> 240' : x.toFixed(1))).join(', ')} |`;
    }),
  );
}

const recoveryLines: string[] = [];

/** The Postgres-CDC job's lines of the report (its own table: snapshot, then changes streamed). */
const cdcLines: string[] = [];

/** A streaming job started by one engine, followed (peak RSS) until stop() ends it. */
interface Streaming {
  readonly started: number;
  /** Why it ended early (its exit code and last output), while it should still run. */
  ended(): string | undefined;
  peakRssMb(): number;
  /** SIGTERM, then waits for the exit (SIGKILL after 60 s); whether SIGTERM alone ended it. */
  stop(): Promise<boolean>;
}

async function startStreaming(engine: Engine, home: string, conf: string, vars: Vars): Promise<Streaming> {
  const cmd = await engineCommand(engine, home, conf, vars);
  const run = spawnWatched(cmd.command, cmd.args, cmd.env, 20_000);
  run.child.once('close', cmd.cleanup);
  const timer = setInterval(() => run.rss.sample(), RSS_EVERY_MS);
  let stopping = false;
  return {
    started: run.started,
    ended: () => {
      const code = run.code();
      return code !== undefined && !stopping ? `${engine} ended (${code}) while streaming:\n${run.output().slice(-4000)}` : undefined;
    },
    peakRssMb: () => run.rss.totalMb,
    stop: async () => {
      stopping = true;
      run.rss.sample();
      clearInterval(timer);
      if (run.code() !== undefined) return true;
      run.child.kill('SIGTERM');
      const killed = await Promise.race([run.closed.then(() => false), sleep(60_000).then(() => true)]);
      if (killed) {
        run.child.kill('SIGKILL');
        await run.closed;
      }
      return !killed;
    },
  };
}

/**
 * The changes applied to the source after the snapshot, in one transaction: every `step`-th row
 * updated (status and amount: half the changes), every `2 * step`-th of the others deleted (a
 * quarter) and as many new rows inserted above the last id (a quarter, copies of the first rows
 * with new ids). `restore` puts the source back as loaded (from orders_before, a copy made once).
 */
function changeSql(rows: number, changes: number): { apply: string; restore: string } {
  const step = Math.max(2, Math.floor((2 * rows) / changes));
  const inserts = Math.max(0, changes - Math.floor(rows / step) - Math.floor((rows + 2 * step - 1) / (2 * step)));
  return {
    apply: `BEGIN;
UPDATE orders SET status = 'changed', amount = amount + 1 WHERE id % ${step} = 0;
DELETE FROM orders WHERE id % ${2 * step} = 1;
INSERT INTO orders SELECT id + ${rows}, customer_id, 'inserted', product, region, amount, weight, is_paid, created_at, ship_date, note, attrs
  FROM orders_before WHERE id <= ${inserts} ORDER BY id;
COMMIT;`,
    restore: `BEGIN;
DELETE FROM orders WHERE id > ${rows} OR id % ${step} = 0;
INSERT INTO orders SELECT * FROM orders_before WHERE id % ${2 * step} = 1 OR id % ${step} = 0;
COMMIT;`,
  };
}

/** Row count and a checksum over every column's text, in id order independent form (sum of row hashes). */
const CHECKSUM_SQL = "SELECT count(*)::text || ':' || coalesce(sum(hashtext(o::text)::bigint), 0)::text AS v FROM orders o";

async function cdcJob(home: string): Promise<void> {
  if (!wanted('pg-cdc')) return;
  const job = `Postgres-CDC snapshot + ${CHANGES.toLocaleString('en')} changes -> Jdbc PostgreSQL, p1`;
  const srv = await startPostgres({ logical: true, settings: { shared_buffers: '1GB', max_wal_size: '8GB' } });
  const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-cdc-'));
  let target: pg.Client | undefined;
  let source: pg.Client | undefined;
  let watcher: pg.Client | undefined;
  try {
    await pgRun(srv, srv.database, 'CREATE DATABASE src');
    console.error(`loading ${ROWS} orders into PostgreSQL (wal_level=logical) ...`);
    await loadOrders(dir, srv, undefined, ROWS);
    target = await pgClient(srv, srv.database);
    source = await pgClient(srv, 'src');
    // Its own session: the first row is looked for every 20 ms, as in the other jobs, while the
    // snapshot's progress is polled every 250 ms on `target`.
    watcher = await pgClient(srv, srv.database);
    const { apply, restore } = changeSql(ROWS, CHANGES);
    await source.query('CREATE TABLE orders_before AS SELECT * FROM orders');
    // SeaTunnel's Postgres-CDC reads every update's before-image (with DEFAULT, an update's is
    // null and its reader fails: NullPointerException on a null Struct); its docs ask for FULL.
    // The same source for both engines.
    await source.query('ALTER TABLE orders REPLICA IDENTITY FULL');
    const vars = (slot: string): Vars => ({
      parallelism: '1',
      source_url: `jdbc:postgresql://${srv.host}:${srv.port}/src`,
      source_database: 'src',
      source_table: 'src.public.orders',
      slot,
      // stringtype=unspecified: SeaTunnel 2.3.4's Jdbc sink binds the jsonb column as varchar in its
      // upsert, which PostgreSQL refuses; PgJDBC then sends strings untyped (as Tideway always does).
      sink_url: `${srv.jdbcUrl}${srv.jdbcUrl.includes('?') ? '&' : '?'}stringtype=unspecified`,
      sink_database: srv.database,
      sink_table: 'public.orders',
      // Not `user`: SeaTunnel 2.3.4 resolves ${user} against its system properties (user.name, ...).
      pg_user: srv.user,
      pg_password: srv.password,
    });
    const stats = async () =>
      Number(
        (await target!.query<{ n: string }>("SELECT (n_tup_ins + n_tup_upd)::text AS n FROM pg_stat_user_tables WHERE relname = 'orders'"))
          .rows[0].n,
      );
    const count = async () => Number((await target!.query<{ n: string }>('SELECT count(*)::text AS n FROM orders')).rows[0].n);
    type CdcRun = { snapshot: number; startup: number; apply: number; rss: number; sigterm: boolean };
    const runs = new Map<Engine, CdcRun[]>([
      ['Tideway', []],
      ['SeaTunnel', []],
    ]);
    let changed: string | undefined;
    let mix = '';
    for (let round = 0; round < ROUNDS; round++) {
      for (const engine of orderOf(round)) {
        const slot = `bench_${engine.toLowerCase()}_${round}_${process.pid}`;
        const base = await stats();
        const run = await startStreaming(engine, home, confPath('pg-cdc-pg'), vars(slot));
        const check = () => {
          const why = run.ended();
          if (why !== undefined) throw new Error(why);
        };
        let stopped = false;
        let sourceChanged = false;
        let watching = true;
        try {
          // Start-up: the first row in the target; snapshot: every row there (the statistics lead,
          // as bench/cdc-snapshot.ts: cheap to poll, then count(*) decides).
          let firstRow: number | undefined;
          const watch = (async () => {
            while (watching && firstRow === undefined) {
              if ((await relationBytes(watcher, 'public.orders')) > 0) firstRow = (performance.now() - run.started) / 1000;
              else await sleep(20);
            }
          })();
          // Its error, if any, is thrown where it is awaited, after the snapshot.
          watch.catch(() => undefined);
          let last = -1;
          let movedAt = performance.now();
          const deadline = performance.now() + 1_800_000;
          for (;;) {
            check();
            if (performance.now() > deadline) throw new Error(`${engine}: the snapshot did not complete within 30 minutes`);
            const n = (await stats()) - base;
            if (n !== last) [last, movedAt] = [n, performance.now()];
            if ((n >= ROWS || (n > 0 && performance.now() - movedAt > 1500)) && (await count()) >= ROWS) break;
            await sleep(250);
          }
          const snapshot = (performance.now() - run.started) / 1000;
          watching = false;
          await watch;
          // Both engines switch to the slot's stream once the snapshot is done; two checkpoint
          // intervals later the changes go in, in one transaction, the same every round.
          await sleep(2 * CHECKPOINT_MS);
          check();
          // A multi-statement query answers one result per statement (pg's types say one).
          const results = (await source.query(apply)) as unknown as pg.QueryResult[];
          sourceChanged = true;
          const committed = performance.now();
          const [updates, deletes, inserts] = [1, 2, 3].map((i) => results[i].rowCount ?? 0);
          mix = `${updates.toLocaleString('en')} updates, ${deletes.toLocaleString('en')} deletes, ${inserts.toLocaleString('en')} inserts`;
          const want = (await source.query<{ v: string }>(CHECKSUM_SQL)).rows[0].v;
          changed ??= want;
          if (want !== changed) throw new Error(`the source after the changes differs between rounds (${want} against ${changed})`);
          let applied: number | undefined;
          while (performance.now() - committed < 600_000) {
            check();
            if ((await target.query<{ v: string }>(CHECKSUM_SQL)).rows[0].v === want) {
              applied = (performance.now() - committed) / 1000;
              break;
            }
            await sleep(250);
          }
          const sigterm = await run.stop();
          stopped = true;
          if (applied === undefined) throw new Error(`${engine}: the target did not match the source within 600 s of the changes' commit`);
          const r: CdcRun = { snapshot, startup: firstRow ?? snapshot, apply: applied, rss: run.peakRssMb(), sigterm };
          runs.get(engine)!.push(r);
          console.error(
            `${job}, round ${round + 1}/${ROUNDS}, ${engine}: snapshot ${snapshot.toFixed(1)} s, first row at ${r.startup.toFixed(1)} s, changes applied ${applied.toFixed(1)} s after the commit, ${Math.round(r.rss)} MB${sigterm ? '' : ', SIGKILLed (SIGTERM did not end it within 60 s)'}`,
          );
        } finally {
          watching = false;
          if (!stopped) await run.stop();
          await source.query({
            text: 'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1',
            values: [slot],
          });
          for (const p of (await source.query<{ pubname: string }>('SELECT pubname FROM pg_publication')).rows)
            await source.query(`DROP PUBLICATION "${p.pubname}"`);
          if (sourceChanged) {
            await source.query(restore);
            await source.query('VACUUM ANALYZE orders');
          }
          await target.query('TRUNCATE orders');
          await target.query('CHECKPOINT');
        }
      }
    }
    const st = (f: (r: CdcRun) => number, engine: Engine, digits = 1) => {
      const xs = runs.get(engine)!.map(f);
      return `${median(xs).toFixed(digits)} (${xs.map((x) => x.toFixed(digits)).join(', ')})`;
    };
    const killed = [...runs].flatMap(([e, xs]) => xs.filter((x) => !x.sigterm).map(() => e));
    cdcLines.push(
      '',
      `${job}: SeaTunnel **${SEATUNNEL_CDC_VERSION}** for this job, not ${SEATUNNEL_VERSION}: connector-cdc-postgres is published to Maven Central for ${SEATUNNEL_CDC_VERSION} only, and that jar fails inside the ${SEATUNNEL_VERSION} engine, so SeaTunnel ${SEATUNNEL_CDC_VERSION} runs here as its own whole install (starter, transforms, Hadoop uber jar, connector-jdbc and connector-cdc-postgres, all ${SEATUNNEL_CDC_VERSION}; scripts/ensure-seatunnel.sh ${SEATUNNEL_CDC_VERSION}; decision 0045), local mode, JVM heap -Xms${HEAP} -Xmx${HEAP}, the same Java flags as ${SEATUNNEL_VERSION}. The config is bench/seatunnel/pg-cdc-pg.conf on both: startup.mode = initial, pgoutput, a new slot per run, parallelism 1, the Jdbc sink upserting and deleting by id (generate_sink_sql, primary_keys), checkpoint.interval ${CHECKPOINT_MS / 1000} s on both. One PostgreSQL server (wal_level=logical): the source is database src's \`orders\` (${ROWS.toLocaleString('en')} rows) with REPLICA IDENTITY FULL (SeaTunnel's Postgres-CDC fails on an update without the before-image; its docs ask for FULL), the sink the server's own database, its URL with stringtype=unspecified (SeaTunnel ${SEATUNNEL_CDC_VERSION}'s Jdbc upsert binds jsonb as varchar otherwise; Tideway sends parameters untyped either way).`,
      `Snapshot: command start to all ${ROWS.toLocaleString('en')} rows in the sink (rows/s over that span); start-up: command start to the first byte in the sink table (looked at every 20 ms, on a session of its own). Changes: ${(2 * CHECKPOINT_MS) / 1000} s after the snapshot completes, one transaction of ${CHANGES.toLocaleString('en')} changes on the source (${mix}; the same every round, the source restored between runs); seconds from its commit returning until the sink's row count and checksum (sum of hashtext of every row's text) equal the source's, polled every 250 ms plus the query's own time. Peak RSS: the engine's processes over the whole run. Each run ends with SIGTERM (and a wait); the slot and publication are then dropped and the sink truncated.${killed.length ? ` SIGTERM did not end ${killed.join(', ')} within 60 s: SIGKILLed.` : ''}`,
      '',
      '| engine | snapshot s, median (every run) | snapshot rows/s (median) | start-up s, median (every run) | changes applied s, median (every run) | peak RSS MB |',
      '|---|---|---|---|---|---|',
      ...(['Tideway', 'SeaTunnel'] as const).map((e) => {
        const xs = runs.get(e)!;
        const label = e === 'SeaTunnel' ? `SeaTunnel ${SEATUNNEL_CDC_VERSION}` : e;
        return `| ${label} | ${st((r) => r.snapshot, e)} | ${Math.round(ROWS / median(xs.map((r) => r.snapshot))).toLocaleString('en')} | ${st((r) => r.startup, e)} | ${st((r) => r.apply, e)} | ${Math.round(Math.max(...xs.map((r) => r.rss)))} |`;
      }),
    );
  } finally {
    await source?.end();
    await target?.end();
    await watcher?.end();
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;

function table(): string[] {
  const lines = [
    '| job | engine | seconds (median) | every run | rows/s (median) | start-up s (median) | peak RSS MB | Tideway / SeaTunnel: rows/s, RSS, start-up | Tideway / psql pipe rows/s |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const secs = median(r.runs.map((m) => m.seconds));
    const rss = Math.max(...r.runs.map((m) => m.peakRssMb));
    const start = r.startup.length ? median(r.startup) : Number.NaN;
    let vsSt = '';
    let vsPipe = '';
    if (r.tool === 'Tideway') {
      const st = results.find((o) => o.job === r.job && o.tool === 'SeaTunnel');
      if (st) {
        const stSecs = median(st.runs.map((m) => m.seconds));
        const stRss = Math.max(...st.runs.map((m) => m.peakRssMb));
        vsSt = `${(stSecs / secs).toFixed(2)}x, ${(rss / stRss).toFixed(2)}x, ${(start / median(st.startup)).toFixed(2)}x`;
      }
      const pipe = results.find((o) => o.job === r.job && o.tool === 'psql pipe');
      if (pipe) vsPipe = `${(median(pipe.runs.map((m) => m.seconds)) / secs).toFixed(2)}x`;
    }
    lines.push(
      `| ${r.job} | ${r.tool} | ${secs.toFixed(1)} | ${r.runs.map((m) => m.seconds.toFixed(1)).join(', ')} (${spread(r.runs.map((m) => m.seconds))}) | ${Math.round(r.rows / secs).toLocaleString('en')} | ${Number.isNaN(start) ? '-' : start.toFixed(1)} | ${Math.round(rss)} | ${vsSt} | ${vsPipe} |`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const got = ensureSeaTunnel();
  if ('missing' in got) {
    console.error(`bench:seatunnel: ${got.missing}`);
    process.exit(3);
  }
  const started = new Date();
  const loadAtStart = loadavg();
  const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-seatunnel-'));
  let pgSrv: TestDatabaseServer | undefined;
  let target: pg.Client | undefined;
  try {
    // A job that fails is reported under the tables and the others still run.
    const attempt = async (what: string, f: () => Promise<void>) => {
      try {
        await f();
      } catch (err) {
        console.error(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
        notes.push('', `${what} failed: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
      }
    };
    await attempt('FakeSource jobs', () => fakeJobs(got.home));
    if (wanted('jdbc-p1') || wanted('jdbc-p2') || wanted('recovery')) {
      pgSrv = await startPostgres({ settings: { shared_buffers: '1GB', max_wal_size: '8GB' } });
      await pgRun(pgSrv, pgSrv.database, 'CREATE DATABASE src');
      console.error(`loading ${ROWS} orders into PostgreSQL ...`);
      mkdirSync(join(dir, 'orders'));
      await loadOrders(join(dir, 'orders'), pgSrv, undefined, ROWS);
      target = await pgClient(pgSrv, pgSrv.database);
      const [s, t] = [pgSrv, target];
      await attempt('Recovery job', () => recoveryJob(got.home, s, t, dir));
      await attempt('Jdbc jobs', () => jdbcJobs(got.home, s, t));
    }
    await attempt('LocalFile jobs', () => fileJobs(got.home, dir));
    await attempt('Kafka job', () => kafkaJob(got.home));
    if (wanted('pg-cdc')) {
      const cdcHome = ensureSeaTunnel(SEATUNNEL_CDC_VERSION);
      if ('missing' in cdcHome)
        notes.push('', `Postgres-CDC did not run: SeaTunnel ${SEATUNNEL_CDC_VERSION} is not available (${cdcHome.missing}).`);
      else await attempt('Postgres-CDC job', () => cdcJob(cdcHome.home));
    }
  } finally {
    await target?.end();
    await pgSrv?.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const { stdout: javaVersion } = await new Promise<{ stdout: string }>((resolve) => {
    const c = spawn('java', ['-version'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let e = '';
    c.stderr.setEncoding('utf8').on('data', (s: string) => (e += s));
    c.once('close', () => resolve({ stdout: e.split('\n')[0] ?? 'java' }));
  });
  const loadAtEnd = loadavg();
  const onlyCdc = JOBS.every((j) => j === 'pg-cdc' || !wanted(j));
  const lines = [
    '',
    `## Tideway against SeaTunnel ${onlyCdc ? SEATUNNEL_CDC_VERSION : SEATUNNEL_VERSION}${wanted('pg-cdc') && !onlyCdc ? ` (Postgres-CDC: ${SEATUNNEL_CDC_VERSION})` : ''}: bench/seatunnel.ts, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `${machineLine({ postgres: results.some((r) => r.tool === 'psql pipe') || cdcLines.length > 0 })} ${javaVersion.trim()}. Load average (1, 5, 15 min) at the start ${loadAtStart.map((x) => x.toFixed(1)).join(', ')}, at the end ${loadAtEnd.map((x) => x.toFixed(1)).join(', ')} (the machine is shared: other work ran meanwhile).`,
    `SeaTunnel ${onlyCdc ? SEATUNNEL_CDC_VERSION : SEATUNNEL_VERSION} in local mode (\`seatunnel.sh -m local\`'s java command), JVM heap -Xms${HEAP} -Xmx${HEAP}; Tideway: \`tideway run\`. The job configs are bench/seatunnel/*.conf, the same text on both (their variables given with -i); TZ=UTC, C.UTF-8, checkpoint.interval ${CHECKPOINT_MS / 1000} s and checkpoint.timeout ${CHECKPOINT_TIMEOUT_MS / 1000} s on both (SeaTunnel's shipped 10 s timeout expired in its FakeSource jobs here, which make a split's rows in one poll). ${ROUNDS} rounds, engines alternating (the first one changes every round). ${wanted('fake-p1') || wanted('fake-p2') ? `FakeSource jobs: ${FAKE_ROWS.toLocaleString('en')} rows; the others` : 'Rows:'} ${ROWS.toLocaleString('en')}.`,
    ...(results.length
      ? [
          "Seconds: the whole command (start, job, exit), with the range over the rounds; start-up: command start to the first byte in the target table, files or topic (looked at every 20 ms), or, where the sink drops rows (Console), the wall time of the same job with one row; peak RSS: the largest over the rounds, of all the engine's processes together.",
          '',
          ...table(),
        ]
      : []),
    ...recoveryLines,
    '',
    wanted('pg-cdc')
      ? `Postgres-CDC (job pg-cdc) is compared against SeaTunnel ${SEATUNNEL_CDC_VERSION}, not ${SEATUNNEL_VERSION}: connector-cdc-postgres has no ${SEATUNNEL_VERSION} release in the registry and the ${SEATUNNEL_CDC_VERSION} one fails in the ${SEATUNNEL_VERSION} engine (it carries its own copy of connector-jdbc's classes: their serialVersionUIDs clash, and without them its reader meets a null Struct), so a whole SeaTunnel ${SEATUNNEL_CDC_VERSION} runs it (decision 0045).`
      : `Postgres-CDC (job pg-cdc, not selected here) is compared against SeaTunnel ${SEATUNNEL_CDC_VERSION}, a whole install of its own: connector-cdc-postgres has no ${SEATUNNEL_VERSION} release in the registry (decision 0045).`,
    ...cdcLines,
    ...notes,
  ];
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(text);
  if (opts.write) appendFileSync(join(repo, 'bench', 'RESULTS.md'), text);
}

await main();
