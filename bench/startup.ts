/**
 * Tideway's start-up per job kind (issue 32's start-up target: <= 0.2x SeaTunnel's), in local
 * mode, N rounds, medians: `pnpm bench:startup [--rounds 5] [--jobs fake,jdbc,text-read,...] [--write]`.
 *
 * The jobs: one row of FakeSource and of a LocalFile text or Parquet file, KAFKA_ROWS records of
 * a topic, and PG -> PG over shared/bench's `orders` (JDBC_ROWS rows, bench/seatunnel.ts's table,
 * so its start-up compares with SeaTunnel's there). For each run the bench records:
 * - start-up: command start to the first byte in the target table or topic; where the sink drops
 *   rows (Console), the wall time of the whole one-row job (as bench/seatunnel.ts measures it);
 * - CPU at start-up: the process's user + system CPU (all its threads) at that moment; for the
 *   one-row jobs, the CPU of the whole run (read from the reaped child's times);
 * - the whole run's wall and CPU seconds.
 * The machine is shared: compare CPU seconds first, wall seconds only as medians.
 * BENCH_NODE_ARGS adds Node options to the runs (a CPU profile: see NODE_ARGS).
 * `--baseline <dir>`: a copy of the repository built at another commit; every round then runs
 * both builds, in alternating order, and the table gives each one's medians and their ratio.
 * SeaTunnel's start-up figures are those of bench/RESULTS.md (bench/seatunnel.ts, same configs).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin } from '@platformatic/kafka';
import pg from 'pg';
import { kafkaMissing, startKafka, startPostgres } from '@tideway/testing';
import { builtCli, machineLine, procCpu, selectJobs } from './machine.js';
import { loadOrders, median, pgRun, repo } from './orders-servers.js';

const JOBS = ['fake', 'jdbc', 'text-read', 'parquet-read', 'kafka'] as const;
type JobName = (typeof JOBS)[number];

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: process.env.BENCH_ROUNDS ?? '5' },
    jobs: { type: 'string', default: JOBS.join(',') },
    write: { type: 'boolean', default: false },
    label: { type: 'string', default: '' },
    baseline: { type: 'string' },
    'jdbc-rows': { type: 'string', default: '2000000' },
  },
});
const ROUNDS = Number(opts.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error('bench:startup: --rounds takes a whole number above 0');
  process.exit(2);
}
const wanted = selectJobs<JobName>('bench:startup', opts.jobs, JOBS);

/** The builds compared: this checkout's CLI and, with --baseline, another build's. */
const builds: { name: string; cli: string[] }[] = [{ name: 'this checkout', cli: builtCli('bench:startup') }];
if (opts.baseline) {
  const main = join(opts.baseline, 'services', 'cli', 'dist', 'main.js');
  if (!existsSync(main)) {
    console.error(`bench:startup: --baseline ${opts.baseline}: no built CLI there (${main}); run pnpm build in it`);
    process.exit(2);
  }
  builds.push({ name: 'baseline', cli: [main] });
}
type Build = (typeof builds)[number];

/** The `orders` rows PG -> PG copies (--jdbc-rows; 2,000,000 as in bench/seatunnel.ts). */
const JDBC_ROWS = Number(opts['jdbc-rows']);
if (!Number.isInteger(JDBC_ROWS) || JDBC_ROWS < 1) {
  console.error('bench:startup: --jdbc-rows takes a whole number above 0');
  process.exit(2);
}
const KAFKA_ROWS = 10_000;
/** How often the target is looked at for its first row. */
const POLL_MS = 20;
const confPath = (name: string) => join(repo, 'bench', 'seatunnel', `${name}.conf`);
const engineEnv = { TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
const baseVars = { checkpoint_interval: '10000', checkpoint_timeout: '600000' };
/**
 * Node options for the runs, e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p' (with
 * TIDEWAY_THREAD_CPU_PROF=/tmp/p for the task threads) to see where a start-up goes.
 */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  /** Seconds to the first row written, or of the whole one-row job. */
  startup: number;
  /** CPU seconds used by then. */
  startupCpu: number;
  seconds: number;
  cpu: number;
}

/** CPU seconds (user + system) of a live process, all its threads; undefined once it is gone. */
function liveCpu(pid: number): number | undefined {
  try {
    return procCpu(pid).own;
  } catch {
    return undefined;
  }
}

/**
 * Runs `tideway run` on a config: wall and CPU seconds of the whole run and, with `firstRow`
 * (polled every POLL_MS), of the time it first answered true.
 */
