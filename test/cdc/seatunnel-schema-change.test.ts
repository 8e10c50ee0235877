/**
 * SeaTunnel's schema-evolution CDC configs (seatunnel-configs/, copied unchanged from
 * apache/seatunnel connector-cdc-mysql-e2e) through `tideway run`, against a private MariaDB
 * prepared as MysqlCDCWithSchemaChangeIT prepares its container: database `shop`, users
 * st_user_source / st_user_sink (password mysqlpw), `products` and the first config's sink
 * table. The one rewrite puts the server's address in place of `mysql_cdc_e2e:3306`. While
 * the job streams, the test makes the IT's kinds of changes, each with rows around it: two
 * columns added in one statement with defaults, two more (one defaulting to the current time),
 * a column of another table added, one column dropped, two dropped in one statement, one
 * renamed by CHANGE, one widened by MODIFY; the first config is savepointed and restored
 * between them as the IT does. After each step the sink table DESCRIBEs like the source and
 * holds the same rows (the IT's checks: the current-time column of rows written before its
 * ALTER may differ by the moment the sink applied it).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import { startMariaDb, type TestDatabaseServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { CliJob, killStartedJobs, TempDirs, until, type RunningCli } from './cli-job.js';

const here = dirname(fileURLToPath(import.meta.url));
const dirs = new TempDirs();
let maria: TestDatabaseServer;
let root: mysql.Connection;

const PRODUCTS = `CREATE TABLE shop.products (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(255) NOT NULL DEFAULT 'SeaTunnel',
  description VARCHAR(512),
  weight FLOAT
)`;

function config(file: string): string {
  return readFileSync(join(here, 'seatunnel-configs', file), 'utf8').replaceAll('mysql_cdc_e2e:3306', `127.0.0.1:${maria.port}`);
}

async function query(sql: string): Promise<unknown[][]> {
  return (await root.query({ sql, rowsAsArray: true }))[0] as unknown[][];
}

async function run(statements: string[]): Promise<void> {
  for (const s of statements) await root.query(s);
}

/** DESC of a table: name, type, null, key, default, extra. */
const desc = (t: string) => query(`DESC shop.${t}`);
const rows = (t: string, cols = '*', where = '') => query(`SELECT ${cols} FROM shop.${t} ${where} ORDER BY id`);

async function equalEventually(what: string, a: () => Promise<unknown>, b: () => Promise<unknown>, cli: RunningCli): Promise<void> {
  const same = async () => JSON.stringify(await a()) === JSON.stringify(await b());
  // The sink may not have created its table yet.
  await until(what, async () => ((await same().catch(() => false)) ? true : undefined), 60_000, 500).catch((err: Error) => {
    throw new Error(`${err.message}\nstderr:\n${cli.stderrTail()}`);
  });
}

/** The IT's checks after a step: same DESC, same rows (`cols`/`where` leave out the current-time column's history). */
async function sameTable(sink: string, cli: RunningCli, cols = '*', where = ''): Promise<void> {
  await equalEventually(
    `DESC shop.${sink} equal to DESC shop.products`,
    () => desc('products'),
    () => desc(sink),
    cli,
  );
  await equalEventually(
    `shop.${sink} rows equal to shop.products`,
    () => rows('products', cols, where),
    () => rows(sink, cols, where),
    cli,
  );
}

const values = (from: number, n: number, extra: (i: number) => string) =>
  Array.from(
    { length: n },
    (_, k) => `(${from + k}, 'item ${from + k}', 'made in step ${from}', ${(from + k) / 10}${extra(from + k)})`,
  ).join(', ');

/** Case 1: columns added, with rows written around each ALTER. */
const ADD_COLUMNS = [
  `INSERT INTO shop.products VALUES ${values(110, 9, () => '')}`,
  "UPDATE shop.products SET name = 'renamed' WHERE id = 101",
  'DELETE FROM shop.products WHERE id = 102',
  "ALTER TABLE shop.products ADD COLUMN add_column1 varchar(64) not null default 'yy', ADD COLUMN add_column2 int not null default 1",
  "UPDATE shop.products SET name = 'renamed' WHERE id = 110",
  `INSERT INTO shop.products VALUES ${values(119, 9, (i) => `, 'v${i}', ${i}`)}`,
  'DELETE FROM shop.products WHERE id = 118',
  'ALTER TABLE shop.products ADD COLUMN add_column3 float not null default 1.1',
  'ALTER TABLE shop.products ADD COLUMN add_column4 timestamp not null default current_timestamp()',
  'DELETE FROM shop.products WHERE id = 113',
  `INSERT INTO shop.products VALUES ${values(128, 9, (i) => `, 'v${i}', ${i}, ${i / 100}, '2024-03-04 05:06:07'`)}`,
  "UPDATE shop.products SET name = 'renamed' WHERE id = 135",
  "ALTER TABLE shop.products_on_hand ADD COLUMN add_column5 varchar(64) not null default 'yy'",
];

/** Case 2: columns dropped. */
const DROP_COLUMNS = [
  'ALTER TABLE shop.products DROP COLUMN add_column4',
  `INSERT INTO shop.products VALUES ${values(137, 9, (i) => `, 'v${i}', ${i}, 1.5`)}`,
  "UPDATE shop.products SET name = 'renamed' WHERE id IN (140, 141, 142)",
  'DELETE FROM shop.products WHERE id < 137',
  'ALTER TABLE shop.products DROP COLUMN add_column1, DROP COLUMN add_column3',
  `INSERT INTO shop.products VALUES ${values(146, 9, (i) => `, ${i}`)}`,
  "UPDATE shop.products SET name = 'renamed' WHERE id > 143",
];

