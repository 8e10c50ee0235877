import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { formatType } from '@tideway/api';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { makeSink, readAll, writeAll } from './test/wiring.js';

let server: TestDatabaseServer;
let client: pg.Client;

const conn = () => ({ url: server.jdbcUrl, driver: 'org.postgresql.Driver', user: server.user, password: server.password });

beforeAll(async () => {
  server = await startPostgres();
  client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(`
    CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
    CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0);
    CREATE TABLE types_src (
      id bigint PRIMARY KEY, c_bool boolean, c_int2 smallint, c_int4 integer, c_int8 bigint, c_float4 real,
      c_float8 double precision, c_numeric numeric(20, 6), c_numeric_free numeric, c_char char(5), c_varchar varchar(50),
      c_text text, c_bytea bytea, c_date date, c_time time(6), c_timestamp timestamp(6), c_timestamptz timestamptz(6),
      c_json json, c_jsonb jsonb, c_uuid uuid, c_int_arr integer[], c_text_arr text[], c_numeric_arr numeric(10,2)[],
      c_enum mood, c_bit bit(4), c_interval interval, c_inet inet, c_domain positive_int, c_timetz timetz
    );
    INSERT INTO types_src VALUES
      (1, true, -32768, -2147483648, -9223372036854775808, 3.4028235e38, 1.7976931348623157e308,
       '-99999999999999.999999', '1234567890.123456789', 'ab', 'hello', 'tab\there
new line \\ backslash "q" ''s'' €', '\\x00ff10', '2024-02-29', '23:59:59.999999', '2024-01-02 03:04:05.123456',
       '2024-01-02 03:04:05.123456+08', '{"a": [1, 2]}', '{"b": {"c": null}}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
       '{1,NULL,3}', '{"x y","q\\"uote",NULL,"back\\\\slash"}', '{1.50,-2.25}', 'happy', '1010', '1 day 02:03:04', '192.168.0.1/24', 7,
       '12:00:00+05:30'),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (3, false, 32767, 2147483647, 9223372036854775807, -1.5, 0.1, '0.000001', '0', '', '', '', '', '0001-01-01',
       '00:00:00', '1970-01-01 00:00:00', '1999-12-31 23:59:59-01', '[]', '[]', '00000000-0000-0000-0000-000000000000',
       '{}', '{}', '{}', 'sad', '0000', '0', '::1', 1, '00:00:00+00');
  `);
});

afterAll(async () => {
  await client?.end();
  await server?.stop();
});

describe('Jdbc on PostgreSQL: types', () => {
  it('maps every column type to its SeaTunnel type, with nullability and the primary key', async () => {
    const { source } = await readAll({ ...conn(), table_path: `${server.database}.public.types_src` });
    const [table] = source.catalogTables();
    expect(table.tableId).toBe(`${server.database}.public.types_src`);
    expect(table.primaryKey?.columns).toEqual(['id']);
    const types = Object.fromEntries(table.columns.map((c) => [c.name, formatType(c.type)]));
    expect(types).toEqual({
      id: 'bigint',
      c_bool: 'boolean',
      c_int2: 'smallint',
      c_int4: 'int',
      c_int8: 'bigint',
      c_float4: 'float',
      c_float8: 'double',
      c_numeric: 'decimal(20, 6)',
      c_numeric_free: 'decimal(38, 18)',
      c_char: 'string',
      c_varchar: 'string',
      c_text: 'string',
      c_bytea: 'bytes',
      c_date: 'date',
      c_time: 'time',
      c_timestamp: 'timestamp',
      c_timestamptz: 'timestamp_tz',
      c_json: 'string',
      c_jsonb: 'string',
      c_uuid: 'string',
      c_int_arr: 'array<int>',
      c_text_arr: 'array<string>',
      c_numeric_arr: 'array<decimal(10, 2)>',
      c_enum: 'string',
      c_bit: 'string',
      c_interval: 'string',
      c_inet: 'string',
      c_domain: 'int',
      c_timetz: 'string',
    });
    expect(table.columns.find((c) => c.name === 'id')?.nullable).toBe(false);
    expect(table.columns.find((c) => c.name === 'c_text')?.nullable).toBe(true);
  });

  it('reads exact values: 64-bit ints as bigint, decimals and timestamps as text, bytes as Buffer', async () => {
    const { rows, source } = await readAll({ ...conn(), query: 'select * from types_src order by id' });
    const names = source.catalogTables()[0].columns.map((c) => c.name);
    const r1 = Object.fromEntries(names.map((n, i) => [n, rows[0].fields[i]]));
    expect(r1).toMatchObject({
      id: 1n,
      c_bool: true,
      c_int2: -32768,
      c_int4: -2147483648,
      c_int8: -9223372036854775808n,
      c_float4: 3.4028235e38,
      c_float8: 1.7976931348623157e308,
      c_numeric: '-99999999999999.999999',
      c_numeric_free: '1234567890.123456789',
      c_char: 'ab   ',
      c_date: '2024-02-29',
      c_time: '23:59:59.999999',
      c_timestamp: '2024-01-02T03:04:05.123456',
      c_timestamptz: '2024-01-01T19:04:05.123456+00:00',
      c_json: '{"a": [1, 2]}',
      c_jsonb: '{"b": {"c": null}}',
      c_int_arr: [1, null, 3],
      c_text_arr: ['x y', 'q"uote', null, 'back\\slash'],
      c_numeric_arr: ['1.50', '-2.25'],
      c_enum: 'happy',
      c_bit: '1010',
      c_interval: 'P1DT2H3M4S',
      c_inet: '192.168.0.1/24',
      c_domain: 7,
      c_timetz: '12:00:00+05:30',
    });
    expect(r1.c_bytea).toEqual(Buffer.from([0, 255, 16]));
    expect(r1.c_text).toBe('tab\there\nnew line \\ backslash "q" \'s\' €');
    expect(rows[1].fields.slice(1).every((v) => v === null)).toBe(true);
    expect(rows[0].kind).toBe('+I');
  });

  it('round-trips every type PostgreSQL -> PostgreSQL through the sink (created table, COPY and upsert paths)', async () => {
    const src = await readAll({ ...conn(), table_path: 'public.types_src' });
    const input = src.source.catalogTables()[0];
    for (const [table, extra] of [
      ['types_copy', {}],
      ['types_upsert', { primary_keys: ['id'] }],
    ] as const) {
      const sink = await makeSink({ ...conn(), generate_sink_sql: true, database: server.database, table: `public.${table}`, ...extra }, [
        input,
      ]);
      await writeAll(sink, src.rows);
      const back = await readAll({ ...conn(), query: `select * from public.${table} order by id` });
      // Unconstrained numeric is decimal(38, 18) (SeaTunnel's mapping): the created column pads the scale.
      const freeIdx = input.columns.findIndex((c) => c.name === 'c_numeric_free');
      const padded: Record<string, string> = { '1234567890.123456789': '1234567890.123456789000000000', '0': '0.000000000000000000' };
      const expected = src.rows
        .map((r) => r.fields.map((v, i) => (i === freeIdx && typeof v === 'string' ? padded[v] : v)))
        .sort((a, b) => Number(a[0]) - Number(b[0]));
      expect(back.rows.map((r) => r.fields)).toEqual(expected);
    }
  });
});
