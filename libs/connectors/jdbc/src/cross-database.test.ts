import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { formatType } from '@tideway/api';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { makeSink, readAll, writeAll } from './test/wiring.js';

let pgServer: TestDatabaseServer;
let myServer: TestDatabaseServer;

const pgConn = () => ({ url: pgServer.jdbcUrl, driver: 'org.postgresql.Driver', user: pgServer.user, password: pgServer.password });
const myConn = () => ({
  url: myServer.jdbcUrl.replace('jdbc:mysql:', 'jdbc:mariadb:'),
  driver: 'org.mariadb.jdbc.Driver',
  user: myServer.user,
  password: myServer.password,
});

/** '03:04:05.120000' and '03:04:05.12' are the same time: compare without trailing fraction zeros. */
function trimFraction(v: unknown): unknown {
  return typeof v === 'string' && /^(\d{4}-\d{2}-\d{2}T)?\d{2}:\d{2}:\d{2}\.\d+$/.test(v) ? v.replace(/\.?0+$/, '') : v;
}

beforeAll(async () => {
  [pgServer, myServer] = await Promise.all([startPostgres(), startMariaDb()]);
  const c = new pg.Client({ connectionString: pgServer.url });
  await c.connect();
  await c.query(`
    CREATE TABLE src (id bigint PRIMARY KEY, c_bool boolean, c_int2 smallint, c_int8 bigint, c_float8 double precision,
      c_numeric numeric(20, 6), c_text text, c_bytea bytea, c_date date, c_time time(6), c_timestamp timestamp(6),
      c_timestamptz timestamptz(6), c_int_arr integer[], c_jsonb jsonb);
    INSERT INTO src VALUES
      (1, true, -5, 9007199254740993, 0.1, '12.500000', 'a\tb\nc', '\\x0001', '2024-02-29', '03:04:05.123456',
       '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.5+08', '{1,NULL,3}', '{"k": "v"}'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (3, false, 0, 0, -1e-10, '0.000001', '', '', '1999-12-31', '00:00:00', '1999-12-31 23:59:59', '2000-01-01 00:00:00+00', '{}', '[]');`);
  await c.end();
  const m = await mysql.createConnection({ uri: myServer.url, multipleStatements: true });
  await m.query(`
    CREATE TABLE src (id BIGINT PRIMARY KEY, c_bool TINYINT(1), c_tiny TINYINT, c_int_u INT UNSIGNED, c_big_u BIGINT UNSIGNED,
      c_float FLOAT, c_decimal DECIMAL(20, 6), c_varchar VARCHAR(20), c_blob BLOB, c_date DATE, c_time TIME(6),
      c_datetime DATETIME(6), c_json JSON, c_enum ENUM('x', 'y'), c_bit1 BIT(1));
    INSERT INTO src VALUES
      (1, 1, -128, 4294967295, 18446744073709551615, 1.5, '-12.500000', 'tab\\there', X'00FF', '2024-02-29', '03:04:05.123456',
       '2024-01-02 03:04:05.123456', '{"k": [1]}', 'y', b'1'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (3, 0, 0, 0, 0, -0.25, '0.000001', '', '', '1000-01-01', '00:00:00', '1000-01-01 00:00:00', '[]', 'x', b'0');`);
  await m.end();
});

afterAll(async () => {
  await Promise.all([pgServer?.stop(), myServer?.stop()]);
});

describe('Jdbc across databases', () => {
  it('PostgreSQL -> MariaDB: values arrive equal; arrays become JSON text, timestamptz UTC wall-clock time', async () => {
    const src = await readAll({ ...pgConn(), table_path: 'public.src' });
    const input = src.source.catalogTables()[0];
    const sink = await makeSink(
      { ...myConn(), generate_sink_sql: true, database: myServer.database, table: 'from_pg', primary_keys: ['id'] },
      [input],
    );
    await writeAll(sink, src.rows);
    const back = await readAll({ ...myConn(), query: 'select * from from_pg order by id' });
    expect(back.source.catalogTables()[0].columns.map((c) => formatType(c.type))).toEqual([
      'bigint',
      'boolean',
      'smallint',
      'bigint',
      'double',
      'decimal(20, 6)',
      'string',
      'bytes',
      'date',
      'time',
      'timestamp',
      'timestamp',
      'string',
      'string',
    ]);
    const names = input.columns.map((c) => c.name);
    const expected = src.rows
      .map((r) => r.fields)
      .sort((a, b) => Number(a[0]) - Number(b[0]))
      .map((f) =>
        f.map((v, i) => {
          if (v === null) return null;
          if (names[i] === 'c_int_arr') return JSON.stringify(v);
          if (names[i] === 'c_timestamptz')
            return { '2024-01-01T19:04:05.5+00:00': '2024-01-01T19:04:05.5', '2000-01-01T00:00:00+00:00': '2000-01-01T00:00:00' }[
              v as string
            ];
          return trimFraction(v);
        }),
      );
    expect(back.rows.map((r) => r.fields.map(trimFraction))).toEqual(expected);
  });

  it('MariaDB -> PostgreSQL: values arrive equal in the mapped column types', async () => {
    const src = await readAll({ ...myConn(), table_path: `${myServer.database}.src` });
    const input = src.source.catalogTables()[0];
    const sink = await makeSink({ ...pgConn(), generate_sink_sql: true, database: pgServer.database, table: 'public.from_mariadb' }, [
      input,
    ]);
    await writeAll(sink, src.rows);
    const back = await readAll({ ...pgConn(), query: 'select * from public.from_mariadb order by id' });
    expect(back.source.catalogTables()[0].columns.map((c) => formatType(c.type))).toEqual([
      'bigint',
      'boolean',
      'smallint',
      'bigint',
      'decimal(20, 0)',
      'float',
      'decimal(20, 6)',
      'string',
      'bytes',
      'date',
      'time',
      'timestamp',
      'string',
      'string',
      'boolean',
    ]);
    const expected = src.rows.map((r) => r.fields.map(trimFraction)).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(back.rows.map((r) => r.fields.map(trimFraction))).toEqual(expected);
  });
});
