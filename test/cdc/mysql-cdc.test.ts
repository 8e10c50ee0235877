/**
 * MySQL-CDC on MariaDB into the Jdbc sink (PostgreSQL target, XA, `${table_name}` placeholders)
 * through the real CLI (issue 6): killed mid-stream and mid-snapshot, restored with `run -r`;
 * the target ends equal to the source with no change applied twice (see cdc-scenarios.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { ChangeWriter, SOURCE_TABLES, type RunTransaction } from './change-writer.js';
import { cdcJobConfig } from './cdc-job-config.js';
import { killMidSnapshot, killMidStream, type CdcSource, type CdcTarget } from './cdc-scenarios.js';
import { CliJob, killStartedJobs, TempDirs, until } from './cli-job.js';
import { tableLines } from './write-log.js';

const dirs = new TempDirs();
const writers: ChangeWriter[] = [];
const connections: Array<{ end(): Promise<void> }> = [];
let maria: TestDatabaseServer;
let postgres: TestDatabaseServer;
let admin: pg.Client;
let serverId = 5400;

async function connectMaria(database: string): Promise<mysql.Connection> {
  const c = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password, database });
  connections.push(c);
  return c;
}

function transactions(conn: mysql.Connection): RunTransaction {
  return async (statements) => {
    await conn.query('BEGIN');
    try {
      for (const s of statements) await conn.query(s);
      await conn.query('COMMIT');
    } catch (err) {
      await conn.query('ROLLBACK');
      throw err;
    }
  };
}

/** A MariaDB database as the CDC source (one per test, so table names repeat). */
async function source(database: string): Promise<CdcSource> {
  const root = await connectMaria('tideway');
  await root.query(`CREATE DATABASE ${database}`);
  const conn = await connectMaria(database);
  const reader = await connectMaria(database);
  return {
    plugin: 'MySQL-CDC',
    server: { ...maria, database, jdbcUrl: `jdbc:mysql://${maria.host}:${maria.port}/${database}` },
    tableName: (t) => `${database}.${t}`,
    options: () => `server-id = "${serverId++}"`,
    transactions: transactions(conn),
    rows: async (sql) => (await reader.query(sql))[0] as Record<string, unknown>[],
    bulkSql: (n) => [
      'CREATE TABLE bulk (id bigint PRIMARY KEY, payload varchar(100) NOT NULL, version bigint NOT NULL)',
      // MariaDB's Sequence engine: seq_1_to_N is a table of 1..N.
      `INSERT INTO bulk SELECT seq, repeat(md5(seq), 3), seq FROM seq_1_to_${n}`,
    ],
  };
}

async function target(database: string): Promise<CdcTarget> {
  await admin.query(`CREATE DATABASE ${database}`);
  const client = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, password: postgres.password, database });
  await client.connect();
  connections.push(client);
  return { server: postgres, database, client };
}

beforeAll(async () => {
  [maria, postgres] = await Promise.all([startMariaDb(), startPostgres()]);
  admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  connections.push(admin);
}, 60_000);

afterAll(async () => {
  killStartedJobs();
  for (const w of writers) await w.stop().catch(() => undefined);
  for (const c of connections) await c.end().catch(() => undefined);
  await Promise.all([maria?.stop(), postgres?.stop()]);
  dirs.cleanup();
});

describe('MySQL-CDC (MariaDB) -> Jdbc (PostgreSQL) through the CLI', () => {
  it('is killed mid-stream and restored: the target equals the source, no change applied twice', async () => {
    await killMidStream(dirs, await source('stream_source'), await target('stream_target'), writers);
  }, 120_000);

  it('is killed during the initial snapshot of 50,000 rows read by two readers and restored: the target equals the source', async () => {
    await killMidSnapshot(dirs, await source('snapshot_source'), await target('snapshot_target'), { rows: 50_000, parallelism: 2 });
  }, 120_000);

  it('syncs three tables into MariaDB tables it creates, named by ${database_name} and ${table_name}, with metrics per table', async () => {
    const src = await source('multi');
    for (const ddl of Object.values(SOURCE_TABLES)) await src.transactions([ddl]);
    const writer = new ChangeWriter(src.transactions, 11);
    writers.push(writer);
    await writer.seed();
    await writer.burst(100);
    const tables = ['accounts', 'items', 'audit'].map(src.tableName);
    const sink = `Jdbc {
    plugin_input = "cdc"
    url = "jdbc:mariadb://${maria.host}:${maria.port}/tideway"
    driver = "org.mariadb.jdbc.Driver"
    user = "${maria.user}"
    password = "${maria.password}"
    generate_sink_sql = true
    database = "\${database_name}_copy"
    table = "\${table_name}"
    primary_keys = ["\${primary_key}"]
    schema_save_mode = "CREATE_SCHEMA_WHEN_NOT_EXIST"
  }`;
    const job = new CliJob(
      dirs.make(),
      cdcJobConfig({
        plugin: 'MySQL-CDC',
        source: src.server,
        tables,
        sourceExtra: src.options('multi'),
        target: maria,
        targetDatabase: 'multi_copy',
        sink,
      }),
    );
    const cli = await job.start();
    try {
      await job.checkpointsCompleted(cli, 1);
      await writer.burst(100);
      const copy = await connectMaria('tideway');
      const copyRows = async (sql: string) =>
        (await copy.query(sql.replace(/FROM (\w+)/, 'FROM multi_copy.$1')))[0] as Record<string, unknown>[];
      for (const t of ['accounts', 'items', 'audit'] as const) {
        const want = await tableLines(src.rows, t);
        await until(
          `multi_copy.${t} equal to multi.${t}`,
          async () => ((await tableLines(copyRows, t).catch(() => [])).join('\n') === want.join('\n') ? true : undefined),
          60_000,
        ).catch(() => undefined);
        expect(await tableLines(copyRows, t), `multi_copy.${t}`).toEqual(want);
      }
      await job.verifyEqual();
      const metrics = await job.metrics(cli);
      const received = metrics?.TableSourceReceivedCount as Record<string, number>;
      const written = metrics?.TableSinkWriteCount as Record<string, number>;
      expect(Object.keys(received).sort()).toEqual([...tables].sort());
      const audit = (await src.rows('SELECT count(*) AS n FROM audit'))[0].n;
      // audit is insert-only: every row is one change read and one row written.
      expect(received['multi.audit']).toBe(Number(audit));
      expect(written['multi.audit']).toBe(Number(audit));
      for (const t of tables) expect(written[t], t).toBe(received[t]);
    } finally {
      cli.child.kill('SIGINT');
      const ended = await cli.exit;
      expect(ended.code, ended.stderr).toBe(130);
    }
  }, 120_000);
});
