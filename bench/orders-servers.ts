/**
 * What the database benchmarks share: private PostgreSQL and MariaDB servers tuned as
 * stack.md's setup, shared/bench's `orders` table loaded into both, commands timed under
 * /usr/bin/time -v, and Jdbc job files.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const shared = process.env.TIDEWAY_SHARED_DIR ?? resolve(repo, '..', 'shared');

/** Wall seconds and peak RSS of one command. */
export interface Measured {
  seconds: number;
  peakRssMb: number;
}

/** Runs a command under /usr/bin/time -v; returns wall seconds and peak RSS (rejects on a non-zero exit unless `okCodes` has it). */
export function timed(
  label: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  okCodes: readonly number[] = [0],
): Promise<Measured & { stdout: string }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-v', command, ...args], {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (!okCodes.includes(code ?? -1))
        return reject(new Error(`${label} exited ${code}\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`));
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolvePromise({ seconds, peakRssMb: rss ? Number(rss[1]) / 1024 : NaN, stdout });
    });
  });
}

export function psqlEnv(s: TestDatabaseServer): NodeJS.ProcessEnv {
  return { PGHOST: s.host, PGPORT: String(s.port), PGUSER: s.user, PGPASSWORD: s.password };
}

/** Runs SQL on one database of the PostgreSQL server; the first value of the last row, as text. */
export async function pgRun(s: TestDatabaseServer, db: string, sql: string): Promise<string | undefined> {
  const c = new pg.Client({ host: s.host, port: s.port, user: s.user, password: s.password, database: db });
  await c.connect();
  try {
    // The statements run here answer scalars (counts, settings) or nothing.
    type Scalars = (string | number | boolean | null)[];
    const res = await c.query<Scalars>({ text: sql, rowMode: 'array' });
    // A multi-statement string returns one result per statement (pg's types say one).
    const results: readonly pg.QueryArrayResult<Scalars>[] = Array.isArray(res) ? res : [res];
    const v = results.at(-1)?.rows.at(-1)?.[0];
    return v === undefined || v === null ? undefined : String(v);
  } finally {
    await c.end();
  }
}

export async function pgCount(s: TestDatabaseServer, db: string): Promise<number> {
  return Number(await pgRun(s, db, 'SELECT count(*) FROM orders'));
}

/** A batch Jdbc -> Jdbc job file with the given source and sink option lines. */
export function jobConf(work: string, name: string, source: string, sink: string): string {
  const file = join(work, `${name}.conf`);
  writeFileSync(
    file,
    `env {\n  job.mode = "BATCH"\n  parallelism = 1\n}\nsource {\n  Jdbc {\n${source}\n  }\n}\nsink {\n  Jdbc {\n${sink}\n  }\n}\n`,
  );
  return file;
}

/** The two servers, with database `src` on PostgreSQL for the source side (`logical`: wal_level=logical, for CDC). */
export async function startOrdersServers(
  opts: { logical?: boolean } = {},
): Promise<{ pgSrv: TestDatabaseServer; mySrv: TestDatabaseServer }> {
  const pgSrv = await startPostgres({ logical: opts.logical, settings: { shared_buffers: '1GB', max_wal_size: '8GB' } });
  const mySrv = await startMariaDb({ settings: { 'innodb-buffer-pool-size': '1G' } });
  await pgRun(pgSrv, pgSrv.database, 'CREATE DATABASE src');
  return { pgSrv, mySrv };
}

/** Option lines of a Jdbc block on PostgreSQL database `db`. */
export function pgConnection(s: TestDatabaseServer, db: string): string[] {
  return [
    `    url = "jdbc:postgresql://${s.host}:${s.port}/${db}"`,
    '    driver = "org.postgresql.Driver"',
    `    user = "${s.user}"`,
    `    password = "${s.password}"`,
  ];
}

/**
 * Option lines of a Jdbc sink writing `public.orders` of the PostgreSQL server's own database
 * with COPY; `query` goes after the URL (e.g. `?sslmode=require`).
 */
export function pgOrdersSink(s: TestDatabaseServer, query = ''): string {
  return [
    `    url = "${s.jdbcUrl}${query}"`,
    '    driver = "org.postgresql.Driver"',
    `    user = "${s.user}"`,
    `    password = "${s.password}"`,
    '    generate_sink_sql = true',
    `    database = "${s.database}"`,
    '    table = "public.orders"',
    '    use_copy_statement = true',
  ].join('\n');
}

/** Option lines of a Jdbc block on the MariaDB server's database. */
export function mariaConnection(s: TestDatabaseServer): string[] {
  return [
    `    url = "${s.jdbcUrl.replace('jdbc:mysql:', 'jdbc:mariadb:')}"`,
    '    driver = "org.mariadb.jdbc.Driver"',
    `    user = "${s.user}"`,
    `    password = "${s.password}"`,
  ];
}

/**
 * Loads `rows` orders into PostgreSQL `src` and MariaDB (when given), and an empty `orders` into the
 * PostgreSQL server's own database (the target). Older copies of shared/bench/orders-postgres.sql
 * computed (g * 7919) in integer, which overflows past 271,000 rows; such a copy is loaded with
 * the bigint product (the intended data, as MariaDB's bigint seq gives).
 */
export async function loadOrders(
  work: string,
  pgSrv: TestDatabaseServer,
  mySrv: TestDatabaseServer | undefined,
  rows: number,
): Promise<void> {
  const ordersPg = join(work, 'orders-postgres.sql');
  const sharedSql = readFileSync(join(shared, 'bench', 'orders-postgres.sql'), 'utf8');
  writeFileSync(ordersPg, sharedSql.replace('(g * 7919)', '(g::bigint * 7919)'));
  const env = { ...process.env, ...psqlEnv(pgSrv) };
  execFileSync('psql', ['-q', '-v', `rows=${rows}`, '-v', 'ON_ERROR_STOP=1', '-f', ordersPg, 'src'], { env });
  execFileSync('psql', ['-q', '-v', 'rows=0', '-v', 'ON_ERROR_STOP=1', '-f', ordersPg, pgSrv.database], { env });
  if (mySrv) loadOrdersMariaDb(mySrv, rows);
  await pgRun(pgSrv, 'src', 'CHECKPOINT');
}

/** Loads `rows` orders (shared/bench/orders-mariadb.sql) into the MariaDB server's database. */
export function loadOrdersMariaDb(mySrv: TestDatabaseServer, rows: number): void {
  execFileSync('mariadb', [
    '-h',
    mySrv.host,
    '-P',
    String(mySrv.port),
    '-u',
    mySrv.user,
    `-p${mySrv.password}`,
    '-e',
    `SET @rows=${rows}; SOURCE ${join(shared, 'bench', 'orders-mariadb.sql')};`,
    mySrv.database,
  ]);
}

/**
 * The machine's limit for PostgreSQL -> PostgreSQL: psql's `\copy` out of `srcDb`, piped into
 * psql's `\copy` into `dstDb` (table `table` on both sides), as `bash` arguments; run it with
 * psqlEnv(s).
 */
export function psqlCopyPipe(srcDb: string, dstDb: string, table = 'orders'): string[] {
  const pipe = `psql -q -d ${srcDb} -c "\\copy ${table} to stdout" | psql -q -d ${dstDb} -c "\\copy ${table} from stdin"`;
  return ['-o', 'pipefail', '-c', pipe];
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
