/**
 * CDC initial snapshot throughput at parallelism 1 and 2 (issue 14), in one run on the same data
 * and servers: Postgres-CDC (PostgreSQL `src`) and MySQL-CDC (MariaDB) reading shared/bench's
 * `orders`, into the Jdbc sink on PostgreSQL (upserts by id). Each run is timed from the start
 * of `tideway run` until the target holds every row; beside it the CPU seconds of the
 * PostgreSQL server (every backend), of MariaDB and of the Tideway process, so the figure can
 * be read against what the 2 shared cores allowed. Runs alternate p1/p2 BENCH_REPEAT times
 * (default 2); medians are reported. Prints a Markdown section for bench/RESULTS.md.
 *
 * usage: pnpm bench:cdc [rows]   (default 2,000,000; builds first)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { TestDatabaseServer } from '@tideway/testing';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import { procCpu } from './machine.js';
import { loadOrders, median, pgConnection, pgCount, pgRun, repo, startOrdersServers } from './orders-servers.js';

const ROWS = Number(process.argv[2] ?? 2_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);
const work = mkdtempSync(join(tmpdir(), 'tideway-bench-cdc-'));

/** CPU seconds a server has used: its root process, its live descendants and the exited ones. */
function serverCpu(rootPid: number): number {
  const parents = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parents.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const root = procCpu(rootPid);
  let total = root.own + root.reaped;
  for (const [pid, ppid] of parents) {
    if (ppid !== rootPid) continue;
    try {
      const c = procCpu(pid);
      total += c.own + c.reaped;
    } catch {
      // exited meanwhile (then counted in the root's reaped time)
    }
  }
  return total;
}

function pidOf(file: string): number {
  return Number(readFileSync(file, 'utf8').split('\n')[0]);
}

const { pgSrv, mySrv } = await startOrdersServers({ logical: true });
const pgPid = pidOf(join(pgSrv.dir, 'data', 'postmaster.pid'));
const myPid = pidOf(join(mySrv.dir, 'mysqld.pid'));

function jobFile(name: string, parallelism: number, source: string): string {
  const sink = [
    ...pgConnection(pgSrv, pgSrv.database),
    '    generate_sink_sql = true',
    `    database = "${pgSrv.database}"`,
    '    table = "public.orders"',
    '    primary_keys = ["id"]',
  ].join('\n');
  const file = join(work, `${name}.conf`);
  writeFileSync(
    file,
    `env {\n  job.mode = "STREAMING"\n  parallelism = ${parallelism}\n  checkpoint.interval = 5000\n}\nsource {\n  ${source}\n}\nsink {\n  Jdbc {\n${sink}\n  }\n}\n`,
  );
  return file;
}

function cdcSource(flow: 'Postgres-CDC' | 'MySQL-CDC', srv: TestDatabaseServer, run: string): string {
  const login = `    username = "${srv.user}"\n    password = "${srv.password}"`;
  if (flow === 'Postgres-CDC')
    return `Postgres-CDC {\n    base-url = "jdbc:postgresql://${srv.host}:${srv.port}/src"\n${login}\n    table-names = ["src.public.orders"]\n    slot.name = "${run}"\n  }`;
  return `MySQL-CDC {\n    base-url = "${srv.jdbcUrl}"\n${login}\n    table-names = ["${srv.database}.orders"]\n    server-id = "${5400 + Math.floor(Math.random() * 1000)}"\n  }`;
}

interface Run {
  flow: string;
  parallelism: number;
  seconds: number;
  pgCpu: number;
  myCpu: number;
  tidewayCpu: number;
}

