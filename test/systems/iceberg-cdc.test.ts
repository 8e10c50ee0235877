/**
 * MySQL-CDC (on a private MariaDB) into the Iceberg sink through the real CLI, read back by
 * PyIceberg (and Iceberg's Java library where fetched):
 * - SeaTunnel's iceberg/mysql_cdc_to_iceberg.conf unchanged but for its MySQL address (the IT's
 *   container host `mysql_cdc_e2e:3306` pointed at the test's server), against ddl/mysql_cdc.sql
 *   and mysql/setup.sql (MariaDB 10.11 lacks MySQL 8's utf8mb4_0900_ai_ci collation: the DDL is
 *   loaded with utf8mb4_general_ci), with IcebergSinkCDCIT's steps: the table emptied, the job
 *   started, three rows inserted (3 rows), then two inserted, one deleted and one updated (4 rows,
 *   id 3's f_bigint 10000). Its warehouse, /tmp/seatunnel/iceberg/hadoop-cdc-sink/, is the
 *   config's: the test holds a lock file there and removes what it wrote before and after.
 * - A multi-table job: two source tables into one sink with `${database_name}`/`${table_name}`,
 *   each into its own Iceberg table with its own primary key (identifier fields), updates, deletes
 *   and a column added to one of them while rows stream, a third table created mid-stream (captured by
 *   table-pattern): each table equal to its source. (Exactly
 *   once across restores per table: the contract's multi-table check and tables.test.ts.)
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  icebergJavaPresent,
  icebergPeersPresent,
  javaIcebergRead,
  pyicebergRead,
  sharedConformanceDir,
  startMariaDb,
  type PyIcebergRead,
  type TestDatabaseServer,
} from '@tideway/testing';
import { CliJob, killStartedJobs, TempDirs, until, type RunningCli } from '../cdc/cli-job.js';
import { withLock } from './path-lock.js';

const present = icebergPeersPresent();
const javaPresent = present && icebergJavaPresent();
const dirs = new TempDirs();
let maria: TestDatabaseServer;
let root: mysql.Connection;

beforeAll(async () => {
  if (!present) return;
  maria = await startMariaDb();
  root = await mysql.createConnection({
    host: maria.host,
    port: maria.port,
    user: maria.user,
    password: maria.password,
    multipleStatements: true,
  });
}, 60_000);

afterAll(async () => {
  killStartedJobs();
  await root?.end().catch(() => undefined);
  await maria?.stop();
  dirs.cleanup();
});

/** The current metadata file of a hadoop-catalog table. */
function metadataOf(location: string): string {
  const v = readFileSync(join(location, 'metadata', 'version-hint.text'), 'utf8').trim();
  return join(location, 'metadata', `v${v}.metadata.json`);
}

