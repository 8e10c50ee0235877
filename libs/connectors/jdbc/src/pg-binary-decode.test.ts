import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { to as copyTo } from 'pg-copy-streams';
import { binaryFieldReader, decodeBinaryTuple, type BinaryFieldReader } from './pg-binary-decode.js';
import type { PgConnection } from './pg-connection.js';
import { openPgSession } from './test/pg-admin.js';

/**
 * The binary decoders against the text path on the same rows of a real PostgreSQL: every value
 * read with `COPY ... TO STDOUT (FORMAT binary)` and this module must be identical (Object.is,
 * so -0, NaN and the exact double count) to what the source's own text reading gives.
 */

let server: TestDatabaseServer;
let conn: PgConnection;

/** One column per covered type (some types twice, with a typmod that rounds on storage). */
const COLUMNS: Array<[name: string, type: string]> = [
  ['n', 'integer'],
  ['c_bool', 'boolean'],
  ['c_bytea', 'bytea'],
  ['c_char', '"char"'],
  ['c_name', 'name'],
  ['c_int8', 'bigint'],
  ['c_int2', 'smallint'],
  ['c_int4', 'integer'],
  ['c_text', 'text'],
  ['c_oid', 'oid'],
  ['c_json', 'json'],
  ['c_float4', 'real'],
  ['c_float8', 'double precision'],
  ['c_bpchar', 'char(6)'],
  ['c_varchar', 'varchar(40)'],
  ['c_date', 'date'],
  ['c_time', 'time'],
  ['c_time3', 'time(3)'],
  ['c_ts', 'timestamp'],
  ['c_ts0', 'timestamp(0)'],
  ['c_tstz', 'timestamptz'],
  ['c_num', 'numeric'],
  ['c_num_scaled', 'numeric(12, 4)'],
  ['c_uuid', 'uuid'],
  ['c_jsonb', 'jsonb'],
];
const NAMES = COLUMNS.map(([n]) => n);
const col = (name: string) => NAMES.indexOf(name);

