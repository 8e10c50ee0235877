/**
 * The sink contract (libs/connector-contract) on the Jdbc sink: PostgreSQL and MariaDB with XA
 * transactions (exactly once), and SQLite, which has no XA and upserts by primary key
 * (idempotent), and Firebird 3, which upserts with UPDATE OR INSERT (idempotent). Read back with
 * each database's own client.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Firebird from 'node-firebird';
import { afterAll, beforeAll } from 'vitest';
import type { CatalogTable } from '@tideway/api';
import { jdbcSinkFactory } from '@tideway/connector-jdbc';
import { sinkContract, type SinkSubject } from '@tideway/connector-contract';
import { firebirdMissing, sharedFirebird, startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { myExec, pgExec } from '../jdbc/databases.js';
import { JDBC_FIREBIRD_NOT_APPLICABLE, JDBC_NOT_APPLICABLE, JDBC_SQLITE_NOT_APPLICABLE } from './contract-table.js';

let pgServer: TestDatabaseServer;
let myServer: TestDatabaseServer;
/** The Firebird database of this file (on the server the run's files share), when Firebird is installed. */
let fb: { host: string; port: number; user: string; password: string; database: string } | undefined;
const firebirdRuns = firebirdMissing() === undefined || process.env.CI === 'true';
const sqliteDir = mkdtempSync(join(tmpdir(), 'tideway-contract-sqlite-'));

beforeAll(async () => {
  [pgServer, myServer] = await Promise.all([startPostgres(), startMariaDb()]);
  if (firebirdRuns) {
    const server = await sharedFirebird();
    fb = { ...server, database: await server.createDatabase(`contract_${process.pid}`) };
  }
});
afterAll(async () => {
  await Promise.all([pgServer?.stop(), myServer?.stop()]);
  rmSync(sqliteDir, { recursive: true, force: true });
});

/** The target table of `table` in scenario `id`: one table per input table, by `${table_name}`. */
const tableName = (id: string, table: CatalogTable) => `${id}_${table.path.table}`;

function xaSubject(kind: 'pg' | 'maria'): SinkSubject {
  const server = () => (kind === 'pg' ? pgServer : myServer);
  return {
    name: kind === 'pg' ? 'Jdbc (PostgreSQL, XA)' : 'Jdbc (MariaDB, XA)',
    factory: jdbcSinkFactory,
    delivery: 'exactly-once',
    target: (id) => {
      const s = server();
      return {
        options: {
          url: s.jdbcUrl,
          driver: kind === 'pg' ? 'org.postgresql.Driver' : 'com.mysql.cj.jdbc.Driver',
          user: s.user,
          password: s.password,
          generate_sink_sql: true,
          database: s.database,
          table: kind === 'pg' ? `public.${id}_\${table_name}` : `${id}_\${table_name}`,
          primary_keys: ['${primary_key}'],
          is_exactly_once: true,
          xa_data_source_class_name: kind === 'pg' ? 'org.postgresql.xa.PGXADataSource' : 'com.mysql.cj.jdbc.MysqlXADataSource',
          batch_size: 3,
        },
        readBack: async (table) => {
          const name = tableName(id, table);
          if (kind === 'pg') {
            const exists = await pgExec(s, 'SELECT 1 FROM pg_tables WHERE tablename = $1', [name]);
            return exists.length === 0 ? [] : pgExec(s, `SELECT * FROM public.${name}`);
          }
          const exists = await myExec(s, 'SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?', [
            s.database,
            name,
          ]);
          return exists.length === 0 ? [] : myExec(s, `SELECT * FROM ${name}`);
        },
      };
    },
    notApplicable: JDBC_NOT_APPLICABLE,
    badOptions: [
      { options: { xa_data_source_class_name: undefined }, option: 'xa_data_source_class_name' },
      { options: { driver: 'oracle.jdbc.OracleDriver' }, option: 'driver' },
      { options: { batch_size: -1 }, option: 'batch_size' },
    ],
  };
}

const sqlite: SinkSubject = {
  name: 'Jdbc (SQLite)',
  factory: jdbcSinkFactory,
  delivery: 'idempotent',
  target: (id) => {
    const file = join(sqliteDir, `${id}.db`);
    return {
      options: {
        url: `jdbc:sqlite:${file}`,
        driver: 'org.sqlite.JDBC',
        generate_sink_sql: true,
        database: 'main',
        table: `\${table_name}`,
        primary_keys: ['${primary_key}'],
        batch_size: 3,
      },
      readBack: (table) => {
        if (!existsSync(file)) return Promise.resolve([]);
        const db = new Database(file, { readonly: true });
        try {
          const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table.path.table);
          return Promise.resolve(exists ? (db.prepare(`SELECT * FROM "${table.path.table}"`).all() as Record<string, unknown>[]) : []);
        } finally {
          db.close();
        }
      },
    };
  },
  notApplicable: JDBC_SQLITE_NOT_APPLICABLE,
  // One writer: SQLite's writers of one file take turns at its lock, which a writer holds until its
  // checkpoint; this harness drives subtasks one after the other in one thread, so a second writer
  // would wait for a lock the first cannot release (test/jdbc/sqlite.test.ts runs two writers in a job).
  parallelism: 1,
  badOptions: [
    { options: { is_exactly_once: true, xa_data_source_class_name: 'org.sqlite.JDBC' }, option: 'is_exactly_once' },
    { options: { driver: 'org.postgresql.Driver' }, option: 'driver' },
  ],
};

/** Rows of a Firebird table as objects, BLOBs as text, with node-firebird on its own. */
async function firebirdRows(table: string): Promise<Record<string, unknown>[]> {
  const db = await Firebird.attachAsync({ ...fb!, encoding: 'UTF8', numericMode: 'string', blobAsText: true });
  try {
    const exists = await db.queryAsync('SELECT 1 FROM RDB$RELATIONS WHERE RDB$RELATION_NAME = ?', [table]);
    return exists.length === 0 ? [] : await db.queryAsync<Record<string, unknown>>(`SELECT * FROM "${table}"`);
  } finally {
    await db.detachAsync(true);
  }
}

/** Firebird 3 names hold 31 bytes: a scenario's tables get a short prefix of its id. */
const fbPrefix = (id: string) => `t${crc32(id).toString(36)}`;

const firebird: SinkSubject = {
  name: 'Jdbc (Firebird)',
  factory: jdbcSinkFactory,
  delivery: 'idempotent',
  target: (id) => ({
    options: {
      url: `jdbc:firebirdsql://127.0.0.1:${fb!.port}/${fb!.database}`,
      driver: 'org.firebirdsql.jdbc.FBDriver',
      user: fb!.user,
      password: fb!.password,
      generate_sink_sql: true,
      table: `${fbPrefix(id)}_\${table_name}`,
      primary_keys: ['${primary_key}'],
      batch_size: 3,
    },
    readBack: (table) => firebirdRows(`${fbPrefix(id)}_${table.path.table}`),
  }),
  notApplicable: JDBC_FIREBIRD_NOT_APPLICABLE,
  badOptions: [
    { options: { is_exactly_once: true, xa_data_source_class_name: 'org.firebirdsql.ds.FBXADataSource' }, option: 'is_exactly_once' },
    { options: { driver: 'org.postgresql.Driver' }, option: 'driver' },
  ],
};

sinkContract(xaSubject('pg'));
sinkContract(xaSubject('maria'));
sinkContract(sqlite);
if (firebirdRuns) sinkContract(firebird);
else console.log(`Jdbc (Firebird) contract skipped: ${firebirdMissing()}`);
