/**
 * SeaTunnel's own Jdbc e2e configs (seatunnel-configs/, copied unchanged from apache/seatunnel
 * connector-jdbc-e2e) through `tideway run`, against private MariaDB and PostgreSQL (PostGIS)
 * servers prepared as their ITs prepare their containers: same databases, users, passwords,
 * DDL and rows. The one rewrite (see seatunnel-configs/MANIFEST.tsv) puts the private server's
 * address in place of the container's host name and port. Each case checks what its IT checks.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import mysql from 'mysql2/promise';
import { runCli } from '../conformance/cli-process.js';
import { JobFolder, pgExec, pgRowArrays } from './databases.js';
import {
  MYSQL_CREATE_SQL,
  MYSQL_FIELDS,
  MYSQL_MULTI_CREATE_SQL,
  MYSQL_MULTI_FIELDS,
  PG_SINK_DDL,
  PG_SINK_SQL,
  PG_SOURCE_DDL,
  PG_SOURCE_SQL,
  mysqlTestRows,
  pgSourceInsert,
} from './seatunnel-tables.js';

const here = dirname(fileURLToPath(import.meta.url));
const jobs = new JobFolder();
/** JdbcMysqlIT's and JdbcMysqlMultipleTablesIT's login. */
const MYSQL_PASSWORD = 'Abc!@#135_seatunnel';
let maria: TestDatabaseServer;
let pgs: TestDatabaseServer;

/** The documented rewrite: the containers' host:port become the private servers' address. */
function rewritten(file: string): string {
  const text = readFileSync(join(here, 'seatunnel-configs', file), 'utf8')
    .replaceAll('mysql-e2e:3306', `127.0.0.1:${maria.port}`)
    .replaceAll('postgresql:5432', `127.0.0.1:${pgs.port}`);
  return jobs.write(text, file);
}

async function mysqlQuery(sql: string, params: unknown[] = []): Promise<unknown[][]> {
  const conn = await mysql.createConnection({
    host: maria.host,
    port: maria.port,
    user: 'root',
    password: MYSQL_PASSWORD,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    rowsAsArray: true,
  });
  try {
    return (await conn.query(sql, params))[0] as unknown[][];
  } finally {
    await conn.end();
  }
}

async function insertRows(table: string, fields: readonly string[], rows: unknown[][]): Promise<void> {
  await mysqlQuery(`INSERT INTO ${table} (${fields.join(', ')}) VALUES ?`, [rows]);
}

beforeAll(async () => {
  [maria, pgs] = await Promise.all([
    startMariaDb({ database: 'seatunnel', password: MYSQL_PASSWORD }),
    startPostgres({ database: 'test' }),
  ]);
  for (const t of ['seatunnel.source', 'seatunnel.sink']) await mysqlQuery(MYSQL_CREATE_SQL.replace('%s', t));
  await insertRows('seatunnel.source', MYSQL_FIELDS, mysqlTestRows(true));
  for (const db of ['source', 'sink']) {
    await mysqlQuery(`CREATE DATABASE IF NOT EXISTS ${db}`);
    for (const t of ['table1', 'table2']) await mysqlQuery(MYSQL_MULTI_CREATE_SQL.replace('%s', `${db}.${t}`));
  }
  for (const t of ['source.table1', 'source.table2']) await insertRows(t, MYSQL_MULTI_FIELDS, mysqlTestRows(false));
  // JdbcPostgresIT: user and password "test", database "test", PostGIS.
  await pgExec(pgs, `CREATE EXTENSION postgis; CREATE ROLE test LOGIN SUPERUSER PASSWORD 'test'`);
  await pgExec(pgs, `${PG_SOURCE_DDL}; ${PG_SINK_DDL}; ${pgSourceInsert()}`);
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await Promise.all([maria?.stop(), pgs?.stop()]);
});

async function run(file: string): Promise<void> {
  const res = await runCli(['run', '-c', rewritten(file)]);
  expect(res.code, `${file}: ${res.stderr}`).toBe(0);
}

/** AbstractJdbcIT.defaultCompare: the fields of source and sink, ordered by c_bigint_30. */
async function compareMysql(fields: readonly string[]): Promise<void> {
  const sql = (t: string) => `SELECT ${fields.join(', ')} FROM seatunnel.${t} ORDER BY c_bigint_30`;
  const source = await mysqlQuery(sql('source'));
  expect(source).toHaveLength(100);
  expect(await mysqlQuery(sql('sink'))).toEqual(source);
}

describe('SeaTunnel connector-jdbc-e2e configs, MySQL (on MariaDB)', () => {
  it.each([
    ['jdbc_mysql_source_and_sink.conf', MYSQL_FIELDS],
    ['jdbc_mysql_source_and_sink_parallel.conf', MYSQL_FIELDS],
    ['jdbc_mysql_source_and_sink_parallel_upper_lower.conf', MYSQL_FIELDS],
    // Its sink writes every column but the last three.
    ['jdbc_mysql_source_and_sink_xa.conf', MYSQL_FIELDS.slice(0, -3)],
  ])('%s: seatunnel.sink equals seatunnel.source', async (file, fields) => {
    await mysqlQuery('TRUNCATE TABLE seatunnel.sink');
    await run(file);
    await compareMysql(fields);
  });

  it.each([
    ['jdbc_mysql_source_using_table_path.conf', ['table1']],
    ['jdbc_mysql_source_and_sink_with_multiple_tables.conf', ['table1', 'table2']],
  ])('%s: every sink table equals its source table', async (file, tables) => {
    for (const t of ['table1', 'table2']) await mysqlQuery(`TRUNCATE TABLE sink.${t}`);
    await run(file);
    for (const t of tables) {
      const source = await mysqlQuery(`SELECT * FROM source.${t}`);
      expect(source).toHaveLength(100);
      expect(await mysqlQuery(`SELECT * FROM sink.${t}`), t).toEqual(source);
    }
  });
});

describe('SeaTunnel connector-jdbc-e2e configs, PostgreSQL with PostGIS', () => {
  it.each([
    'jdbc_postgres_source_and_sink.conf',
    'jdbc_postgres_source_and_sink_copy_stmt.conf',
    'jdbc_postgres_source_and_sink_parallel.conf',
    'jdbc_postgres_source_and_sink_parallel_upper_lower.conf',
    'jdbc_postgres_source_and_sink_xa.conf',
  ])('%s: JdbcPostgresIT SINK_SQL equals SOURCE_SQL', async (file) => {
    await pgExec(pgs, 'TRUNCATE TABLE pg_e2e_sink_table');
    await run(file);
    const source = await pgRowArrays(pgs, PG_SOURCE_SQL);
    expect(source).toHaveLength(1000);
    expect(await pgRowArrays(pgs, PG_SINK_SQL)).toEqual(source);
  });
});