/** SQL literals of the edge values, per column (a row takes the i-th of each list, NULL past its end). */
const EDGES: Record<string, string[]> = {
  c_bool: ['true', 'false'],
  c_bytea: [`'\\x'`, `'\\x00ff5c0a09'`, `'\\x5c4e'`],
  c_char: [`''`, `'a'`, `'\\'`, `'\\351'`, `'\\377'`, `E'\\t'`, `E'\\n'`, `'\\200'`, `'\\001'`],
  c_name: [`repeat('x', 70)`, `repeat('é', 40)`, `''`, `E'tab\\there'`],
  c_int8: ['-9223372036854775808', '9223372036854775807', '0', '9007199254740993', '-1'],
  c_int2: ['-32768', '32767', '0', '-1'],
  c_int4: ['-2147483648', '2147483647', '0', '-1'],
  c_text: [`''`, `E'tab\\there\\nnew line \\\\ back\\r'`, `'😀 €'`, `E'\\x01ctl'`, `'\\N'`, `repeat('long ', 2000)`],
  c_oid: ['0', '4294967295', '2147483648', '1'],
  c_json: [`'{"a" : 1, "a": 2}'`, `'  [1, 2.50,  "x"] '`, `'null'`, `'"\\u00e9\\n"'`, `'1e3'`],
  c_float4: [
    `'NaN'`,
    `'Infinity'`,
    `'-Infinity'`,
    `'-0'`,
    `'0'`,
    `'1e-45'`,
    `'-1.1754942e-38'`,
    `'1.17549435e-38'`,
    `'3.4028235e38'`,
    `'0.1'`,
    // 9e9 is the midpoint between these two floats: it would read back as the even one, but is not printed for it.
    `'8999999488'`,
    `'9000000512'`,
    `'16777217'`,
    `'33554432'`,
    `'1e10'`,
    `'123.456'`,
    `'-2.5'`,
    `'0.3'`,
    `'1e-40'`,
  ],
  c_float8: [
    `'NaN'`,
    `'Infinity'`,
    `'-Infinity'`,
    `'-0'`,
    `'0'`,
    `'5e-324'`,
    `'2.2250738585072014e-308'`,
    `'1e308'`,
    `'1.7976931348623157e308'`,
    `'0.1'`,
    `'-1.5'`,
    `'9007199254740993'`,
  ],
  c_bpchar: [`'ab'`, `''`, `'abcdef'`, `'é'`, `' x '`],
  c_varchar: [`''`, `'ünïcödé'`, `repeat('€', 40)`],
  c_date: [
    `'infinity'`,
    `'-infinity'`,
    `'0044-03-15 BC'`,
    `'4713-11-24 BC'`,
    `'5874897-12-31'`,
    `'0001-01-01'`,
    `'0001-12-31 BC'`,
    `'9999-12-31'`,
    `'10000-01-01'`,
    `'2000-02-29'`,
    `'1900-03-01'`,
    `'0099-01-01'`,
    `'1999-12-31'`,
    `'2000-01-01'`,
    `'0400-02-29'`,
    `'0005-02-29 BC'`,
  ],
  c_time: [`'00:00:00'`, `'24:00:00'`, `'23:59:59.999999'`, `'12:00:00.5'`, `'00:00:00.000001'`, `'13:14:15.120000'`],
  c_time3: [`'12:00:00.123456'`, `'23:59:59.9999'`, `'01:02:03'`],
  c_ts: [
    `'infinity'`,
    `'-infinity'`,
    `'4713-11-24 00:00:00 BC'`,
    `'294276-12-31 23:59:59.999999'`,
    `'0044-03-15 12:30:00.5 BC'`,
    `'1999-12-31 23:59:59.999999'`,
    `'2000-01-01 00:00:00'`,
    `'9999-12-31 23:59:59.999999'`,
    `'10000-01-01 00:00:00'`,
    `'1970-01-01 00:00:00.000001'`,
    `'1969-12-31 23:59:59.999999'`,
    `'0001-01-01 00:00:00'`,
    `'0001-12-31 23:59:59 BC'`,
  ],
  c_ts0: [`'2024-01-01 12:00:00.7'`, `'0010-06-30 23:59:59.5 BC'`],
  c_tstz: [
    `'2024-06-01 12:00:00-08'`,
    `'0044-03-15 12:30:00+00 BC'`,
    `'294276-12-31 23:59:59.999999+00'`,
    `'infinity'`,
    `'-infinity'`,
    `'10000-01-01 00:00:00+00'`,
    `'4713-11-24 00:00:00+00 BC'`,
    `'2000-01-01 00:00:00.000001+05:30'`,
    `'1900-01-01 00:00:00+14'`,
  ],
  c_num: [
    `'NaN'`,
    `'Infinity'`,
    `'-Infinity'`,
    `'0'`,
    `'0.000'`,
    `'-0.00'`,
    `'1e-20'`,
    `'-12345678901234567890.123456789'`,
    `'100000000'`,
    `'10000'`,
    `'0.0001'`,
    `'0.00010'`,
    `'123.4500'`,
    `'9999'`,
    `'-0.5'`,
    `'1e1000'`,
    `'1e131071'`,
    `'1e-16383'`,
    `('-' || repeat('9', 1000) || '.' || repeat('9', 1000))`,
    `'1.5e-7'`,
  ],
  c_num_scaled: [`'12345678.12345'`, `'0'`, `'-1.5'`, `'-99999999.9999'`, `'0.00005'`],
  c_uuid: [`'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'`, `'00000000-0000-0000-0000-000000000000'`, `'ffffffff-ffff-ffff-ffff-ffffffffffff'`],
  c_jsonb: [`'{"b": 1, "a": [1, 2.50, {"z": null}], "a": "dup"}'`, `'1e3'`, `'"\\u00e9\\n"'`, `'[]'`, `'{}'`, `'-0.0'`],
};
const EDGE_ROWS = Math.max(...Object.values(EDGES).map((v) => v.length));

