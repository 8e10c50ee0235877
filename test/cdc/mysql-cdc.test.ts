/**
 * MySQL-CDC on MariaDB into the Jdbc sink (PostgreSQL target, XA, `${table_name}` placeholders)
 * through the real CLI (issue 6): killed mid-stream and mid-snapshot, restored with `run -r`;
 * the target ends equal to the source with no change applied twice (see cdc-scenarios.ts).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import type { ChangeWriter, RunTransaction } from './change-writer.js';
import { killMidSnapshot, killMidStream, type CdcSource, type CdcTarget } from './cdc-scenarios.js';
import { killStartedJobs, TempDirs } from './cli-job.js';

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

  it('is killed during the initial snapshot of 50,000 rows and restored: the target equals the source', async () => {
    await killMidSnapshot(dirs, await source('snapshot_source'), await target('snapshot_target'));
  }, 120_000);
});
