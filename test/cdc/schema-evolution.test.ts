/**
 * Schema evolution through the real CLI, on both CDC sources and into both sink dialects
 * (MySQL-CDC on MariaDB -> PostgreSQL, Postgres-CDC -> PostgreSQL, Postgres-CDC -> MariaDB):
 * while rows stream, a column is added with a default, one is dropped, one renamed and one
 * widened (int to bigint), each with rows written around it. The job is SIGKILLed right after
 * the DROP (before the sink has necessarily applied it) and restored with `run -r`; at the end
 * the target has the source's columns and `tideway verify` reports every row equal.
 */
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startHttpReceiver, type TestDatabaseServer } from '@tideway/testing';
import { cdcServersForFile } from './cdc-servers.js';
import { CliJob, TempDirs, until, type RunningCli } from './cli-job.js';

const dirs = new TempDirs();
let maria: TestDatabaseServer;
let postgres: TestDatabaseServer;
let mroot: mysql.Connection;
let proot: pg.Client;
const clients: pg.Client[] = [];
let serverId = 7100;

type Dialect = 'mysql' | 'postgresql';

/** A database on one of the two servers: run statements, list a table's columns. */
interface Db {
  readonly dialect: Dialect;
  readonly server: TestDatabaseServer;
  readonly name: string;
  run(sql: string): Promise<void>;
  columns(table: string): Promise<string[]>;
}