/** A seeded xorshift32, so a failure reproduces. */
function prng(seed: number) {
  let s = seed >>> 0 || 1;
  const u32 = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  const int = (lo: number, hi: number) => lo + Math.floor((u32() / 4294967296) * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)];
  return { u32, int, pick, chance: (p: number) => u32() / 4294967296 < p };
}

const f32 = new Float32Array(1);
const u32view = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u32x2 = new Uint32Array(f64.buffer);

/** PostgreSQL's text input for a double or a float32 held in a double: exact, and '-0' kept. */
const floatText = (x: number) => (Object.is(x, -0) ? '-0' : String(x));
const float32OfBits = (bits: number) => {
  u32view[0] = bits;
  return f32[0];
};
const bitsOfFloat32 = (x: number) => {
  f32[0] = x;
  return u32view[0];
};

/** Characters that stress COPY's text escaping and UTF-8: tabs, newlines, backslashes, multi-byte. */
const ALPHABET = ['a', 'Z', '0', ' ', '\t', '\n', '\r', '\\', 'N', '"', "'", 'é', '€', '😀', '\u0001', '{', ',', 'ß', '中'];

function randomText(r: ReturnType<typeof prng>, maxLen: number): string {
  const n = r.int(0, maxLen);
  let s = '';
  for (let i = 0; i < n; i++) s += r.pick(ALPHABET);
  return s;
}

function randomJson(r: ReturnType<typeof prng>, depth = 0): string {
  const ws = () => r.pick(['', ' ', '  ', '\n']);
  const k = r.int(0, depth > 2 ? 3 : 6);
  switch (k) {
    case 0:
      return 'null';
    case 1:
      return r.pick(['true', 'false']);
    case 2:
      return r.pick(['0', '-0', '1.50', '1e3', '-2.5E-3', String(r.int(-1e9, 1e9)), '123456789012345678901234567890']);
    case 3:
      return JSON.stringify(randomText(r, 8));
    case 4: {
      const items = Array.from({ length: r.int(0, 3) }, () => randomJson(r, depth + 1));
      return `[${ws()}${items.join(`,${ws()}`)}${ws()}]`;
    }
    default: {
      const keys = Array.from(
        { length: r.int(0, 4) },
        () => `${JSON.stringify(r.pick(['a', 'b', 'bb', 'é', '']))}${ws()}:${ws()}${randomJson(r, depth + 1)}`,
      );
      return `{${ws()}${keys.join(`,${ws()}`)}${ws()}}`;
    }
  }
}

function randomNumeric(r: ReturnType<typeof prng>, maxInt: number, maxFrac: number, specials: boolean): string {
  if (specials && r.chance(0.03)) return r.pick(['NaN', 'Infinity', '-Infinity']);
  const digits = (n: number) => Array.from({ length: n }, () => String(r.int(0, 9))).join('');
  let s = `${r.chance(0.4) ? '-' : ''}${digits(r.int(0, maxInt))}`;
  if (r.chance(0.7)) s += `.${digits(r.int(0, maxFrac))}`;
  if (s === '' || s === '-' || s === '.' || s === '-.' || s.endsWith('-.')) s += '0';
  if (specials && r.chance(0.1)) s += `e${r.int(-60, 60)}`;
  return s;
}

const hex = (bytes: number[]) => Buffer.from(bytes).toString('hex');

/** Days from 2000-01-01 to date's first and last days (4713-11-24 BC, 5874897-12-31), and timestamp's last. */
const DATE_MIN = -2451545;
const DATE_MAX = 2145031948;
const TS_DAYS_MAX = 106751990;
const MICROS_PER_DAY = 86_400_000_000;

