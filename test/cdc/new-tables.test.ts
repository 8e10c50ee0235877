/**
 * Tables created while a CDC job runs (issue 14): MySQL-CDC (MariaDB) and Postgres-CDC with
 * table-pattern into the exactly-once Jdbc sink (PostgreSQL, `${table_name}`, target tables
 * created by schema_save_mode), through the real CLI. A matching table is created mid-stream
 * with rows inserted at once (the race between CREATE TABLE and the first rows), then updated
 * and deleted; the job is SIGKILLed, a second matching table is created and written while it is
 * down, and the job is restored with `run -r`. At the end `tideway verify` reports every
 * captured table equal, and the tables the pattern does not match were not copied.
 */
import { expect } from 'vitest';
import { cdcJobConfig } from './cdc-job-config.js';
import { CliJob, TempDirs, until, type RunningCli } from './cli-job.js';
import { describeBothSources, type BothSourcesContext, type SourceDatabase } from './source-databases.js';

const dirs = new TempDirs();

const values = (from: number, n: number) => Array.from({ length: n }, (_, k) => `(${from + k}, 'v${from + k}')`).join(', ');

async function killed(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGKILL');
  expect((await cli.exit).signal).toBe('SIGKILL');
}

async function newTables(src: SourceDatabase, { servers, target, targetDatabase: targetDb }: BothSourcesContext): Promise<void> {
  const pk = src.plugin === 'MySQL-CDC' ? 'int NOT NULL PRIMARY KEY' : 'int PRIMARY KEY';
  await src.run(`CREATE TABLE items_1 (id ${pk}, v varchar(32))`);
  await src.run(`CREATE TABLE other_1 (id ${pk}, v varchar(32))`);
  await src.run(`INSERT INTO items_1 VALUES ${values(1, 20)}`);
  await src.run(`INSERT INTO other_1 VALUES ${values(1, 5)}`);
  const job = new CliJob(
    dirs.make(),
    cdcJobConfig({
      plugin: src.plugin,
      source: src.server,
      tables: [],
      tablePattern: src.pattern('items_[0-9]+'),
      sourceExtra: src.extra,
      target: servers.postgres,
      targetDatabase: targetDb,
      schemaSaveMode: 'CREATE_SCHEMA_WHEN_NOT_EXIST',
    }),
  );
  const count = async (table: string) =>
    Number((await target.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`).catch(() => ({ rows: [{ n: -1 }] }))).rows[0].n);
  const rowsIn = (cli: RunningCli, table: string, n: number) =>
    until(`${n} rows in ${targetDb}.${table}`, async () => ((await count(table)) === n ? true : undefined), 60_000, 200).catch(
      async (err: Error) => {
        throw new Error(`${err.message} (${await count(table)}):\n${cli.stderrTail()}`);
      },
    );

  let cli = await job.start();
  await rowsIn(cli, 'items_1', 20);
  await job.checkpointsCompleted(cli, 2);
  // Created and written at once: the first rows must not be lost to the race with the CREATE.
  await src.run(`CREATE TABLE items_2 (id ${pk}, v varchar(32))`);
  await src.run(`INSERT INTO items_2 VALUES ${values(1, 30)}`);
  await src.run(`CREATE TABLE other_2 (id ${pk}, v varchar(32))`);
  await src.run(`INSERT INTO other_2 VALUES ${values(1, 5)}`);
  await src.run(`INSERT INTO items_1 VALUES ${values(21, 5)}`);
  await rowsIn(cli, 'items_2', 30);
  await src.run(`UPDATE items_2 SET v = 'changed' WHERE id <= 10`);
  await src.run(`DELETE FROM items_2 WHERE id > 25`);
  await src.run(`INSERT INTO items_2 VALUES ${values(31, 10)}`);
  await killed(cli);

  // While the job is down: more changes, and another matching table.
  await src.run(`DELETE FROM items_2 WHERE id BETWEEN 11 AND 15`);
  await src.run(`CREATE TABLE items_3 (id ${pk}, v varchar(32))`);
  await src.run(`INSERT INTO items_3 VALUES ${values(1, 8)}`);
  cli = await job.restore();
  await rowsIn(cli, 'items_3', 8);
  await src.run(`UPDATE items_3 SET v = 'again' WHERE id < 4`);
  await src.run(`INSERT INTO items_2 VALUES ${values(41, 3)}`);
  await job.verifyEqual();
  const copied = (await target.query(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`))
    .rows;
  expect(copied.map((r: { t: string }) => r.t)).toEqual(['items_1', 'items_2', 'items_3']);
  expect(await count('items_2')).toBe(33);
  cli.child.kill('SIGINT');
  const ended = await cli.exit;
  expect(ended.code, ended.stderr).toBe(130);
}

describeBothSources({
  title: 'tables created while the job runs and matching table-pattern are captured, across a kill and restore',
  prefix: 'nt',
  serverId: 7300,
  dirs,
  timeoutMs: 180_000,
  scenario: newTables,
});