/** Case 3: a column renamed by CHANGE (same definition). */
const CHANGE_COLUMNS = [
  'ALTER TABLE shop.products CHANGE add_column2 add_column int default 1 not null',
  'DELETE FROM shop.products WHERE id < 155',
  `INSERT INTO shop.products VALUES ${values(155, 9, (i) => `, ${i}`)}`,
];

/** Case 4: a column widened by MODIFY. */
const MODIFY_COLUMNS = [
  "ALTER TABLE shop.products MODIFY name longtext default 'SeaTunnel' not null",
  'DELETE FROM shop.products WHERE id < 155',
  `INSERT INTO shop.products VALUES ${values(164, 9, (i) => `, ${i}`)}`,
];

async function resetShop(sinkDdl: string | undefined): Promise<void> {
  await run([
    'DROP DATABASE IF EXISTS shop',
    'CREATE DATABASE shop',
    PRODUCTS,
    'ALTER TABLE shop.products AUTO_INCREMENT = 101',
    'CREATE TABLE shop.products_on_hand (product_id INTEGER NOT NULL PRIMARY KEY, quantity INTEGER NOT NULL)',
    ...(sinkDdl ? [sinkDdl] : []),
    `INSERT INTO shop.products VALUES ${Array.from({ length: 9 }, (_, k) => `(default, 'product ${k}', 'the ${k}th product', ${k + 0.5})`).join(', ')}`,
  ]);
}

beforeAll(async () => {
  maria = await startMariaDb({ database: 'shop' });
  root = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password });
  await run([
    "CREATE USER 'st_user_source'@'%' IDENTIFIED BY 'mysqlpw'",
    "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES ON *.* TO 'st_user_source'@'%'",
    "CREATE USER 'st_user_sink'@'%' IDENTIFIED BY 'mysqlpw'",
    "GRANT ALL PRIVILEGES ON *.* TO 'st_user_sink'@'%'",
  ]);
}, 60_000);

afterAll(async () => {
  killStartedJobs();
  await root?.end().catch(() => undefined);
  await maria?.stop();
  dirs.cleanup();
});

async function stop(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGINT');
  const ended = await cli.exit;
  expect(ended.code, ended.stderr).toBe(130);
}

describe("SeaTunnel's MySQL-CDC schema-change configs (MysqlCDCWithSchemaChangeIT)", () => {
  it('mysqlcdc_to_mysql_with_schema_change.conf follows ADD, DROP, CHANGE and MODIFY COLUMN, savepointed and restored between them', async () => {
    const sink = 'mysql_cdc_e2e_sink_table_with_schema_change';
    await resetShop(PRODUCTS.replace('shop.products', `shop.${sink}`));
    const job = new CliJob(dirs.make(), config('mysqlcdc_to_mysql_with_schema_change.conf'));
    let cli = await job.start();
    await sameTable(sink, cli);
    // Streaming has begun once the first inserts arrive (the stream starts two checkpoints after
    // the snapshot): the current-time default below is then applied within the IT's 3 s.
    await run(ADD_COLUMNS.slice(0, 1));
    await sameTable(sink, cli);
    await run(ADD_COLUMNS.slice(1));
    await sameTable(sink, cli, 'id, name, description, weight, add_column1, add_column2, add_column3');
    await sameTable(sink, cli, '*', 'WHERE id >= 128');
    const drift = await query(
      `SELECT max(abs(timestampdiff(SECOND, s.add_column4, t.add_column4))) FROM shop.products s JOIN shop.${sink} t ON s.id = t.id`,
    );
    // The IT allows 3 s (the change waits for a checkpoint it asks for).
    expect(Number(drift[0][0])).toBeLessThanOrEqual(3);

    const savepoint = async (c: RunningCli) => {
      const res = await runCli(['savepoint', job.jobId, '--address', c.address], 60_000);
      expect(res.code, res.stderr).toBe(0);
      const ended = await c.exit;
      expect(ended.code, ended.stderr).toBe(0);
    };
    await savepoint(cli);
    await run(DROP_COLUMNS);
    cli = await job.restore();
    await sameTable(sink, cli);
    await savepoint(cli);
    await run([...CHANGE_COLUMNS, ...MODIFY_COLUMNS]);
    cli = await job.restore();
    await sameTable(sink, cli);
    await stop(cli);
  }, 300_000);

  it('mysqlcdc_to_mysql_with_schema_change_exactly_once.conf (XA sink, table created by the sink) follows the same changes', async () => {
    const sink = 'mysql_cdc_e2e_sink_table_with_schema_change_exactly_once';
    await resetShop(undefined);
    const job = new CliJob(dirs.make(), config('mysqlcdc_to_mysql_with_schema_change_exactly_once.conf'));
    const cli = await job.start();
    await equalEventually(
      'the snapshot in the sink',
      () => rows('products'),
      () => rows(sink),
      cli,
    );
    await run(ADD_COLUMNS);
    await equalEventually(
      'rows after case 1',
      () => rows('products', 'id, name, description, weight, add_column1, add_column2, add_column3'),
      () => rows(sink, 'id, name, description, weight, add_column1, add_column2, add_column3'),
      cli,
    );
    for (const step of [DROP_COLUMNS, CHANGE_COLUMNS, MODIFY_COLUMNS]) {
      await run(step);
      await equalEventually(
        'rows after the step',
        () => rows('products'),
        () => rows(sink),
        cli,
      );
    }
    await stop(cli);
  }, 300_000);
});