/** A day count: near 2000 mostly, anywhere in the range sometimes. */
function randomDays(r: ReturnType<typeof prng>, max: number): number {
  return r.chance(0.6) ? r.int(-40_000, 40_000) : r.int(DATE_MIN, max);
}

function randomMicros(r: ReturnType<typeof prng>): number {
  const m = r.int(0, MICROS_PER_DAY / 1000 - 1) * 1000 + r.int(0, 999);
  return r.pick([m, m - (m % 1_000_000), m - (m % 1000), m - (m % 100_000)]);
}

/** The parameters of one generated row, as text (NULL sometimes for every column). */
function generatedRow(r: ReturnType<typeof prng>, n: number): Array<string | null> {
  const nullable = (v: string) => (r.chance(0.05) ? null : v);
  const f4bits = r.chance(0.2) ? bitsOfFloat32(r.int(-100000, 100000) / r.pick([1, 10, 100, 1000])) : r.u32();
  u32x2[0] = r.u32();
  u32x2[1] = r.u32();
  const f8 = r.chance(0.2) ? r.int(-1e6, 1e6) / r.pick([1, 10, 100, 1000]) : f64[0];
  const int8 = BigInt.asIntN(64, (BigInt(r.u32()) << 32n) | BigInt(r.u32()));
  const b = r.int(0, 255);
  return [
    String(n),
    nullable(r.pick(['t', 'f'])),
    nullable(hex(Array.from({ length: r.int(0, 20) }, () => r.int(0, 255)))),
    // charin reads a backslash and three octal digits as that byte (PostgreSQL 15 and later).
    nullable(`\\${b.toString(8).padStart(3, '0')}`),
    nullable(randomText(r, 40)),
    nullable(r.chance(0.5) ? int8.toString() : String(r.int(-1e6, 1e6))),
    nullable(String(r.int(-32768, 32767))),
    nullable(String(r.int(-2147483648, 2147483647))),
    nullable(randomText(r, 60)),
    nullable(String(r.u32())),
    nullable(randomJson(r)),
    nullable(floatText(float32OfBits(f4bits))),
    nullable(floatText(f8)),
    nullable(randomText(r, 6)),
    nullable(randomText(r, 40)),
    nullable(String(randomDays(r, DATE_MAX))),
    nullable(String(randomMicros(r))),
    nullable(String(randomMicros(r))),
    nullable(String(randomDays(r, TS_DAYS_MAX))),
    nullable(String(randomMicros(r))),
    nullable(String(randomMicros(r))),
    nullable(String(randomDays(r, TS_DAYS_MAX))),
    nullable(String(randomMicros(r))),
    nullable(randomNumeric(r, r.chance(0.1) ? 200 : 25, r.chance(0.1) ? 200 : 25, true)),
    nullable(randomNumeric(r, 7, 6, false)),
    nullable(hex(Array.from({ length: 16 }, () => r.int(0, 255)))),
    nullable(randomJson(r)),
  ];
}

/** How each generated parameter becomes its column's value (days and microseconds from 2000-01-01 for the temporal ones). */
const GENERATED_SELECT = `SELECT p[1]::int, p[2]::boolean, decode(p[3], 'hex'), p[4]::"char", p[5]::name, p[6]::bigint, p[7]::smallint,
  p[8]::integer, p[9], p[10]::oid, p[11]::json, p[12]::real, p[13]::double precision, p[14]::char(6), p[15]::varchar(40),
  date '2000-01-01' + p[16]::int, time '00:00' + p[17]::bigint * interval '1 microsecond',
  (time '00:00' + p[18]::bigint * interval '1 microsecond')::time(3),
  timestamp '2000-01-01' + p[19]::int * interval '1 day' + p[20]::bigint * interval '1 microsecond',
  (timestamp '2000-01-01' + p[19]::int * interval '1 day' + p[21]::bigint * interval '1 microsecond')::timestamp(0),
  timestamptz '2000-01-01 00:00:00+00' + p[22]::int * interval '1 day' + p[23]::bigint * interval '1 microsecond',
  p[24]::numeric, p[25]::numeric(12, 4), p[26]::uuid, p[27]::jsonb
  FROM (SELECT string_to_array(x, E'\\x1f', '\\N') FROM unnest($1::text[]) AS x) AS g(p)`;

