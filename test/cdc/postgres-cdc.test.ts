/**
 * Postgres-CDC into the Jdbc sink (PostgreSQL, XA) through the real CLI (issue 6):
 * - a stream of inserts, updates and deletes on three tables while the CLI is SIGKILLed after
 *   a checkpoint and restored with `run -r`: the target ends equal to the source, no change is
 *   applied twice (write_log), per-table metrics are keyed by table, SIGINT exits 130;
 * - a kill during the initial snapshot of a 50,000-row table read in 1,000-row chunks: the
 *   restored job still leaves the target equal to the source, every row written once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { ChangeWriter, SOURCE_TABLES, type RunTransaction } from './change-writer.js';
import { cdcJobConfig } from './cdc-job-config.js';
import { CliJob, killStartedJobs, TempDirs, until } from './cli-job.js';
import { checkWriteLog, createLoggedTargets, tableLines } from './write-log.js';

const dirs = new TempDirs();
let server: TestDatabaseServer;
const clients: pg.Client[] = [];

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

const rowsOf = (c: pg.Client) => async (sql: string) => (await c.query(sql)).rows as Record<string, unknown>[];

beforeAll(async () => {
  server = await startPostgres({ logical: true });
  const admin = await connect('tideway');
  await admin.query('CREATE DATABASE stream_target');
  await admin.query('CREATE DATABASE snapshot_target');
}, 60_000);

const writers: ChangeWriter[] = [];

afterAll(async () => {
  killStartedJobs();
  for (const w of writers) await w.stop().catch(() => undefined);
  for (const c of clients) await c.end().catch(() => undefined);
  await server?.stop();
  dirs.cleanup();
});

describe('Postgres-CDC -> Jdbc (PostgreSQL) through the CLI', () => {
  it('is killed mid-stream and restored: the target equals the source, no change applied twice', async () => {
    const source = await connect('tideway');
    const target = await connect('stream_target');
    for (const ddl of Object.values(SOURCE_TABLES)) await source.query(ddl);
    // accounts sends old rows with updates and deletes; items and audit only keys (the default).
    await source.query('ALTER TABLE accounts REPLICA IDENTITY FULL');
    await createLoggedTargets(target);
    const writer = new ChangeWriter(transactions(await connect('tideway')));
    writers.push(writer);
    await writer.seed();

    const tables = ['tideway.public.accounts', 'tideway.public.items', 'tideway.public.audit'];
    const job = new CliJob(dirs.make(), cdcJobConfig({ plugin: 'Postgres-CDC', source: server, tables, sourceExtra: 'slot.name = "stream"', target: server, targetDatabase: 'stream_target' }));
    const first = await job.start();
    writer.start(20);
    await job.checkpointsCompleted(first, 2);
    await until('changes committed to the target', async () => ((await target.query('SELECT count(*)::int AS n FROM write_log')).rows[0].n > 40 ? true : undefined));
    first.child.kill('SIGKILL');
    const killed = await first.exit;
    expect(killed.signal).toBe('SIGKILL');
    const atKill = writer.transactions;

    const second = await job.restore();
    try {
      await job.checkpointsCompleted(second, 2);
      await writer.stop();
      expect(writer.transactions - atKill, 'transactions while the job was down or restored').toBeGreaterThan(10);
      for (const t of ['accounts', 'items', 'audit'] as const) {
        const want = await tableLines(rowsOf(source), t);
        await until(`target ${t} equal to the source`, async () => ((await tableLines(rowsOf(target), t)).join('\n') === want.join('\n') ? true : undefined), 60_000);
        expect(await tableLines(rowsOf(target), t)).toEqual(want);
      }
      const log = await checkWriteLog(target);
      console.log(`Postgres-CDC stream: ${writer.transactions} transactions, ${writer.changes} changes, ${log.writes} target writes, ${log.repeated.length} repeated`);
      expect(log.repeated).toEqual([]);
      expect(log.auditRewrites).toEqual([]);

      const metrics = await job.metrics(second);
      const received = metrics?.TableSourceReceivedCount as Record<string, number>;
      const written = metrics?.TableSinkWriteCount as Record<string, number>;
      for (const t of tables) {
        expect(received[t], `TableSourceReceivedCount of ${t}: ${JSON.stringify(metrics)}`).toBeGreaterThan(0);
        expect(written[t], `TableSinkWriteCount of ${t}: ${JSON.stringify(metrics)}`).toBeGreaterThan(0);
      }
    } finally {
      second.child.kill('SIGINT');
    }
    const ended = await second.exit;
    expect(ended.code, ended.stderr).toBe(130);
  }, 120_000);

  it('is killed during the initial snapshot of 50,000 rows and restored: the target equals the source', async () => {
    const source = await connect('tideway');
    const target = await connect('snapshot_target');
    const ddl = 'CREATE TABLE bulk (id bigint PRIMARY KEY, payload text NOT NULL, version bigint NOT NULL)';
    await source.query(ddl);
    await source.query(`INSERT INTO bulk SELECT i, repeat(md5(i::text), 3), i FROM generate_series(1, 50000) i`);
    await createLoggedTargets(target, []);
    await target.query(ddl);
    await target.query(`CREATE TRIGGER bulk_log AFTER INSERT OR UPDATE OR DELETE ON bulk FOR EACH ROW EXECUTE FUNCTION log_write('id')`);

    const job = new CliJob(
      dirs.make(),
      cdcJobConfig({ plugin: 'Postgres-CDC', source: server, tables: ['tideway.public.bulk'], sourceExtra: 'slot.name = "snapshot"\n    snapshot.split.size = 1000', target: server, targetDatabase: 'snapshot_target' }),
    );
    // Updates while the snapshot runs: some hit chunks already read, some chunks still to come.
    let version = 50_000;
    let updating = true;
    const updater = (async () => {
      const c = await connect('tideway');
      while (updating) {
        const id = 1 + ((version * 7919) % 50_000);
        await c.query(`UPDATE bulk SET payload = 'changed', version = ${++version} WHERE id = ${id}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    const first = await job.start();
    await job.checkpointsCompleted(first, 1);
    const atKill = await until('the first snapshot rows committed', async () => {
      const n = (await target.query('SELECT count(*)::int AS n FROM bulk')).rows[0].n as number;
      return n > 0 ? n : undefined;
    });
    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');
    console.log(`Postgres-CDC snapshot: killed with ${atKill} of 50000 rows in the target`);
    expect(atKill, 'the kill came after the snapshot ended').toBeLessThan(50_000);

    const second = await job.restore();
    try {
      await job.checkpointsCompleted(second, 1);
      updating = false;
      await updater;
      const want = await rowsOf(source)('SELECT count(*)::int AS n, md5(string_agg(id || payload || version, \',\' ORDER BY id)) AS h FROM bulk');
      await until(
        'target bulk equal to the source',
        async () => {
          const got = await rowsOf(target)('SELECT count(*)::int AS n, md5(string_agg(id || payload || version, \',\' ORDER BY id)) AS h FROM bulk');
          return JSON.stringify(got) === JSON.stringify(want) ? true : undefined;
        },
        60_000,
      );
      const log = await checkWriteLog(target);
      console.log(`Postgres-CDC snapshot: ${version - 50_000} updates during the run, ${log.writes} target writes, ${log.repeated.length} repeated`);
      expect(log.repeated).toEqual([]);
    } finally {
      updating = false;
      second.child.kill('SIGINT');
    }
    const ended = await second.exit;
    expect(ended.code, ended.stderr).toBe(130);
  }, 120_000);
});
