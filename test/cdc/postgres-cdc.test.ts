/**
 * Postgres-CDC into the Jdbc sink (PostgreSQL target, XA, `${table_name}` placeholders) through
 * the real CLI (issue 6): killed mid-stream and mid-snapshot, restored with `run -r`; the target
 * ends equal to the source with no change applied twice (see cdc-scenarios.ts).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import pg from 'pg';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import type { ChangeWriter, RunTransaction } from './change-writer.js';
import { killMidSnapshot, killMidStream, type CdcSource, type CdcTarget } from './cdc-scenarios.js';
import { killStartedJobs, TempDirs } from './cli-job.js';

const dirs = new TempDirs();
const writers: ChangeWriter[] = [];
const clients: pg.Client[] = [];
let server: TestDatabaseServer;
let source: CdcSource;

async function connect(database: string): Promise<pg.Client> {
  const c = new pg.Client({ host: server.host, port: server.port, user: server.user, password: server.password, database });
  await c.connect();
  clients.push(c);
  return c;
}

function transactions(client: pg.Client): RunTransaction {
  return async (statements) => {
    await client.query('BEGIN');
    try {
      for (const s of statements) await client.query(s);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  };
}

async function target(database: string): Promise<CdcTarget> {
  await clients[0].query(`CREATE DATABASE ${database}`);
  return { server, database, client: await connect(database) };
}

beforeAll(async () => {
  server = await startPostgres({ logical: true });
  const admin = await connect('tideway');
  source = {
    plugin: 'Postgres-CDC',
    server,
    tableName: (t) => `tideway.public.${t}`,
    options: (job) => `slot.name = "${job}"`,
    transactions: transactions(await connect('tideway')),
    rows: async (sql) => (await admin.query<Record<string, unknown>>(sql)).rows,
    bulkSql: (n) => [
      'CREATE TABLE bulk (id bigint PRIMARY KEY, payload varchar(100) NOT NULL, version bigint NOT NULL)',
      `INSERT INTO bulk SELECT i, repeat(md5(i::text), 3), i FROM generate_series(1, ${n}) i`,
    ],
  };
}, 60_000);

afterAll(async () => {
  killStartedJobs();
  for (const w of writers) await w.stop().catch(() => undefined);
  for (const c of clients) await c.end().catch(() => undefined);
  await server?.stop();
  dirs.cleanup();
});

describe('Postgres-CDC -> Jdbc (PostgreSQL) through the CLI', () => {
  it('is killed mid-stream and restored: the target equals the source, no change applied twice', async () => {
    // accounts logs old rows with updates and deletes; items and audit only keys (the default).
    await killMidStream(
      dirs,
      { ...source, transactions: withReplicaIdentity(source.transactions) },
      await target('stream_target'),
      writers,
    );
  }, 120_000);

  it('is killed during the initial snapshot of 50,000 rows read by two readers and restored: the target equals the source', async () => {
    await killMidSnapshot(dirs, source, await target('snapshot_target'), { rows: 50_000, parallelism: 2 });
  }, 120_000);
});

/** Gives accounts REPLICA IDENTITY FULL right after it is created. */
function withReplicaIdentity(run: RunTransaction): RunTransaction {
  return async (statements) => {
    await run(statements);
    if (statements.some((s) => s.startsWith('CREATE TABLE accounts '))) await run(['ALTER TABLE accounts REPLICA IDENTITY FULL']);
  };
}