const GENERATED = 2000;

/** Rows of `COPY (sql) TO STDOUT`, read and decoded as the PostgreSQL source reads them. */
async function viaText(sql: string): Promise<unknown[][]> {
  const columns = await conn.describe(sql);
  const stream = await conn.stream(sql, columns);
  const rows: unknown[][] = [];
  for (;;) {
    const batch = await stream.read(4096);
    if (batch.length === 0) break;
    for (const row of batch) rows.push(row);
  }
  return rows;
}

/** The whole output of `COPY (sql) TO STDOUT (FORMAT binary)`, and the offset of each tuple in it. */
async function binaryCopy(sql: string): Promise<{ data: Buffer; tuples: number[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of conn.client.query(copyTo(`COPY (${sql}) TO STDOUT (FORMAT binary)`))) chunks.push(chunk as Buffer);
  const data = Buffer.concat(chunks);
  expect(data.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
  let p = 11 + 4 + 4 + data.readInt32BE(15); // signature, flags, header extension
  const tuples: number[] = [];
  for (;;) {
    const count = data.readInt16BE(p);
    if (count === -1) break;
    tuples.push(p);
    p += 2;
    for (let i = 0; i < count; i++) {
      const len = data.readInt32BE(p);
      p += 4 + Math.max(len, 0);
    }
  }
  expect(p + 2).toBe(data.length);
  return { data, tuples };
}

/** The readers for a query's columns, by their type oid as PostgreSQL describes them. */
async function readersOf(sql: string): Promise<BinaryFieldReader[]> {
  const res = await conn.client.query({ text: `SELECT * FROM (${sql}) AS q LIMIT 0`, rowMode: 'array' });
  return res.fields.map((f) => {
    const reader = binaryFieldReader(f.dataTypeID);
    if (!reader) throw new Error(`no binary reader for column ${f.name} (oid ${f.dataTypeID})`);
    return reader;
  });
}

function show(v: unknown): string {
  if (Buffer.isBuffer(v)) return `Buffer<${v.toString('hex')}>`;
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}...(${v.length})` : v);
  if (Object.is(v, -0)) return '-0';
  return `${typeof v} ${String(v)}`;
}

/** Identical values: Object.is (NaN equals NaN, -0 differs from 0, bigints by value), Buffers by content. */
function same(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) || Buffer.isBuffer(b)) return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
  return Object.is(a, b);
}

/** Every difference between the two readings, naming the row (its first column) and the column. */
function differences(text: unknown[][], binary: unknown[][], names: readonly string[]): string[] {
  const out: string[] = [];
  if (text.length !== binary.length) out.push(`${text.length} rows as text, ${binary.length} as binary`);
  for (let r = 0; r < Math.min(text.length, binary.length); r++) {
    for (let c = 0; c < names.length; c++) {
      if (!same(binary[r][c], text[r][c]))
        out.push(`row ${show(text[r][0])} column ${names[c]}: binary gives ${show(binary[r][c])}, text gives ${show(text[r][c])}`);
    }
  }
  return out;
}

const decodeAll = (readers: readonly BinaryFieldReader[], copy: { data: Buffer; tuples: number[] }) =>
  copy.tuples.map((t) => decodeBinaryTuple(readers, copy.data, t));

const ALL_ROWS = `SELECT ${NAMES.join(', ')} FROM public.bd ORDER BY n`;
let textRows: unknown[][];
let binary: { data: Buffer; tuples: number[] };
let readers: BinaryFieldReader[];

beforeAll(async () => {
  server = await startPostgres();
  conn = await openPgSession(server);
  await conn.execute(`CREATE TABLE public.bd (${COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')})`);
  for (let i = 0; i < EDGE_ROWS; i++) {
    const values = COLUMNS.map(([name, type]) => (name === 'n' ? String(i) : `(${EDGES[name][i] ?? 'NULL'})::${type}`));
    await conn.execute(`INSERT INTO public.bd VALUES (${values.join(', ')})`);
  }
  const r = prng(0x5eed);
  const generated = Array.from({ length: GENERATED }, (_, i) =>
    generatedRow(r, 1000 + i)
      .map((v) => (v === null ? '\\N' : v))
      .join('\x1f'),
  );
  await conn.execute(`INSERT INTO public.bd ${GENERATED_SELECT}`, [generated]);
  textRows = await viaText(ALL_ROWS);
  binary = await binaryCopy(ALL_ROWS);
  readers = await readersOf(ALL_ROWS);
});

afterAll(async () => {
  await conn?.close();
  await server?.stop();
});

describe('COPY BINARY field readers', () => {
  it('give exactly the values the text path gives, for every covered type, edge and generated rows', () => {
    expect(textRows.length).toBe(EDGE_ROWS + GENERATED);
    expect(differences(textRows, decodeAll(readers, binary), NAMES)).toEqual([]);
  });

  it('read the edges as PostgreSQL prints them, with the text path quirks kept', () => {
    const rows = decodeAll(readers, binary);
    const at = (row: number, name: string) => rows[row][col(name)];
    expect(at(0, 'c_float4')).toBeNaN();
    expect(Object.is(at(3, 'c_float4'), -0)).toBe(true);
    expect(at(9, 'c_float4')).toBe(0.1);
    expect(at(10, 'c_float4')).toBe(8.999999e9); // not 9e9: a midpoint is never printed
    expect(at(11, 'c_float4')).toBe(9.000001e9);
    expect(at(2, 'c_date')).toBe('0044-03-15 BC');
    expect(at(0, 'c_date')).toBe('infinity');
    expect(at(8, 'c_date')).toBe('10000-01-01');
    expect(at(1, 'c_time')).toBe('24:00:00');
    expect(at(4, 'c_ts')).toBe('0044-03-15T12:30:00.5 BC');
    // isoTimestamp only puts a 'T' at index 10: a five-digit year keeps its space.
    expect(at(8, 'c_ts')).toBe('10000-01-01 00:00:00');
    expect(at(3, 'c_ts')).toBe('294276-12-31 23:59:59.999999');
    expect(at(0, 'c_tstz')).toBe('2024-06-01T20:00:00+00:00');
    // The offset comes before ' BC', so the text path does not complete it to '+00:00'.
    expect(at(1, 'c_tstz')).toBe('0044-03-15T12:30:00+00 BC');
    expect(at(5, 'c_tstz')).toBe('10000-01-01 00:00:00+00:00');
    expect(at(5, 'c_num')).toBe('0.00');
    expect(at(6, 'c_num')).toBe('0.00000000000000000001');
    expect(at(0, 'c_num')).toBe('NaN');
    expect(at(2, 'c_num')).toBe('-Infinity');
    expect(at(3, 'c_char')).toBe('\\351');
    expect(at(0, 'c_char')).toBe('');
    expect(at(0, 'c_uuid')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(at(0, 'c_jsonb')).toBe('{"a": "dup", "b": 1}');
    expect(at(1, 'c_bytea')).toEqual(Buffer.from([0, 255, 0x5c, 10, 9]));
    expect(at(1, 'c_oid')).toBe(4294967295n);
    expect(at(0, 'c_int8')).toBe(-9223372036854775808n);
  });

  it('catch a reader that differs from the text path (the comparison can fail)', () => {
    const naive = [...readers];
    naive[col('c_float4')] = (buf, start) => buf.readFloatBE(start);
    naive[col('c_tstz')] = binaryFieldReader(1114)!; // timestamp's: no offset
    naive[col('c_char')] = (buf, start, len) => buf.toString('latin1', start, start + len);
    const found = differences(textRows, decodeAll(naive, binary), NAMES);
    for (const name of ['c_float4', 'c_tstz', 'c_char'])
      expect(
        found.some((d) => d.includes(`column ${name}:`)),
        name,
      ).toBe(true);
    expect(found.some((d) => d.includes('column c_float4: binary gives number 0.10000000149011612, text gives number 0.1'))).toBe(true);
    expect(same(0, -0)).toBe(false);
    expect(same(Number.NaN, Number.NaN)).toBe(true);
  });

  it('read float4 as Number() of its shortest text, over many floats', async () => {
    const r = prng(0xf10a7);
    const bits = new Set<number>();
    for (let i = 0; i < 40_000; i++) bits.add(r.u32());
    // Powers of two (whose gap below is half the gap above) and their neighbours, every exponent.
    for (let e = 0; e < 255; e++) for (const m of [0, 1, 2, 0x7fffff, 0x7ffffe]) bits.add((e << 23) | m);
    // Floats near short decimals, on both sides: where a midpoint between two floats can be a
    // decimal of few digits (which PostgreSQL does not print), and where one float is exactly
    // halfway between two decimals of its shortest length (PostgreSQL takes the even one).
    for (let e = -45; e <= 38; e++) {
      for (let d = 1; d < 1000; d += e < 0 ? 7 : 1) {
        const b = bitsOfFloat32(Number(`${d}e${e}`));
        if (b >= 0x7f800000) continue;
        for (const x of [b - 1, b, b + 1]) if (x >= 0 && x < 0x7f800000) bits.add(x);
      }
    }
    for (let i = 0; i <= 10_000; i++) bits.add(bitsOfFloat32(i / 100));
    // Floats with few fraction bits that are exactly halfway between two decimals of their
    // shortest length (389170.125 prints '389170.12'), and their neighbours.
    for (let i = 0; i < 5000; i++) {
      const b = bitsOfFloat32(r.int(2 ** 14, 2 ** 23) + r.pick([0.125, 0.375, 0.625, 0.875, 0.25, 0.75, 0.5]));
      for (const x of [b - 1, b, b + 1]) bits.add(x);
    }
    const texts = [...bits].map((b) => floatText(float32OfBits(b)));
    await conn.execute('CREATE TABLE public.f4 (n serial, v real)');
    await conn.execute('INSERT INTO public.f4 (v) SELECT x::real FROM unnest($1::text[]) AS x', [texts]);
    const sql = 'SELECT n, v, -v FROM public.f4 ORDER BY n';
    const text = await viaText(sql);
    const decoded = decodeAll(await readersOf(sql), await binaryCopy(sql));
    expect(text.length).toBe(texts.length);
    expect(differences(text, decoded, ['n', 'v', '-v']).slice(0, 20)).toEqual([]);
  });

  it('have no reader for a type they do not read exactly', () => {
    expect(binaryFieldReader(1186)).toBeUndefined(); // interval
    expect(binaryFieldReader(1007)).toBeUndefined(); // int4[]
    expect(binaryFieldReader(1266)).toBeUndefined(); // timetz
    expect(binaryFieldReader(790)).toBeUndefined(); // money
    expect(binaryFieldReader(23)).toBeDefined();
  });

  it('refuse a tuple whose field count is not the number of readers', () => {
    const { data, tuples } = binary;
    expect(() => decodeBinaryTuple(readers.slice(1), data, tuples[0])).toThrow(
      `COPY BINARY tuple of ${NAMES.length} fields where ${NAMES.length - 1}`,
    );
  });
});
