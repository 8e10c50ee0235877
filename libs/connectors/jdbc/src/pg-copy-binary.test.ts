import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCatalogTable, Types, type DataType, type Row } from '@tideway/api';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { CopyEncoder } from './copy-encoder.js';
import { CopyBinaryEncoder, PgOid, binaryFieldWriter } from './pg-copy-binary.js';
import type { PgConnection } from './pg-connection.js';
import { openPgSession } from './test/pg-admin.js';
import type { SinkTarget } from './sink-target.js';

let server: TestDatabaseServer;
let conn: PgConnection;

/** Every column type the binary encoder writes, with the SeaTunnel type of its values. */
const COLUMNS: Array<[name: string, pgType: string, type: DataType]> = [
  ['n', 'integer', Types.INT],
  ['c_bool', 'boolean', Types.BOOLEAN],
  ['c_int2', 'smallint', Types.SMALLINT],
  ['c_int4', 'integer', Types.INT],
  ['c_int8', 'bigint', Types.BIGINT],
  ['c_int8_from_int', 'bigint', Types.INT],
  ['c_float4', 'real', Types.FLOAT],
  ['c_float8', 'double precision', Types.DOUBLE],
  ['c_num', 'numeric(20, 6)', Types.decimal(20, 6)],
  ['c_num_free', 'numeric', Types.decimal(38, 18)],
  ['c_text', 'text', Types.STRING],
  ['c_varchar', 'varchar(20)', Types.STRING],
  ['c_char', 'char(5)', Types.STRING],
  ['c_json', 'json', Types.STRING],
  ['c_jsonb', 'jsonb', Types.STRING],
  ['c_uuid', 'uuid', Types.STRING],
  ['c_bytea', 'bytea', Types.BYTES],
  ['c_date', 'date', Types.DATE],
  ['c_time', 'time(6)', Types.TIME],
  ['c_ts', 'timestamp(6)', Types.TIMESTAMP],
  ['c_tstz', 'timestamptz(6)', Types.TIMESTAMP_TZ],
];

/** Values that probe each encoder's edges: limits, signs, scales, far dates, zones, non-ASCII text. */
const VALUES: unknown[][] = [
  [
    1,
    true,
    -32768,
    -2147483648,
    -9223372036854775808n,
    -2147483648,
    3.4028234663852886e38,
    1.7976931348623157e308,
    '-99999999999999.999999',
    '1234567890.123456789',
    'tab\there\nnew line \\ €',
    'x',
    'ab',
    '{"a": [1, 2]}',
    '{"b": {"c": null}}',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    Buffer.from([0, 255, 16]),
    '2024-02-29',
    '23:59:59.999999',
    '2024-01-02T03:04:05.123456',
    '2024-01-02T03:04:05.123456+08:00',
  ],
  [
    2,
    false,
    32767,
    2147483647,
    9223372036854775807n,
    2147483647,
    -1.5,
    0.1,
    '0.000001',
    '99999999999999999999999999999999999999',
    '',
    'ünïcödé',
    'abcde',
    '[]',
    '[]',
    'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
    Buffer.alloc(0),
    '0001-01-01',
    '00:00:00',
    '0001-01-01T00:00:00',
    '1999-12-31T23:59:59-01:00',
  ],
  [
    3,
    true,
    0,
    0,
    9007199254740993n,
    0,
    Number.NaN,
    Number.NEGATIVE_INFINITY,
    '0',
    '0.000000000000000001',
    'a'.repeat(300),
    '😀 emoji',
    '',
    '"s"',
    '{"k": "€"}',
    '{a0eebc999c0b4ef8bb6d6bb9bd380a11}',
    Buffer.from('hello'),
    '9999-12-31',
    '24:00:00',
    '9999-12-31T23:59:59.999999',
    '2000-01-01T00:00:00Z',
  ],
  [
    4,
    false,
    -1,
    -1,
    -1n,
    -1,
    1e-45,
    -0,
    '-0.00',
    '-12.5',
    'line1\r\nline2',
    ' lead',
    'z',
    'null',
    '{"n": 1.50}',
    '00000000-0000-0000-0000-000000000000',
    Buffer.from([92, 110]),
    '2000-01-01',
    '12:30:00.5',
    '2000-01-01 00:00:00',
    '2024-06-01T12:00:00+0530',
  ],
  [
    5,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    '100000000',
    '+7.25',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    '1999-12-31',
    '00:00:00.000001',
    '1970-01-01T00:00:00',
    '2024-06-01T12:00:00-08',
  ],
  [
    6,
    null,
    null,
    null,
    12345678901234n,
    5,
    null,
    null,
    '00012.0100',
    '.5',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ],
  [7, null, null, null, null, null, null, null, '-0.000100', '10000', null, null, null, null, null, null, null, null, null, null, null],
  [8, null, null, null, null, null, null, null, '5.', '-00000', null, null, null, null, null, null, null, null, null, null, null],
];

function target(table: string): SinkTarget {
  const input = newCatalogTable(
    { table },
    COLUMNS.map(([name, , type]) => ({ name, type, nullable: true })),
  );
  return { input, ref: { schema: 'public', table }, columns: COLUMNS.map(([n]) => n), types: COLUMNS.map(([, , t]) => t), keyIndexes: [] };
}

const rowsOf = (values: unknown[][]): Row[] => values.map((fields) => ({ kind: '+I', tableId: 't', fields }));

