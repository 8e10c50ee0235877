import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import { formatType } from '@tideway/api';
import { startMariaDb, type TestDatabaseServer } from '@tideway/testing';
import { makeSink, readAll, writeAll } from './test/wiring.js';

let server: TestDatabaseServer;
let db: mysql.Connection;

const conn = () => ({ url: server.jdbcUrl, driver: 'com.mysql.cj.jdbc.Driver', user: server.user, password: server.password });

beforeAll(async () => {
  server = await startMariaDb();
  db = await mysql.createConnection({ uri: server.url, multipleStatements: true });
  await db.query(`
    CREATE TABLE types_src (
      id BIGINT PRIMARY KEY, c_bool TINYINT(1), c_tiny TINYINT, c_tiny_u TINYINT UNSIGNED, c_small SMALLINT,
      c_small_u SMALLINT UNSIGNED, c_medium MEDIUMINT, c_int INT, c_int_u INT UNSIGNED, c_big BIGINT, c_big_u BIGINT UNSIGNED,
      c_float FLOAT, c_double DOUBLE, c_decimal DECIMAL(20, 6), c_decimal_u DECIMAL(10, 2) UNSIGNED, c_char CHAR(5),
      c_varchar VARCHAR(50), c_text TEXT, c_blob BLOB, c_binary BINARY(4), c_varbinary VARBINARY(10), c_date DATE,
      c_time TIME(6), c_datetime DATETIME(6), c_timestamp TIMESTAMP(6) NULL, c_json JSON, c_enum ENUM('sad','ok','happy'),
      c_set SET('a','b','c'), c_bit1 BIT(1), c_bit8 BIT(8), c_year YEAR, c_uuid UUID
    );
    INSERT INTO types_src VALUES
      (1, 1, -128, 255, -32768, 65535, -8388608, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615,
       1.5, 1.7976931348623157e308, '-99999999999999.999999', '12345678.99', 'ab', 'hello',
       'tab\\there\\nnew line \\\\ backslash "q" ''s'' €', X'00FF10', X'01020304', X'0A0B', '2024-02-29', '-838:59:59.000000',
       '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123456', '{"a": [1, 2]}', 'happy', 'a,c', b'1', b'10100101', 2024,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (3, 0, 127, 0, 32767, 0, 8388607, 2147483647, 0, 9223372036854775807, 0, -0.25, 0.1, '0.000001', '0.00', '', '', '', '',
       X'00000000', '', '1000-01-01', '00:00:00', '1000-01-01 00:00:00', '1970-01-01 00:00:01', '[]', 'sad', '', b'0', b'0',
       1901, '00000000-0000-0000-0000-000000000000');
  `);
});

afterAll(async () => {
  await db?.end();
  await server?.stop();
});

describe('Jdbc on MariaDB: types', () => {
  it("maps every column type after SeaTunnel's MySQL table", async () => {
    const { source } = await readAll({ ...conn(), table_path: `${server.database}.types_src` });
    const [table] = source.catalogTables();
    expect(table.tableId).toBe(`${server.database}.types_src`);
    expect(table.primaryKey?.columns).toEqual(['id']);
    const types = Object.fromEntries(table.columns.map((c) => [c.name, formatType(c.type)]));
    expect(types).toEqual({
      id: 'bigint',
      c_bool: 'boolean',
      c_tiny: 'tinyint',
      c_tiny_u: 'smallint',
      c_small: 'smallint',
      c_small_u: 'int',
      c_medium: 'int',
      c_int: 'int',
      c_int_u: 'bigint',
      c_big: 'bigint',
      c_big_u: 'decimal(20, 0)',
      c_float: 'float',
      c_double: 'double',
      c_decimal: 'decimal(20, 6)',
      c_decimal_u: 'decimal(10, 2)',
      c_char: 'string',
      c_varchar: 'string',
      c_text: 'string',
      c_blob: 'bytes',
      c_binary: 'bytes',
      c_varbinary: 'bytes',
      c_date: 'date',
      c_time: 'time',
      c_datetime: 'timestamp',
      c_timestamp: 'timestamp',
      c_json: 'string',
      c_enum: 'string',
      c_set: 'string',
      c_bit1: 'boolean',
      c_bit8: 'bytes',
      c_year: 'int',
      c_uuid: 'string',
    });
    expect(table.columns[0].nullable).toBe(false);
    expect(table.columns[1].nullable).toBe(true);
  });

  it('reads exact values', async () => {
    const { rows, source } = await readAll({ ...conn(), query: 'select * from types_src order by id' });
    const names = source.catalogTables()[0].columns.map((c) => c.name);
    const r1 = Object.fromEntries(names.map((n, i) => [n, rows[0].fields[i]]));
    expect(r1).toMatchObject({
      id: 1n,
      c_bool: true,
      c_tiny: -128,
      c_tiny_u: 255,
      c_small: -32768,
      c_small_u: 65535,
      c_medium: -8388608,
      c_int: -2147483648,
      c_int_u: 4294967295n,
      c_big: -9223372036854775808n,
      c_big_u: '18446744073709551615',
      c_float: 1.5,
      c_double: 1.7976931348623157e308,
      c_decimal: '-99999999999999.999999',
      c_decimal_u: '12345678.99',
      c_char: 'ab',
      c_text: 'tab\there\nnew line \\ backslash "q" \'s\' €',
      c_date: '2024-02-29',
      c_time: '-838:59:59.000000',
      c_datetime: '2024-01-02T03:04:05.123456',
      c_timestamp: '2024-01-02T03:04:05.123456',
      c_json: '{"a": [1, 2]}',
      c_enum: 'happy',
      c_set: 'a,c',
      c_bit1: true,
      c_year: 2024,
      c_uuid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    });
    expect(r1.c_blob).toEqual(Buffer.from([0, 255, 16]));
    expect(r1.c_bit8).toEqual(Buffer.from([0b10100101]));
    expect(rows[1].fields.slice(1).every((v) => v === null)).toBe(true);
  });

  it('round-trips every type MariaDB -> MariaDB through the sink (insert and upsert paths)', async () => {
    const src = await readAll({ ...conn(), table_path: `${server.database}.types_src` });
    const input = src.source.catalogTables()[0];
    for (const [table, extra] of [
      ['types_insert', {}],
      ['types_upsert', { primary_keys: ['id'] }],
    ] as const) {
      const sink = await makeSink({ ...conn(), generate_sink_sql: true, database: server.database, table, ...extra }, [input]);
      await writeAll(sink, src.rows);
      const back = await readAll({ ...conn(), query: `select * from ${table} order by id` });
      // The created table holds TIME(6)/DATETIME(6), UUID as text, CHAR as LONGTEXT: values are the same text.
      expect(back.rows.map((r) => r.fields)).toEqual(src.rows.map((r) => r.fields).sort((a, b) => Number(a[0]) - Number(b[0])));
    }
  });
});
