/**
 * The Parquet bench's rows are the PostgreSQL source's rows (bench/orders-rows.ts `copyRows`):
 * shared/bench/orders-postgres.sql loaded into a private PostgreSQL server and read back through
 * the Jdbc connector's own stream (COPY, the source's read path) gives the same values, of the
 * same types, as the bench makes from its text of PostgreSQL's COPY output; and the bench's
 * column types are the server's. A bench whose rows drifted from the source's would measure the
 * writer on something no job hands it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatType } from '@tideway/api';
import { openConnection, type JdbcConnection } from '@tideway/connector-jdbc';
import { sharedConformancePath, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { COLUMNS, copyRows, ORDERS_PG_COLUMNS } from '../../bench/orders-rows.js';
import { pgExec } from './databases.js';

const ROWS = 3000;
/** Rows past 3000 with a whole second (no fraction: g % 1,000,000 = 0) and around it. */
const FAR = [999_999, 1_000_000, 1_999_999, 2_000_000];

let pgs: TestDatabaseServer;
let conn: JdbcConnection;

beforeAll(async () => {
  pgs = await startPostgres();
  const sql = readFileSync(join(sharedConformancePath(), '..', '..', 'bench', 'orders-postgres.sql'), 'utf8');
  const insert = sql.slice(sql.indexOf('INSERT INTO orders'), sql.indexOf(';', sql.indexOf('INSERT INTO orders')));
  await pgExec(pgs, sql.replace(':rows', String(ROWS)));
  await pgExec(pgs, insert.replace('generate_series(1, :rows)', `unnest(ARRAY[${FAR.join(', ')}])`));
  conn = await openConnection(
    {
      dialect: 'postgresql',
      host: pgs.host,
      port: pgs.port,
      database: pgs.database,
      user: pgs.user,
      password: pgs.password,
      connectTimeoutMs: 10_000,
      ssl: false,
      sessionSql: [],
      keepAlive: false,
      multipleStatements: false,
      tinyInt1isBit: true,
    },
    {},
  );
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await pgs?.stop();
});

async function sourceRows(sql: string): Promise<unknown[][]> {
  const columns = await conn.describe(sql);
  const stream = await conn.stream(sql, columns, 1000);
  const rows: unknown[][] = [];
  for (let batch = await stream.read(1000); batch.length > 0; batch = await stream.read(1000)) rows.push(...batch);
  await stream.close();
  return rows;
}

it("the bench's orders columns are the server's: names, type oids, typmods and the types the source reads", async () => {
  const attrs = await pgExec(
    pgs,
    `SELECT a.attname AS name, a.atttypid::int AS oid, t.typname, t.typcategory AS category, a.atttypmod AS typmod
     FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
     WHERE a.attrelid = 'orders'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
  );
  expect(attrs).toEqual(
    ORDERS_PG_COLUMNS.map((c) => ({ name: c.name, oid: c.type.oid, typname: c.type.name, category: c.type.category, typmod: c.typmod })),
  );
  const described = await conn.describe('SELECT * FROM orders');
  expect(described.map((c) => [c.name, formatType(c.type)])).toEqual(COLUMNS.map(([n, t]) => [n, t]));
});

it('the source reads the same rows as the bench makes from its COPY text', async () => {
  const read = await sourceRows('SELECT * FROM orders WHERE id <= 3000 ORDER BY id');
  expect(read).toHaveLength(ROWS);
  expect(read).toEqual(copyRows(1, ROWS));
  // typeof, not only equality: a decimal or timestamp must stay text, an id a bigint
  expect(read[9].map((v) => (v === null ? 'null' : typeof v))).toEqual(copyRows(10, 1)[0].map((v) => (v === null ? 'null' : typeof v)));
  const far = await sourceRows(`SELECT * FROM orders WHERE id > ${ROWS} ORDER BY id`);
  expect(far).toEqual(FAR.map((g) => copyRows(g, 1)[0]));
});
