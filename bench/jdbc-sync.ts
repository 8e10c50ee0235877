/**
 * Database sync benchmark (issue 6), in one run on the same data and servers:
 * - PostgreSQL -> PostgreSQL: `tideway run` (Jdbc source -> Jdbc sink with COPY) against the
 *   psql `\copy` out | `\copy` in pipe;
 * - MariaDB -> PostgreSQL: `tideway run` against pgloader;
 * each at 500,000 and 2,000,000 rows of shared/bench's `orders` table, with the peak RSS of
 * every command (/usr/bin/time -v: the Tideway process includes its worker threads). Each size
 * runs the four commands BENCH_REPEAT times (default 3) in turn, so machine noise spreads over
 * all of them; medians are reported. Private servers tuned as stack.md's setup. Prints a
 * Markdown section for bench/RESULTS.md.
 *
 * usage: pnpm bench:jdbc [rows ...]   (builds first, so `tideway run` is the compiled CLI)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliNodeArgs } from '../scripts/cli-entry.mjs';
import {
  jobConf as writeJob,
  loadOrders,
  mariaConnection,
  median,
  pgConnection,
  pgCount,
  pgOrdersSink,
  pgRun,
  psqlCopyPipe,
  psqlEnv,
  repo,
  startOrdersServers,
  timed,
  type Measured,
} from './orders-servers.js';
import { machineLine } from './machine.js';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const ROWS = sizes.length > 0 ? sizes : [500_000, 2_000_000];
const work = mkdtempSync(join(tmpdir(), 'tideway-bench-jdbc-'));
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const jobConf = (name: string, source: string, sink: string) => writeJob(work, name, source, sink);

const { pgSrv, mySrv } = await startOrdersServers();
const cli = [...cliNodeArgs(), 'run', '-c'];
const TIDEWAY = 'tideway run (Jdbc -> Jdbc, COPY)';
const results: Array<{ rows: number; tool: string; flow: string; m: Measured; all: number[] }> = [];

try {
  const pgSink = pgOrdersSink(pgSrv);
  const pgToPg = jobConf('pg-to-pg', [...pgConnection(pgSrv, 'src'), '    table_path = "src.public.orders"'].join('\n'), pgSink);
  const mariaToPg = jobConf('maria-to-pg', [...mariaConnection(mySrv), `    table_path = "${mySrv.database}.orders"`].join('\n'), pgSink);
  const pgloaderFile = join(work, 'maria-to-pg.load');
  writeFileSync(
    pgloaderFile,
    [
      'LOAD DATABASE',
      `  FROM mysql://${mySrv.user}:${mySrv.password}@${mySrv.host}:${mySrv.port}/${mySrv.database}`,
      `  INTO postgresql://${pgSrv.user}:${pgSrv.password}@${pgSrv.host}:${pgSrv.port}/${pgSrv.database}`,
      'WITH data only, truncate',
      "INCLUDING ONLY TABLE NAMES MATCHING 'orders'",
      `ALTER SCHEMA '${mySrv.database}' RENAME TO 'public';`,
      '',
    ].join('\n'),
  );
  const pgEnv = psqlEnv(pgSrv);
  const target = async (rows: number, flow: string) => {
    const n = await pgCount(pgSrv, pgSrv.database);
    if (n !== rows) throw new Error(`${flow}: the target has ${n} rows, not ${rows}`);
    await pgRun(pgSrv, pgSrv.database, 'TRUNCATE orders; CHECKPOINT');
  };

  for (const rows of ROWS) {
    console.error(`loading ${rows} rows into PostgreSQL and MariaDB ...`);
    await loadOrders(work, pgSrv, mySrv, rows);

    const commands: Array<{ flow: string; tool: string; run: () => Promise<Measured> }> = [
      {
        flow: 'PG->PG',
        tool: 'psql \\copy out, piped to psql \\copy in',
        run: () => timed('psql pipe', 'bash', psqlCopyPipe('src', pgSrv.database), pgEnv),
      },
      { flow: 'PG->PG', tool: TIDEWAY, run: () => timed('tideway PG->PG', process.execPath, [...cli, pgToPg]) },
      {
        flow: 'MariaDB->PG',
        tool: 'pgloader --dynamic-space-size 8192 (data only)',
        run: () => timed('pgloader', 'pgloader', ['--dynamic-space-size', '8192', pgloaderFile]),
      },
      { flow: 'MariaDB->PG', tool: TIDEWAY, run: () => timed('tideway MariaDB->PG', process.execPath, [...cli, mariaToPg]) },
    ];
    const runs = commands.map(() => [] as Measured[]);
    for (let rep = 1; rep <= REPEAT; rep++) {
      for (const [i, c] of commands.entries()) {
        console.error(`${rows} rows, run ${rep}/${REPEAT}: ${c.flow} ${c.tool} ...`);
        runs[i].push(await c.run());
        await target(rows, `${c.flow} ${c.tool}`);
      }
    }
    for (const [i, c] of commands.entries()) {
      const ms = runs[i];
      results.push({
        rows,
        tool: c.tool,
        flow: c.flow,
        m: { seconds: median(ms.map((m) => m.seconds)), peakRssMb: Math.max(...ms.map((m) => m.peakRssMb)) },
        all: ms.map((m) => m.seconds),
      });
    }
  }
} finally {
  await Promise.all([pgSrv.stop(), mySrv.stop()]);
}

const rate = (r: { rows: number; m: Measured }) => r.rows / r.m.seconds;
const find = (rows: number, flow: string, tool: RegExp) => results.find((r) => r.rows === rows && r.flow === flow && tool.test(r.tool))!;
const lines: string[] = [];
lines.push(`## Jdbc sync (bench/jdbc-sync.ts), ${new Date().toISOString().slice(0, 10)}`, '');
lines.push(machineLine({ postgres: true }));
lines.push(
  'Servers: private, on 127.0.0.1 (libs/testing; fsync off), PostgreSQL shared_buffers=1GB, max_wal_size=8GB; MariaDB innodb_buffer_pool_size=1G.',
);
lines.push(
  `Data: shared/bench orders (12 columns, primary key on the target). Wall time of each whole command (Tideway: CLI start, local cluster, job, exit), median of ${REPEAT} runs taken in turn; peak RSS (the largest of the runs) from /usr/bin/time -v. Tideway ran as \`${cli
    .slice(0, -2)
    .map((a) => a.replace(repo + '/', ''))
    .join(' ')}\`.`,
  '',
);
lines.push('| rows | flow | tool | seconds (median) | every run | rows/s | peak RSS MB |', '|---|---|---|---|---|---|---|');
for (const r of results)
  lines.push(
    `| ${r.rows.toLocaleString('en')} | ${r.flow} | ${r.tool} | ${r.m.seconds.toFixed(1)} | ${r.all.map((x) => x.toFixed(1)).join(', ')} | ${Math.round(rate(r)).toLocaleString('en')} | ${Math.round(r.m.peakRssMb)} |`,
  );
lines.push('');
for (const rows of ROWS) {
  const pgRatio = rate(find(rows, 'PG->PG', /tideway/)) / rate(find(rows, 'PG->PG', /psql/));
  const myRatio = rate(find(rows, 'MariaDB->PG', /tideway/)) / rate(find(rows, 'MariaDB->PG', /pgloader/));
  lines.push(
    `- ${rows.toLocaleString('en')} rows: PG->PG at ${(pgRatio * 100).toFixed(0)}% of the psql pipe (target >= 70%); MariaDB->PG at ${myRatio.toFixed(2)}x pgloader (target >= 1.5x).`,
  );
}
console.log(lines.join('\n'));
rmSync(work, { recursive: true, force: true });
