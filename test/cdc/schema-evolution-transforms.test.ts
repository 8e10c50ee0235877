/**
 * Schema evolution through real transforms and a shuffle, on the real CLI: MySQL-CDC (MariaDB,
 * parallelism 2) -> Copy -> Filter -> Sql (parallelism 1, so rows and schema changes cross a
 * shuffle) -> FieldMapper -> Jdbc PostgreSQL. While rows stream a column is added with a default,
 * one dropped and one widened; each transform re-derives its output, and the target ends with
 * the columns and rows the transforms make of the source, after a SIGKILL and a restore.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { CliJob, killStartedJobs, TempDirs, until, type RunningCli } from './cli-job.js';

const dirs = new TempDirs();
let maria: TestDatabaseServer;
let postgres: TestDatabaseServer;
let src: mysql.Connection;
let dst: pg.Client;

function jobConfig(): string {
  const q = JSON.stringify;
  return `
env {
  job.mode = "STREAMING"
  parallelism = 2
  checkpoint.interval = 2000
}
source {
  MySQL-CDC {
    plugin_output = "items"
    server-id = "7300"
    base-url = ${q(`jdbc:mysql://${maria.host}:${maria.port}/shop`)}
    username = ${q(maria.user)}
    password = ${q(maria.password)}
    table-names = ["shop.items"]
    schema-changes.enabled = true
  }
}
transform {
  Copy {
    plugin_input = "items"
    plugin_output = "copied"
    fields { name_copy = name }
  }
  Filter {
    plugin_input = "copied"
    plugin_output = "filtered"
    exclude_fields = ["secret"]
  }
  Sql {
    plugin_input = "filtered"
    plugin_output = "queried"
    parallelism = 1
    query = "select *, qty * 2 as qty2 from filtered where id <> 13"
  }
  FieldMapper {
    plugin_input = "queried"
    plugin_output = "mapped"
    field_mapper { id = id, name = label, name_copy = name_copy, qty = qty, qty2 = qty2 }
  }
}
sink {
  Jdbc {
    plugin_input = "mapped"
    url = ${q(postgres.jdbcUrl)}
    driver = "org.postgresql.Driver"
    user = ${q(postgres.user)}
    password = ${q(postgres.password)}
    generate_sink_sql = true
    table = "items"
    primary_keys = ["id"]
    batch_size = 10
  }
}
`;
}

const rows = (from: number, n: number, cols: (i: number) => string) =>
  Array.from({ length: n }, (_, k) => `(${cols(from + k)})`).join(', ');

async function targetColumns(): Promise<string[]> {
  const r = await dst.query(
    `SELECT column_name || ':' || data_type AS c FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'items' ORDER BY ordinal_position`,
  );
  return r.rows.map((x: { c: string }) => x.c);
}

/** What the transforms make of the source rows now: id, label, name_copy, qty, qty2. */
async function expectedRows(): Promise<string[]> {
  const [r] = await src.query<(mysql.RowDataPacket & { id: number; name: string; qty: number })[]>(
    'SELECT id, name, qty FROM shop.items WHERE id <> 13 ORDER BY id',
  );
  return r.map((x) => `${x.id}|${x.name}|${x.name}|${x.qty}|${BigInt(x.qty) * 2n}`);
}

async function targetRows(): Promise<string[]> {
  const r = await dst.query<{ id: number; label: string | null; name_copy: string | null; qty: string | null; qty2: string | null }>(
    'SELECT id, label, name_copy, qty::text AS qty, qty2::text AS qty2 FROM items ORDER BY id',
  );
  return r.rows.map((x) => `${x.id}|${x.label}|${x.name_copy}|${x.qty}|${x.qty2}`);
}

async function caughtUp(cli: RunningCli, columns: string[]): Promise<void> {
  await until(
    'the target to hold what the transforms make of the source',
    async () => {
      const cols = await targetColumns().catch(() => []);
      if (JSON.stringify(cols) !== JSON.stringify(columns)) return undefined;
      return JSON.stringify(await targetRows().catch(() => [])) === JSON.stringify(await expectedRows()) ? true : undefined;
    },
    60_000,
    300,
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}: columns ${JSON.stringify(await targetColumns())}\n${cli.stderrTail()}`);
  });
}

beforeAll(async () => {
  [maria, postgres] = await Promise.all([startMariaDb(), startPostgres()]);
  src = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password });
  dst = new pg.Client({ connectionString: postgres.url });
  await dst.connect();
}, 60_000);

afterAll(async () => {
  killStartedJobs();
  await dst?.end().catch(() => undefined);
  await src?.end().catch(() => undefined);
  await Promise.all([maria?.stop(), postgres?.stop()]);
  dirs.cleanup();
});

describe('schema evolution through Copy, Filter, Sql and FieldMapper across a shuffle', () => {
  it('ADD, DROP and MODIFY COLUMN re-derive every transform; killed and restored mid-change', async () => {
    await src.query('CREATE DATABASE shop');
    await src.query(
      'CREATE TABLE shop.items (id int NOT NULL PRIMARY KEY, name varchar(64) NOT NULL, qty int, note varchar(32), secret varchar(8))',
    );
    await src.query(`INSERT INTO shop.items VALUES ${rows(1, 40, (i) => `${i}, 'item ${i}', ${i}, 'n${i}', 's'`)}`);
    const job = new CliJob(dirs.make(), jobConfig());
    let cli = await job.start();
    await job.checkpointsCompleted(cli, 2);
    const before = ['id:integer', 'label:text', 'name_copy:text', 'qty:integer', 'qty2:integer'];
    await caughtUp(cli, before);

    // ADD: the Sql's * takes the new column, FieldMapper does not map it: the target keeps its columns.
    await src.query("ALTER TABLE shop.items ADD COLUMN color varchar(16) NOT NULL DEFAULT 'red'");
    await src.query(`INSERT INTO shop.items VALUES ${rows(41, 10, (i) => `${i}, 'item ${i}', ${i}, 'n${i}', 's', 'blue'`)}`);
    // DROP of a column every transform passes through or drops: rows after it still flow.
    await src.query('ALTER TABLE shop.items DROP COLUMN note');
    await src.query(`INSERT INTO shop.items VALUES ${rows(51, 10, (i) => `${i}, 'item ${i}', ${i}, 's', 'pink'`)}`);
    cli.child.kill('SIGKILL');
    expect((await cli.exit).signal).toBe('SIGKILL');
    await src.query('UPDATE shop.items SET qty = qty + 1000 WHERE id <= 5');
    cli = await job.restore();
    await caughtUp(cli, before);

    // MODIFY: qty widens, and so does the Sql's qty * 2; both reach the target's columns.
    await src.query('ALTER TABLE shop.items MODIFY qty bigint');
    await src.query(`INSERT INTO shop.items VALUES ${rows(61, 5, (i) => `${i}, 'item ${i}', ${i * 10_000_000_000}, 's', 'black'`)}`);
    await caughtUp(cli, ['id:integer', 'label:text', 'name_copy:text', 'qty:bigint', 'qty2:bigint']);
    cli.child.kill('SIGINT');
    const ended = await cli.exit;
    expect(ended.code, ended.stderr).toBe(130);
  }, 240_000);
});