async function runTideway(build: Build, conf: string, vars: Record<string, string>, firstRow?: () => Promise<boolean>): Promise<Run> {
  const args = [
    ...NODE_ARGS,
    ...build.cli,
    'run',
    '-c',
    confPath(conf),
    ...Object.entries({ ...baseVars, ...vars }).flatMap(([k, v]) => ['-i', `${k}=${v}`]),
  ];
  const reapedBefore = procCpu(process.pid).reaped;
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: repo, env: { ...process.env, ...engineEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
  let code: number | null | undefined;
  const closed = new Promise<void>((resolve) =>
    child.once('close', (c) => {
      code = c;
      resolve();
    }),
  );
  let first: { at: number; cpu: number } | undefined;
  while (code === undefined) {
    if (firstRow && !first && (await firstRow())) {
      const at = (performance.now() - started) / 1000;
      const cpu = child.pid === undefined ? undefined : liveCpu(child.pid);
      if (cpu !== undefined) first = { at, cpu };
    }
    await Promise.race([closed, sleep(POLL_MS)]);
  }
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`tideway run ${conf} exited ${code}:\n${output.slice(-4000)}`);
  const cpu = procCpu(process.pid).reaped - reapedBefore;
  if (firstRow && !first) {
    // The job ended between two looks: its first row came before its end.
    if (!(await firstRow())) throw new Error(`tideway run ${conf}: no row reached the target`);
    first = { at: seconds, cpu };
  }
  return { startup: first?.at ?? seconds, startupCpu: first?.cpu ?? cpu, seconds, cpu };
}

const results: { job: string; build: string; runs: Run[] }[] = [];

