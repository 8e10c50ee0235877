/**
 * Issue 34's lag target: MySQL-CDC (on MariaDB) -> Kafka -> PostgreSQL end to end, under a
 * steady BENCH_LAG_RATE changes/s (default 5000) for BENCH_LAG_SECONDS (default 45), on a private
 * MariaDB, PostgreSQL and KRaft broker. Two `tideway run` processes: the capture job (MySQL-CDC ->
 * Kafka, format debezium_json, keyed by id) and the reading job (Kafka -> Jdbc upserts into
 * PostgreSQL).
 *
 * A writer drives the changes into MariaDB: every 20 ms one transaction with the changes due by
 * then, inserts of new ids and updates of earlier ones (1 in 5), each setting `written_at` to the
 * writer's clock just before its COMMIT is sent. In PostgreSQL a trigger stamps each row's
 * `landed_at` (clock_timestamp()) when the reading job writes it. The lag of a row's last change is
 * landed_at - written_at; every row is sampled (its last change), p50/p99/max over them.
 *
 * BENCH_LAG_RUNS: the capture job's sink semantics and both jobs' checkpoint.interval, each run
 * with its own tables and topic, e.g. `EXACTLY_ONCE:1000,AT_LEAST_ONCE:10000` (the default). With
 * EXACTLY_ONCE a change becomes visible to the reading job (read_committed) only when the
 * capture job's checkpoint completes and commits its transaction: the interval bounds the lag
 * from below. Usage: `pnpm bench:cdc-kafka-lag`; run it on a quiet machine, the load average is
 * printed with the figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin } from '@platformatic/kafka';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startKafka, startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import { machineLine } from './machine.js';

const RATE = Number(process.env.BENCH_LAG_RATE ?? 5000);
const SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 45);
const RUNS = (process.env.BENCH_LAG_RUNS ?? 'EXACTLY_ONCE:1000,AT_LEAST_ONCE:10000').split(',').map((r) => {
  const [semantics, interval] = r.split(':');
  if (!['EXACTLY_ONCE', 'AT_LEAST_ONCE', 'NON'].includes(semantics) || !(Number(interval) > 0))
    throw new Error(`BENCH_LAG_RUNS: '${r}' is not <EXACTLY_ONCE|AT_LEAST_ONCE|NON>:<checkpoint interval ms>`);
  return { semantics, intervalMs: Number(interval) };
});
const TICK_MS = 20;

const progress = (line: string) => process.stderr.write(`${line}\n`);

/** A `tideway run` of a config, its stderr's tail kept for the failure message. */
function startJob(conf: string): { child: ChildProcess; tail: () => string } {
  const child = spawn(process.execPath, [...cliNodeArgs(), 'run', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr?.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4000);
  });
  return { child, tail: () => tail };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, failed: () => string | undefined): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    const why = failed();
    if (why) throw new Error(`${what}: ${why}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface RunResult {
  semantics: string;
  intervalMs: number;
  changes: number;
  rate: number;
  rows: number;
  p50: number;
  p99: number;
  max: number;
  loadStart: number;
  loadEnd: number;
}

async function runOnce(
  n: number,
  semantics: string,
  intervalMs: number,
  servers: { maria: TestDatabaseServer; pgSrv: TestDatabaseServer; bootstrap: string },
  dir: string,
): Promise<RunResult> {
  const { maria, pgSrv, bootstrap } = servers;
  const src = `lag_src_${n}`;
  const dst = `lag_dst_${n}`;
  const topic = `lag-${n}-${Date.now()}`;
  const my = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password });
  const target = new pg.Client({ host: pgSrv.host, port: pgSrv.port, user: pgSrv.user, password: pgSrv.password, database: 'tideway' });
  await target.connect();
  const jobs: Array<ReturnType<typeof startJob>> = [];
  try {
    await my.query('CREATE DATABASE IF NOT EXISTS lagdb');
    await my.query(`CREATE TABLE lagdb.${src} (id bigint PRIMARY KEY, v int, note varchar(40), written_at bigint)`);
    await target.query(`CREATE TABLE ${dst} (id bigint PRIMARY KEY, v int, note varchar(40), written_at bigint, landed_at timestamptz)`);
    await target.query(
      `CREATE OR REPLACE FUNCTION stamp_landed() RETURNS trigger AS $$ BEGIN NEW.landed_at := clock_timestamp(); RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await target.query(`CREATE TRIGGER ${dst}_landed BEFORE INSERT OR UPDATE ON ${dst} FOR EACH ROW EXECUTE FUNCTION stamp_landed()`);
    const admin = new Admin({ clientId: 'bench', bootstrapBrokers: [bootstrap] });
    await admin.createTopics({ topics: [topic], partitions: 3, replicas: 1 });
    await admin.close();

    const capture = join(dir, `capture-${n}.conf`);
    writeFileSync(
      capture,
      `env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = ${intervalMs}
}
source {
  MySQL-CDC {
    plugin_output = "changes"
    base-url = "jdbc:mysql://${maria.host}:${maria.port}/lagdb"
    username = "${maria.user}"
    password = "${maria.password}"
    table-names = ["lagdb.${src}"]
  }
}
sink {
  Kafka {
    plugin_input = "changes"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    format = debezium_json
    partition_key_fields = ["id"]
    semantics = ${semantics}
  }
}
`,
    );
    const reading = join(dir, `reading-${n}.conf`);
    writeFileSync(
      reading,
      `env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = ${intervalMs}
}
source {
  Kafka {
    plugin_output = "rows"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    consumer.group = "${topic}-reader"
    start_mode = earliest
    format = debezium_json
    schema = { table = "public.${dst}", fields { id = bigint, v = int, note = string, written_at = bigint } }
  }
}
sink {
  Jdbc {
    plugin_input = "rows"
    url = "${pgSrv.jdbcUrl}"
    driver = "org.postgresql.Driver"
    user = "${pgSrv.user}"
    password = "${pgSrv.password}"
    generate_sink_sql = true
    database = "tideway"
    table = "public.${dst}"
    primary_keys = ["id"]
  }
}
`,
    );
    jobs.push(startJob(capture), startJob(reading));
    const failed = () => {
      const ended = jobs.find((j) => j.child.exitCode !== null || j.child.signalCode !== null);
      return ended ? `a job ended: ${ended.tail()}` : undefined;
    };
    // Both jobs are up when a first row goes through.
    await my.query(`INSERT INTO lagdb.${src} VALUES (0, 0, 'probe', ?)`, [Date.now()]);
    await until(
      'the first row through both jobs',
      async () => ((await target.query(`SELECT 1 FROM ${dst} WHERE id = 0`)).rowCount ? true : undefined),
      180_000,
      failed,
    );
    progress(`run ${n} (${semantics}, checkpoint.interval ${intervalMs} ms): jobs up, writing ${RATE} changes/s for ${SECONDS} s`);

    const loadStart = loadavg()[0];
    const started = Date.now();
    let changes = 0;
    let nextId = 1;
    const note = 'x'.repeat(30);
    for (;;) {
      const now = Date.now();
      if (now - started >= SECONDS * 1000) break;
      const due = Math.floor(((now - started) / 1000) * RATE) - changes;
      if (due > 0) {
        const updates = nextId > 100 ? Math.floor(due / 5) : 0;
        const inserts = due - updates;
        await my.query('BEGIN');
        const writtenAt = Date.now();
        const values = Array.from({ length: inserts }, (_, i) => `(${nextId + i}, ${i}, '${note}', ${writtenAt})`).join(',');
        if (inserts > 0) await my.query(`INSERT INTO lagdb.${src} VALUES ${values}`);
        nextId += inserts;
        if (updates > 0) {
          const ids = Array.from({ length: updates }, () => 1 + Math.floor(Math.random() * (nextId - 1)));
          await my.query(`UPDATE lagdb.${src} SET v = v + 1, written_at = ? WHERE id IN (${ids.join(',')})`, [Date.now()]);
        }
        await my.query('COMMIT');
        changes += due;
      }
      const wait = TICK_MS - ((Date.now() - started) % TICK_MS);
      await new Promise((r) => setTimeout(r, wait));
    }
    const seconds = (Date.now() - started) / 1000;
    const loadEnd = loadavg()[0];
    progress(`run ${n}: ${changes} changes in ${seconds.toFixed(1)} s; waiting for PostgreSQL to have them all`);
    const [[last]] = (await my.query(`SELECT COUNT(*) AS c, MAX(written_at) AS w FROM lagdb.${src}`)) as unknown as [
      Array<{ c: number; w: number }>,
    ];
    await until(
      'PostgreSQL to hold every row',
      async () => {
        const r = await target.query<{ c: string; w: string }>(`SELECT COUNT(*) AS c, MAX(written_at) AS w FROM ${dst}`);
        return Number(r.rows[0].c) === Number(last.c) && Number(r.rows[0].w) === Number(last.w) ? true : undefined;
      },
      180_000,
      failed,
    );
    const { rows } = await target.query<{ lag: string }>(
      `SELECT extract(epoch FROM landed_at) * 1000 - written_at AS lag FROM ${dst} WHERE id > 0`,
    );
    const lags = rows.map((r) => Number(r.lag)).sort((a, b) => a - b);
    return {
      semantics,
      intervalMs,
      changes,
      rate: Math.round(changes / seconds),
      rows: lags.length,
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags[lags.length - 1],
      loadStart,
      loadEnd,
    };
  } finally {
    for (const j of jobs) j.child.kill('SIGINT');
    await Promise.all(
      jobs.map(
        (j) =>
          new Promise<void>((resolve) => {
            if (j.child.exitCode !== null || j.child.signalCode !== null) return resolve();
            const t = setTimeout(() => j.child.kill('SIGKILL'), 30_000);
            j.child.once('exit', () => {
              clearTimeout(t);
              resolve();
            });
          }),
      ),
    );
    await my.end().catch(() => undefined);
    await target.end().catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tideway-bench-lag-'));
  progress('starting MariaDB, PostgreSQL and a Kafka broker');
  const [maria, pgSrv, kafka] = await Promise.all([startMariaDb(), startPostgres(), startKafka({ heapMb: 1024 })]);
  const results: RunResult[] = [];
  try {
    for (const [i, r] of RUNS.entries())
      results.push(await runOnce(i + 1, r.semantics, r.intervalMs, { maria, pgSrv, bootstrap: kafka.bootstrap }, dir));
  } finally {
    await Promise.allSettled([maria.stop(), pgSrv.stop(), kafka.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  const fmt = (ms: number) => (ms / 1000).toFixed(2);
  const lines = [
    `## MySQL-CDC (MariaDB) -> Kafka -> PostgreSQL lag at ${RATE} changes/s (bench/cdc-kafka-lag.ts, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    machineLine({ postgres: true }),
    `${SECONDS} s of changes per run (4 inserts to 1 update, one transaction every ${TICK_MS} ms); capture job MySQL-CDC -> Kafka (debezium_json, 3 partitions), reading job Kafka (read_committed) -> Jdbc upserts; both at parallelism 1, each in its own \`tideway run\`. Lag: PostgreSQL's clock_timestamp() when the row was written there minus the writer's clock at the change, over every row's last change.`,
    '',
    '| capture semantics | checkpoint.interval | changes | changes/s | rows sampled | lag p50 s | lag p99 s | lag max s | load average 1 min (start, end) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.semantics} | ${r.intervalMs} ms | ${r.changes} | ${r.rate} | ${r.rows} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.loadStart.toFixed(1)}, ${r.loadEnd.toFixed(1)} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