/** Starts the job, waits until the target holds every row, then stops it with SIGINT. */
async function snapshotRun(flow: 'Postgres-CDC' | 'MySQL-CDC', parallelism: number, i: number): Promise<Run> {
  await pgRun(pgSrv, pgSrv.database, 'TRUNCATE orders; CHECKPOINT');
  const name = `${flow === 'Postgres-CDC' ? 'pg' : 'my'}_p${parallelism}_${i}`;
  const conf = jobFile(name, parallelism, cdcSource(flow, flow === 'Postgres-CDC' ? pgSrv : mySrv, name));
  const pg0 = serverCpu(pgPid);
  const my0 = serverCpu(myPid);
  const started = performance.now();
  const child = spawn(process.execPath, [...cliNodeArgs(), 'run', '-c', conf], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  let ended: number | null | undefined;
  exited.then((c) => (ended = c)).catch(() => undefined); // 'close' never rejects
  let tidewayCpu = 0;
  let lastIns = -1;
  let insChanged = performance.now();
  for (;;) {
    if (ended !== undefined) throw new Error(`${name} ended (code ${ended}) before the snapshot was written:\n${stderr.slice(-3000)}`);
    // n_tup_ins is cheap to poll (count(*) over 2M rows is not), but a backend that went idle
    // reports its last inserts to the statistics only up to 10 s later (PostgreSQL 15's
    // PGSTAT_IDLE_INTERVAL); while writing it reports about every second. So once it stops
    // moving for 1.5 s, or reaches the total, the count decides.
    const ins = Number(await pgRun(pgSrv, pgSrv.database, "SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'orders'"));
    if (ins !== lastIns) {
      lastIns = ins;
      insChanged = performance.now();
    }
    const stalled = ins > 0 && performance.now() - insChanged > 1500;
    if ((ins >= ROWS || stalled) && (await pgCount(pgSrv, pgSrv.database)) >= ROWS) break;
    try {
      tidewayCpu = procCpu(child.pid!).own;
    } catch {
      // exiting
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  const run: Run = {
    flow,
    parallelism,
    seconds,
    pgCpu: serverCpu(pgPid) - pg0,
    myCpu: serverCpu(myPid) - my0,
    tidewayCpu: Math.max(tidewayCpu, procCpu(child.pid!).own),
  };
  child.kill('SIGINT');
  await exited;
  if (flow === 'Postgres-CDC') await pgRun(pgSrv, 'src', `SELECT pg_drop_replication_slot('${name}')`);
  console.error(
    `${name}: ${seconds.toFixed(1)} s, PostgreSQL ${run.pgCpu.toFixed(1)} CPU s, MariaDB ${run.myCpu.toFixed(1)} CPU s, Tideway ${run.tidewayCpu.toFixed(1)} CPU s`,
  );
  return run;
}

const runs: Run[] = [];
try {
  console.error(`loading ${ROWS} rows into PostgreSQL and MariaDB ...`);
  await loadOrders(work, pgSrv, mySrv, ROWS);
  await pgRun(pgSrv, 'src', 'ALTER TABLE orders REPLICA IDENTITY DEFAULT');
  for (let i = 0; i < REPEAT; i++) {
    for (const flow of ['Postgres-CDC', 'MySQL-CDC'] as const) {
      for (const p of [1, 2]) runs.push(await snapshotRun(flow, p, i));
    }
  }
} finally {
  await Promise.all([pgSrv.stop(), mySrv.stop()]);
  if (existsSync(work)) rmSync(work, { recursive: true, force: true });
}

const lines: string[] = [];
lines.push(`## CDC snapshot at parallelism 1 and 2 (bench/cdc-snapshot.ts), ${new Date().toISOString().slice(0, 10)}`, '');
lines.push(`Machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`);
lines.push(
  `Data: ${ROWS.toLocaleString('en')} rows of shared/bench orders, snapshot.split.size 8096, into the Jdbc sink on PostgreSQL (upserts by id); servers as in the Jdbc sync benchmark, PostgreSQL with wal_level=logical. Seconds from the start of \`tideway run\` until the target holds every row; median of ${REPEAT}; CPU seconds over the same span.`,
  '',
);
lines.push(
  '| source | parallelism | seconds | rows/s | speed-up vs p1 | PostgreSQL CPU s | MariaDB CPU s | Tideway CPU s | CPU s per wall s (all three) |',
  '|---|---|---|---|---|---|---|---|---|',
);
for (const flow of ['Postgres-CDC', 'MySQL-CDC']) {
  const of = (p: number) => runs.filter((r) => r.flow === flow && r.parallelism === p);
  const base = median(of(1).map((r) => r.seconds));
  for (const p of [1, 2]) {
    const rs = of(p);
    const s = median(rs.map((r) => r.seconds));
    const pgc = median(rs.map((r) => r.pgCpu));
    const myc = median(rs.map((r) => r.myCpu));
    const tw = median(rs.map((r) => r.tidewayCpu));
    lines.push(
      `| ${flow} | ${p} | ${s.toFixed(1)} | ${Math.round(ROWS / s).toLocaleString('en')} | ${(base / s).toFixed(2)}x | ${pgc.toFixed(1)} | ${myc.toFixed(1)} | ${tw.toFixed(1)} | ${((pgc + myc + tw) / s).toFixed(2)} |`,
    );
  }
}
console.log(lines.join('\n'));