async function database(dialect: Dialect, name: string): Promise<Db> {
  if (dialect === 'mysql') {
    await mroot.query(`CREATE DATABASE ${name}`);
    return {
      dialect,
      server: maria,
      name,
      run: async (sql) => void (await mroot.query(sql.replaceAll('items', `${name}.items`))),
      columns: async (t) =>
        (
          (
            await mroot.query(
              `SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
              [name, t],
            )
          )[0] as { c: string }[]
        ).map((r) => r.c),
    };
  }
  await proot.query(`CREATE DATABASE ${name}`);
  const c = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, password: postgres.password, database: name });
  await c.connect();
  clients.push(c);
  return {
    dialect,
    server: postgres,
    name,
    run: async (sql) => void (await c.query(sql)),
    columns: async (t) =>
      (
        await c.query(
          `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
          [t],
        )
      ).rows.map((r: { c: string }) => r.c),
  };
}

const jdbcUrl = (db: Db) =>
  db.dialect === 'mysql'
    ? `jdbc:mysql://${maria.host}:${maria.port}/${db.name}`
    : `jdbc:postgresql://${postgres.host}:${postgres.port}/${db.name}`;

function jobConfig(src: Db, dst: Db, slot: string): string {
  const q = JSON.stringify;
  const source =
    src.dialect === 'mysql'
      ? `MySQL-CDC {\n    server-id = "${serverId++}"\n    table-names = [${q(`${src.name}.items`)}]`
      : `Postgres-CDC {\n    slot.name = ${q(slot)}\n    table-names = [${q(`${src.name}.public.items`)}]`;
  return `
env {
  job.mode = "STREAMING"
  parallelism = 2
  checkpoint.interval = 2000
}
source {
  ${source}
    base-url = ${q(jdbcUrl(src))}
    username = ${q(src.server.user)}
    password = ${q(src.server.password)}
    schema-changes.enabled = true
  }
}
sink {
  Jdbc {
    url = ${q(jdbcUrl(dst))}
    driver = ${q(dst.dialect === 'mysql' ? 'org.mariadb.jdbc.Driver' : 'org.postgresql.Driver')}
    user = ${q(dst.server.user)}
    password = ${q(dst.server.password)}
    generate_sink_sql = true
    ${dst.dialect === 'mysql' ? `database = ${q(dst.name)}` : ''}
    table = "items"
    primary_keys = ["id"]
    batch_size = 10
  }
}
`;
}

const rows = (from: number, n: number, cols: (i: number) => string) =>
  Array.from({ length: n }, (_, k) => `(${cols(from + k)})`).join(', ');

/** The fields of a pushed job event this test reads. */
interface PushedEvent {
  eventType: string;
  tableId?: string;
  changes?: string[];
}

async function killed(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGKILL');
  expect((await cli.exit).signal).toBe('SIGKILL');
}

async function evolve(src: Db, dst: Db, slot: string): Promise<void> {
  const pk = src.dialect === 'mysql' ? 'int NOT NULL PRIMARY KEY' : 'int PRIMARY KEY';
  await src.run(`CREATE TABLE items (id ${pk}, name varchar(64) NOT NULL, qty int, note varchar(32))`);
  await src.run(`INSERT INTO items VALUES ${rows(1, 50, (i) => `${i}, 'item ${i}', ${i}, 'n${i}'`)}`);
  const job = new CliJob(dirs.make(), jobConfig(src, dst, slot));
  // The job's schema changes are pushed to a webhook (docs/events.md).
  const events = await startHttpReceiver({ path: '/events' });
  appendFileSync(
    job.engine,
    ['tideway:', '  events:', '    flush-interval: 100', '    webhooks:', `      test: { url: '${events.url}' }`, ''].join('\n'),
  );
  const schemaEvents = () => events.items<PushedEvent>().filter((e) => e.eventType === 'SCHEMA_CHANGE');
  const sameColumns = async (cli: RunningCli) =>
    until(
      `the columns of ${dst.name}.items to be the source's`,
      async () =>
        JSON.stringify(await dst.columns('items').catch(() => [])) === JSON.stringify(await src.columns('items')) ? true : undefined,
      60_000,
      250,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(await dst.columns('items'))}\n${cli.stderrTail()}`);
    });
  let cli = await job.start();
  await job.checkpointsCompleted(cli, 3);
  await src.run('UPDATE items SET qty = qty + 100 WHERE id <= 10');
  await src.run("ALTER TABLE items ADD COLUMN color varchar(16) NOT NULL DEFAULT 'red'");
  await src.run(`INSERT INTO items VALUES ${rows(51, 20, (i) => `${i}, 'item ${i}', ${i}, 'n${i}', 'blue'`)}`);
  await src.run("UPDATE items SET color = 'green' WHERE id BETWEEN 5 AND 15");
  await sameColumns(cli);
  await until('the ADD COLUMN event', () =>
    schemaEvents().some((e) => /items$/.test(e.tableId ?? '') && e.changes?.some((c) => /^ADD COLUMN color /.test(c))) ? true : undefined,
  );

  // Killed with the DROP and the rows after it possibly not applied yet.
  await src.run('ALTER TABLE items DROP COLUMN note');
  await src.run(`INSERT INTO items VALUES ${rows(71, 20, (i) => `${i}, 'item ${i}', ${i}, 'pink'`)}`);
  await killed(cli);
  await src.run('DELETE FROM items WHERE id BETWEEN 20 AND 25');
  cli = await job.restore();
  await sameColumns(cli);

  await src.run(
    src.dialect === 'mysql' ? 'ALTER TABLE items RENAME COLUMN name TO title' : 'ALTER TABLE items RENAME COLUMN name TO title',
  );
  await src.run(`INSERT INTO items VALUES ${rows(91, 10, (i) => `${i}, 'item ${i}', ${i}, 'gray'`)}`);
  await src.run(src.dialect === 'mysql' ? 'ALTER TABLE items MODIFY qty bigint' : 'ALTER TABLE items ALTER COLUMN qty TYPE bigint');
  await src.run(`INSERT INTO items VALUES ${rows(101, 10, (i) => `${i}, 'item ${i}', ${i * 10_000_000_000}, 'black'`)}`);
  await src.run("UPDATE items SET title = 'changed' WHERE id IN (1, 2, 3)");
  await sameColumns(cli);
  await until('the RENAME and MODIFY COLUMN events', () => {
    const changes = schemaEvents().flatMap((e) => e.changes ?? []);
    return changes.includes('RENAME COLUMN name TO title') && changes.some((c) => /^MODIFY COLUMN qty /.test(c)) ? true : undefined;
  });
  await job.verifyEqual();
  cli.child.kill('SIGINT');
  const ended = await cli.exit;
  expect(ended.code, ended.stderr).toBe(130);
  await events.close();
}

cdcServersForFile(dirs, clients, (s) => {
  ({ maria, postgres, mroot, proot } = s);
});

describe('schema evolution: ADD, DROP, RENAME and MODIFY COLUMN while streaming, killed and restored mid-change', () => {
  it('MySQL-CDC (MariaDB) -> Jdbc PostgreSQL', async () => {
    await evolve(await database('mysql', 'evo_src_m'), await database('postgresql', 'evo_dst_mp'), 'unused');
  }, 240_000);

  it('Postgres-CDC -> Jdbc PostgreSQL', async () => {
    await evolve(await database('postgresql', 'evo_src_p'), await database('postgresql', 'evo_dst_pp'), 'evo_pp');
  }, 240_000);

  it('Postgres-CDC -> Jdbc MariaDB', async () => {
    await evolve(await database('postgresql', 'evo_src_p2'), await database('mysql', 'evo_dst_pm'), 'evo_pm');
  }, 240_000);
});