/** ROUNDS rounds of one job, each build once a round, the first build changing every round. */
async function rounds(job: string, one: (build: Build, round: number) => Promise<Run>): Promise<void> {
  const runs = new Map(builds.map((b) => [b, [] as Run[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...builds].reverse() : builds;
    for (const build of order) {
      const run = await one(build, round);
      runs.get(build)!.push(run);
      console.error(
        `${job}, round ${round + 1}/${ROUNDS}, ${build.name}: start-up ${run.startup.toFixed(2)} s (${run.startupCpu.toFixed(2)} s CPU), whole run ${run.seconds.toFixed(2)} s (${run.cpu.toFixed(2)} s CPU)`,
      );
    }
  }
  for (const [build, r] of runs) results.push({ job, build: build.name, runs: r });
}

/**
 * PG -> PG over shared/bench's `orders` table (bench/seatunnel.ts's table, server settings and
 * config), into the server's own database, as bench/seatunnel.ts runs it.
 */
async function jdbcJob(dir: string): Promise<void> {
  const server = await startPostgres({ settings: { shared_buffers: '1GB', max_wal_size: '8GB' } });
  try {
    await pgRun(server, server.database, 'CREATE DATABASE src');
    console.error(`loading ${JDBC_ROWS.toLocaleString('en')} orders into PostgreSQL ...`);
    mkdirSync(join(dir, 'orders'));
    await loadOrders(join(dir, 'orders'), server, undefined, JDBC_ROWS);
    const target = new pg.Client({
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
      database: server.database,
    });
    await target.connect();
    try {
      const vars = {
        parallelism: '1',
        source_url: `jdbc:postgresql://${server.host}:${server.port}/src`,
        source_table: 'public.orders',
        sink_url: `jdbc:postgresql://${server.host}:${server.port}/${server.database}`,
        sink_database: server.database,
        sink_table: 'public.orders',
        user: server.user,
        password: server.password,
      };
      const firstRow = async () =>
        Number((await target.query<{ n: string }>("SELECT pg_relation_size('public.orders')::text AS n")).rows[0].n) > 0;
      await rounds(`Jdbc PostgreSQL -> PostgreSQL (COPY), orders, ${JDBC_ROWS.toLocaleString('en')} rows, p1`, async (build) => {
        const run = await runTideway(build, 'jdbc-pg-pg', vars, firstRow);
        const n = Number((await target.query<{ n: string }>('SELECT count(*)::text AS n FROM orders')).rows[0].n);
        if (n !== JDBC_ROWS) throw new Error(`Jdbc: the target has ${n} rows, not ${JDBC_ROWS}`);
        await target.query('TRUNCATE orders');
        await target.query('CHECKPOINT');
        return run;
      });
    } finally {
      await target.end();
    }
  } finally {
    await server.stop();
  }
}

async function fileJobs(dir: string): Promise<void> {
  for (const format of ['text', 'parquet'] as const) {
    if (!wanted(`${format}-read`)) continue;
    const out = join(dir, `input-${format}`);
    await runTideway(builds[0], 'file-write', {
      parallelism: '1',
      row_num: '1',
      path: join(out, 'data'),
      tmp_path: join(out, 'tmp'),
      file_format: format,
    });
    await rounds(`LocalFile ${format} -> Console (dropped), one row, p1`, (build) =>
      runTideway(build, `file-read-${format}`, { parallelism: '1', path: join(out, 'data') }),
    );
  }
}

/** Bytes of a topic's log segments in a broker's data folder. */
function topicBytes(dataDir: string, topic: string): number {
  if (!existsSync(dataDir)) return 0;
  let total = 0;
  for (const d of readdirSync(dataDir)) {
    if (!d.startsWith(`${topic}-`) || !/^\d+$/.test(d.slice(topic.length + 1))) continue;
    for (const f of readdirSync(join(dataDir, d))) if (f.endsWith('.log')) total += statSync(join(dataDir, d, f)).size;
  }
  return total;
}

async function kafkaJob(): Promise<void> {
  const missing = kafkaMissing();
  if (missing) {
    console.error(`bench:startup: Kafka -> Kafka skipped: ${missing}`);
    return;
  }
  const cluster = await startKafka({ heapMb: 512 });
  try {
    const dataDir = join(cluster.brokers[0].dir, 'data');
    const outs = Array.from({ length: ROUNDS }, (_, round) => builds.map((b, i) => `startup-out-${round}-${i}`)).flat();
    const admin = new Admin({ clientId: 'bench-startup', bootstrapBrokers: [cluster.bootstrap] });
    try {
      await admin.createTopics({ topics: ['startup-in', ...outs], partitions: 1, replicas: 1 });
    } finally {
      await admin.close();
    }
    await runTideway(builds[0], 'kafka-fill', { row_num: String(KAFKA_ROWS), bootstrap: cluster.bootstrap, topic: 'startup-in' });
    await rounds(`Kafka -> Kafka (json), ${KAFKA_ROWS.toLocaleString('en')} records, p1`, (build, round) => {
      const topic = `startup-out-${round}-${builds.indexOf(build)}`;
      return runTideway(
        build,
        'kafka-kafka',
        { parallelism: '1', bootstrap: cluster.bootstrap, source_topic: 'startup-in', sink_topic: topic, group: `startup-${topic}` },
        async () => topicBytes(dataDir, topic) > 0,
      );
    });
  } finally {
    await cluster.stop();
  }
}

const machine = machineLine({ load: true });
const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-startup-'));
try {
  if (wanted('fake'))
    await rounds('FakeSource -> Console (dropped), one row, p1', (build) =>
      runTideway(build, 'fake-console', { parallelism: '1', row_num: '1' }),
    );
  if (wanted('jdbc')) await jdbcJob(dir);
  await fileJobs(dir);
  if (wanted('kafka')) await kafkaJob();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
const med = (runs: Run[], f: (r: Run) => number) => median(runs.map(f));
/** This checkout's median over the baseline's, for the same job. */
const ratio = (job: string, runs: Run[], f: (r: Run) => number) => {
  const base = results.find((r) => r.job === job && r.build === 'baseline');
  return base ? `${(med(runs, f) / med(base.runs, f)).toFixed(2)}x` : '';
};
const compared = builds.length > 1;
const lines = [
  '',
  `### Start-up${opts.label ? `: ${opts.label}` : ''} (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, \`pnpm bench:startup\`)`,
  '',
  machine,
  '',
  `Tideway in local mode (\`tideway run\`), ${ROUNDS} rounds${compared ? `, this checkout and a baseline build (--baseline; --label names it) alternating` : ''}. Start-up: command start to the first byte in the target table or topic (looked at every ${POLL_MS} ms), or for a Console sink (rows dropped) the whole one-row job; CPU: user + system seconds of the process, all threads, by then; whole run: the job to its exit.`,
  '',
  `| job | build | start-up s (median) | range | CPU s at start-up (median) | whole run s (median) | whole run CPU s (median) |${compared ? ' this / baseline: start-up, CPU |' : ''}`,
  `|---|---|---|---|---|---|---|${compared ? '---|' : ''}`,
  ...results.map(({ job, build, runs }) => {
    const cells = [
      job,
      build,
      med(runs, (r) => r.startup).toFixed(2),
      range(runs.map((r) => r.startup)),
      med(runs, (r) => r.startupCpu).toFixed(2),
      med(runs, (r) => r.seconds).toFixed(2),
      med(runs, (r) => r.cpu).toFixed(2),
    ];
    if (compared) cells.push(build === 'baseline' ? '' : `${ratio(job, runs, (r) => r.startup)}, ${ratio(job, runs, (r) => r.startupCpu)}`);
    return `| ${cells.join(' | ')} |`;
  }),
];
console.log(lines.join('\n'));
if (opts.write) appendFileSync(join(repo, 'bench', 'RESULTS.md'), `${lines.join('\n')}\n`);