async function copyInto(table: string, rows: Row[], binary: boolean): Promise<string> {
  const encoder = new CopyEncoder(target(table));
  if (binary) await encoder.prepare(conn, `public.${table}`);
  const data = encoder.encode(rows);
  const copy = await conn.openCopyIn(
    `public.${table}`,
    COLUMNS.map(([n]) => n),
    data.format,
  );
  await copy.write(data.data);
  await copy.end();
  return data.format;
}

async function stored(table: string): Promise<unknown[][]> {
  return (await conn.execute(`SELECT ${COLUMNS.map(([n]) => `${n}::text`).join(', ')} FROM public.${table} ORDER BY n`)).rows;
}

beforeAll(async () => {
  server = await startPostgres();
  conn = await openPgSession(server);
  for (const t of ['via_binary', 'via_text', 'fallback_binary', 'fallback_text']) {
    await conn.execute(`CREATE TABLE public.${t} (${COLUMNS.map(([n, type]) => `${n} ${type}`).join(', ')})`);
  }
});

afterAll(async () => {
  await conn?.close();
  await server?.stop();
});

describe('COPY in binary format', () => {
  it('stores exactly what the text format stores, for every column type it writes', async () => {
    expect(await copyInto('via_binary', rowsOf(VALUES), true)).toBe('binary');
    expect(await copyInto('via_text', rowsOf(VALUES), false)).toBe('text');
    const binary = await stored('via_binary');
    expect(binary).toEqual(await stored('via_text'));
    // Spot checks against PostgreSQL's own reading of the values.
    expect(binary[1][4]).toBe('9223372036854775807');
    expect(binary[0][20]).toBe('2024-01-01 19:04:05.123456+00');
    expect(binary[1][19]).toBe('0001-01-01 00:00:00');
    expect(binary[3][8]).toBe('0.000000');
  });

  it('sends a batch as text when one of its values has no exact binary form', async () => {
    const odd = VALUES.map((r) => [...r]);
    odd[0][9] = '1.5e3'; // exponent: numeric_in reads it, the binary encoder does not
    odd[1][19] = 'infinity';
    odd[2][17] = '0044-03-15 BC';
    expect(await copyInto('fallback_binary', rowsOf(odd), true)).toBe('text');
    await copyInto('fallback_text', rowsOf(odd), false);
    const rows = await stored('fallback_binary');
    expect(rows).toEqual(await stored('fallback_text'));
    expect(rows[0][9]).toBe('1500');
    expect(rows[1][19]).toBe('infinity');
  });

  it('an out-of-range value fails the COPY with PostgreSQL error, as in text format', async () => {
    const tooLong = VALUES.slice(0, 1).map((r) => [...r]);
    tooLong[0][11] = 'x'.repeat(21);
    await expect(copyInto('via_binary', rowsOf(tooLong), true)).rejects.toThrow(/value too long for type character varying\(20\)/);
  });
});

describe('binary field writers', () => {
  const encodes = (type: DataType, oid: number, value: unknown) =>
    new CopyBinaryEncoder([binaryFieldWriter(type, oid)!]).encode(rowsOf([[value]])) !== undefined;

  it('take plain decimal text only: anything else goes as text', () => {
    for (const ok of ['0', '-0', '.5', '5.', '+1', '007.10', '123456789012345678901234567890.12345678'])
      expect(encodes(Types.decimal(38, 8), PgOid.NUMERIC, ok), ok).toBe(true);
    for (const bad of ['', '-', '.', '+', '1e5', 'NaN', 'Infinity', '1.2.3', ' 1', '1 ', '--1'])
      expect(encodes(Types.decimal(38, 8), PgOid.NUMERIC, bad), bad).toBe(false);
  });

  it('take dates and times of the exact ISO shape, within range', () => {
    for (const bad of ['2024-02-30', '2023-02-29', '2024-13-01', '0000-01-01', '2024-1-01', '10000-01-01'])
      expect(encodes(Types.DATE, PgOid.DATE, bad), bad).toBe(false);
    for (const bad of ['24:00:01', '12:60:00', '12:00:00.1234567', '12:00', '12:00:00.'])
      expect(encodes(Types.TIME, PgOid.TIME, bad), bad).toBe(false);
    for (const bad of ['2024-01-01T00:00:00+16:00', '2024-01-01T00:00:00', '2024-01-01T00:00:00+05:3'])
      expect(encodes(Types.TIMESTAMP_TZ, PgOid.TIMESTAMPTZ, bad), bad).toBe(false);
  });

  it('leave integers out of the column range to the text format (PostgreSQL then rejects them)', () => {
    expect(encodes(Types.SMALLINT, PgOid.INT2, 32768)).toBe(false);
    expect(encodes(Types.INT, PgOid.INT4, 2147483648)).toBe(false);
    expect(encodes(Types.BIGINT, PgOid.INT8, 2n ** 63n)).toBe(false);
    expect(encodes(Types.BIGINT, PgOid.INT8, -(2n ** 63n))).toBe(true);
  });

  it('have no writer for a value type the column would have to convert', () => {
    expect(binaryFieldWriter(Types.STRING, PgOid.INT4)).toBeUndefined();
    expect(binaryFieldWriter(Types.DOUBLE, PgOid.FLOAT4)).toBeUndefined();
    expect(binaryFieldWriter(Types.TIMESTAMP_TZ, PgOid.TIMESTAMP)).toBeUndefined();
    expect(binaryFieldWriter(Types.array(Types.INT), 1007)).toBeUndefined();
  });
});