/** Reads the table at `location` with PyIceberg until `done` holds for it (the sink commits at checkpoints). */
async function readUntil(what: string, location: string, done: (t: PyIcebergRead) => boolean, cli: RunningCli): Promise<PyIcebergRead> {
  let last: PyIcebergRead | undefined;
  let failure = '';
  return until(
    what,
    async () => {
      if (cli.child.exitCode !== null) throw new Error(`the job ended (exit ${cli.child.exitCode}) before ${what}:\n${cli.stderrTail()}`);
      if (!existsSync(join(location, 'metadata', 'version-hint.text'))) return undefined;
      last = await pyicebergRead({ metadata: metadataOf(location) }).catch((err: Error) => {
        failure = err.message;
        return undefined;
      });
      return last && done(last) ? last : undefined;
    },
    90_000,
    1000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify(last?.rows)} ${failure.slice(-2000)}\n${cli.stderrTail()}`);
  });
}

const column = (t: PyIcebergRead, name: string) => t.schema.findIndex(([n]) => n === name);

describe.skipIf(!present)('MySQL-CDC (MariaDB) into Iceberg tables', () => {
  it("runs SeaTunnel's mysql_cdc_to_iceberg.conf unchanged but for its MySQL address, with IcebergSinkCDCIT's inserts, deletes and updates", async () => {
    const shared = sharedConformanceDir();
    if (!shared) return; // said once by sharedConformanceDir; CI fails there without the folder
    const base = join(shared, 'iceberg');
    const warehouse = '/tmp/seatunnel/iceberg/hadoop-cdc-sink';
    const location = join(warehouse, 'seatunnel_namespace', 'iceberg_sink_table');
    mkdirSync(warehouse, { recursive: true });
    await withLock(join(warehouse, '.tideway-iceberg-cdc.lock'), async () => {
      rmSync(join(warehouse, 'seatunnel_namespace'), { recursive: true, force: true });
      try {
        // the IT's container: its user, mysql/setup.sql's grants, ddl/mysql_cdc.sql
        await root.query("CREATE USER 'st_user'@'%' IDENTIFIED BY 'seatunnel'");
        await root.query(readFileSync(join(base, 'mysql', 'setup.sql'), 'utf8'));
        const ddl = readFileSync(join(base, 'ddl', 'mysql_cdc.sql'), 'utf8').replaceAll('utf8mb4_0900_ai_ci', 'utf8mb4_general_ci');
        await root.query(ddl);
        const table = 'mysql_cdc.mysql_cdc_e2e_source_table';
        await root.query(`TRUNCATE TABLE ${table}`); // as the IT's clearTable
        const config = readFileSync(join(base, 'iceberg', 'mysql_cdc_to_iceberg.conf'), 'utf8').replaceAll(
          'mysql_cdc_e2e:3306',
          `127.0.0.1:${maria.port}`,
        );
        const cli = await new CliJob(dirs.make(), config).start();

        // the IT's first rows (ids 1, 2, 3): the DDL's own INSERT of them
        const insert = ddl.split(';').find((s) => s.trim().startsWith('INSERT INTO mysql_cdc_e2e_source_table '))!;
        await root.query(`USE mysql_cdc; ${insert}`);
        let t = await readUntil('3 rows', location, (r) => r.rows.length === 3, cli);
        const id = column(t, 'id');
        expect(t.rows.map((r) => r[id])).toEqual(['1', '2', '3']);

        // the IT's upsertDeleteSourceTable: rows 5 and 6 (row 1's values, another f_year), row 2 deleted, row 3 updated
        const cols = ((await root.query(`SHOW COLUMNS FROM ${table}`))[0] as { Field: string }[]).map((c) => c.Field);
        const copy = (newId: number, year: number) =>
          `INSERT INTO ${table} SELECT ${newId}, ${cols.slice(1, -1).join(', ')}, ${year} FROM ${table} WHERE id = 1`;
        await root.query(copy(5, 1992));
        await root.query(copy(6, 1999));
        await root.query(`DELETE FROM ${table} WHERE id = 2`);
        await root.query(`UPDATE ${table} SET f_bigint = 10000 WHERE id = 3`);
        t = await readUntil(
          '4 rows, id 3 updated',
          location,
          (r) => r.rows.length === 4 && r.rows.some((x) => x[id] === '3' && x[column(r, 'f_bigint')] === '10000'),
          cli,
        );
        expect(t.rows.map((r) => r[id])).toEqual(['1', '3', '5', '6']);
        expect(t.rows.map((r) => r[column(t, 'f_year')])).toEqual(['2022', '2021', '1992', '1999']);
        expect(t.identifier).toEqual(['id']);
        if (javaPresent) {
          const java = await javaIcebergRead({ metadata: metadataOf(location) });
          expect(java.rows.map((r) => r[id]).sort()).toEqual(['1', '3', '5', '6']);
        }
        cli.child.kill('SIGINT');
        await cli.exit;
      } finally {
        rmSync(join(warehouse, 'seatunnel_namespace'), { recursive: true, force: true });
      }
    });
  }, 180_000);

  it('writes each table of a multi-table job to its own Iceberg table (${database_name}, ${table_name}), each with its primary key and schema changes, as their sources', async () => {
    await root.query(`CREATE DATABASE shop;
      CREATE TABLE shop.orders (id int PRIMARY KEY, customer varchar(32) NOT NULL, amount int);
      CREATE TABLE shop.parts (code varchar(16) PRIMARY KEY, label varchar(64), qty int);
      INSERT INTO shop.orders VALUES ${Array.from({ length: 20 }, (_, i) => `(${i + 1}, 'c${i % 3}', ${i * 10})`).join(', ')};
      INSERT INTO shop.parts VALUES ${Array.from({ length: 10 }, (_, i) => `('p${i + 1}', 'part ${i + 1}', ${i})`).join(', ')};`);
    const dir = dirs.make();
    const wh = join(dir, 'wh');
    const job = new CliJob(
      dir,
      `
env { job.mode = "STREAMING", parallelism = 1, checkpoint.interval = 1000 }
source {
  MySQL-CDC {
    base-url = "jdbc:mysql://127.0.0.1:${maria.port}/shop"
    username = "${maria.user}"
    password = "${maria.password}"
    table-pattern = "shop\\\\..*"
    server-id = "5401"
    schema-changes.enabled = true
  }
}
sink {
  Iceberg {
    catalog_name = "lake"
    iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "file://${wh}" }
    namespace = "\${database_name}_lake"
    table = "\${table_name}"
    iceberg.table.schema-evolution-enabled = true
  }
}`,
    );
    const sourceRows = async (sql: string) =>
      ((await root.query({ sql, rowsAsArray: true }))[0] as (string | number | null)[][]).map((r) =>
        r.map((v) => (v === null ? null : String(v))),
      );
    const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    const equal = async (table: string, columns: string, cli: RunningCli) => {
      const want = sorted(await sourceRows(`SELECT ${columns} FROM shop.${table}`));
      return readUntil(
        `shop_lake.${table} equal to shop.${table}`,
        join(wh, 'shop_lake', table),
        (t) =>
          JSON.stringify(t.schema.map(([n]) => n)) === JSON.stringify(columns.split(', ')) &&
          JSON.stringify(sorted(t.rows)) === JSON.stringify(want),
        cli,
      );
    };

    const cli = await job.start();
    expect((await equal('orders', 'id, customer, amount', cli)).identifier).toEqual(['id']);
    expect((await equal('parts', 'code, label, qty', cli)).identifier).toEqual(['code']);

    await root.query(`UPDATE shop.orders SET amount = amount + 1 WHERE id <= 5;
      DELETE FROM shop.orders WHERE id BETWEEN 6 AND 8;
      INSERT INTO shop.orders VALUES (21, 'c9', 210), (22, 'c9', 220);
      ALTER TABLE shop.parts ADD COLUMN color varchar(16);
      INSERT INTO shop.parts VALUES ('p11', 'part 11', 11, 'red');
      UPDATE shop.parts SET qty = qty * 2, color = 'blue' WHERE code IN ('p1', 'p2');
      DELETE FROM shop.parts WHERE code = 'p3';
      CREATE TABLE shop.extra (id int PRIMARY KEY, v varchar(8));
      INSERT INTO shop.extra VALUES (1, 'a'), (2, 'b'), (3, 'c');
      UPDATE shop.extra SET v = 'z' WHERE id = 2;`);
    const orders = await equal('orders', 'id, customer, amount', cli);
    const parts = await equal('parts', 'code, label, qty, color', cli);
    expect(orders.rows).toHaveLength(19);
    expect(parts.rows).toHaveLength(10);
    // a table created while the job runs (table-pattern) gets its own Iceberg table before its first rows
    expect((await equal('extra', 'id, v', cli)).rows).toEqual([
      ['1', 'a'],
      ['2', 'z'],
      ['3', 'c'],
    ]);
    if (javaPresent) {
      const java = await javaIcebergRead({ catalog: { type: 'hadoop', warehouse: `file://${wh}` }, table: 'shop_lake.parts' });
      expect(sorted(java.rows)).toEqual(sorted(parts.rows));
    }
    cli.child.kill('SIGINT');
    await cli.exit;
  }, 180_000);
});
