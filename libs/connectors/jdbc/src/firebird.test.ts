/**
 * The Firebird dialect against a real Firebird 3 server (Debian's, started privately and shared
 * by the files of one run): types both ways, every SeaTunnel type written and read back, upserts
 * (UPDATE OR INSERT ... MATCHING) and deletes by key, the catalog (tables, columns, primary
 * keys), splits, save modes, and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatType, newCatalogTable, RowKind, Types, type CatalogTable, type Row } from '@tideway/api';
import { firebirdMissing, sharedFirebird, type FirebirdServer } from '@tideway/testing';
import { parseJdbcUrl } from './jdbc-url.js';
import { FB, firebirdColumnReading, firebirdColumnType } from './firebird-types.js';
import { FirebirdConnection } from './firebird-connection.js';
import { connectionSettings } from './connection-settings.js';
import { makeSink, readAll, writeAll } from './test/wiring.js';

describe('Firebird urls and types (no server)', () => {
  it("reads Jaybird's url forms", () => {
    expect(parseJdbcUrl('jdbc:firebirdsql://db.example:3051//data/x.fdb', {})).toMatchObject({
      dialect: 'firebird',
      host: 'db.example',
      port: 3051,
      database: '/data/x.fdb',
    });
    expect(parseJdbcUrl('jdbc:firebirdsql://localhost/employee?encoding=UTF8', {})).toMatchObject({
      port: 3050,
      database: 'employee',
    });
    expect(parseJdbcUrl('jdbc:firebirdsql:127.0.0.1/3052:/var/db/a.fdb', {})).toMatchObject({
      host: '127.0.0.1',
      port: 3052,
      database: '/var/db/a.fdb',
    });
    expect(parseJdbcUrl('jdbc:firebird:host:alias', {})).toMatchObject({ host: 'host', port: 3050, database: 'alias' });
    expect(() => parseJdbcUrl('jdbc:firebirdsql://host', {})).toThrow(/url 'jdbc:firebirdsql:\/\/host' cannot be used: expected/);
    const target = parseJdbcUrl('jdbc:firebirdsql://h/db?encoding=WIN1252', {});
    expect(() => connectionSettings(target, {}, undefined, 30, {})).toThrow(
      /encoding=WIN1252 is not supported: the connector always reads and writes UTF8/,
    );
    expect(() => connectionSettings(parseJdbcUrl('jdbc:firebirdsql://h/db?role=R', {}), {}, undefined, 30, {})).toThrow(
      /role=R is not supported for Firebird/,
    );
  });

  it('reads result columns as SeaTunnel types and refuses Firebird 4 types', () => {
    const read = (type: number, subType = 0, scale = 0, charSetId?: number, precision?: number) =>
      formatType(firebirdColumnReading('c', { type, subType, scale, length: 8, charSetId }, precision).type);
    expect(read(FB.SHORT)).toBe('smallint');
    expect(read(FB.LONG)).toBe('int');
    expect(read(FB.INT64)).toBe('bigint');
    expect(read(FB.INT64, 1, -4, undefined, 18)).toBe('decimal(18, 4)');
    expect(read(FB.LONG, 2, -2, undefined, 7)).toBe('decimal(7, 2)');
    expect(read(FB.SHORT, 1, 0, undefined, 3)).toBe('decimal(3, 0)');
    expect(read(FB.INT64, 1, -2)).toBe('decimal(18, 2)');
    expect(read(FB.FLOAT)).toBe('float');
    expect(read(FB.DOUBLE)).toBe('double');
    expect(read(FB.BOOLEAN)).toBe('boolean');
    expect(read(FB.TYPE_DATE)).toBe('date');
    expect(read(FB.TYPE_TIME)).toBe('time');
    expect(read(FB.TIMESTAMP)).toBe('timestamp');
    expect(read(FB.VARYING, 0, 0, 4)).toBe('string');
    expect(read(FB.TEXT, 0, 0, 0)).toBe('string');
    expect(read(FB.VARYING, 0, 0, 1)).toBe('bytes');
    expect(read(FB.BLOB, 1)).toBe('string');
    expect(read(FB.BLOB, 0)).toBe('bytes');
    for (const t of [FB.INT128, FB.DEC34, FB.TIMESTAMP_TZ, FB.TIME_TZ]) {
      expect(() => read(t)).toThrow(
        /column 'c' has Firebird type (INT128|DECFLOAT\(34\)|TIMESTAMP WITH TIME ZONE|TIME WITH TIME ZONE), which has no SeaTunnel type/,
      );
    }
  });

  it('creates column types for SeaTunnel types, refusing decimals over 18 digits', () => {
    expect(firebirdColumnType(Types.STRING, false)).toBe('BLOB SUB_TYPE TEXT');
    expect(firebirdColumnType(Types.STRING, true)).toBe('VARCHAR(255)');
    expect(firebirdColumnType(Types.BYTES, true)).toBe('VARCHAR(255) CHARACTER SET OCTETS');
    expect(firebirdColumnType(Types.TINYINT, false)).toBe('SMALLINT');
    expect(firebirdColumnType(Types.decimal(18, 4), false)).toBe('DECIMAL(18, 4)');
    expect(() => firebirdColumnType(Types.decimal(38, 10), false)).toThrow(/decimal\(38, 10\) does not fit Firebird 3/);
  });
});

const missing = firebirdMissing();
if (missing && process.env.CI !== 'true') console.log(`Firebird tests skipped: ${missing}`);

describe.skipIf(missing !== undefined && process.env.CI !== 'true')('Firebird sink and source on a real server', () => {
  let server: FirebirdServer;
  let conn: { url: string; driver: string; user: string; password: string };
  let database: string;
  beforeAll(async () => {
    server = await sharedFirebird();
    database = await server.createDatabase(`jdbc_${process.pid}_${Date.now()}`);
    conn = {
      url: `jdbc:firebirdsql://127.0.0.1:${server.port}/${database}`,
      driver: 'org.firebirdsql.jdbc.FBDriver',
      user: server.user,
      password: server.password,
    };
  });
  afterAll(async () => server?.stop());

  const all: CatalogTable = newCatalogTable(
    { database: 'src', table: 'all' },
    [
      { name: 'id', type: Types.BIGINT, nullable: false },
      { name: 'c_bool', type: Types.BOOLEAN, nullable: true },
      { name: 'c_tiny', type: Types.TINYINT, nullable: true },
      { name: 'c_small', type: Types.SMALLINT, nullable: true },
      { name: 'c_int', type: Types.INT, nullable: true },
      { name: 'c_float', type: Types.FLOAT, nullable: true },
      { name: 'c_double', type: Types.DOUBLE, nullable: true },
      { name: 'c_dec', type: Types.decimal(18, 4), nullable: true },
      { name: 'c_text', type: Types.STRING, nullable: true },
      { name: 'c_bytes', type: Types.BYTES, nullable: true },
      { name: 'c_date', type: Types.DATE, nullable: true },
      { name: 'c_time', type: Types.TIME, nullable: true },
      { name: 'c_ts', type: Types.TIMESTAMP, nullable: true },
      { name: 'c_tstz', type: Types.TIMESTAMP_TZ, nullable: true },
    ],
    { primaryKey: { name: 'pk', columns: ['id'] } },
  );
  const row1 = [
    9223372036854775807n,
    true,
    -128,
    -32768,
    2147483647,
    1.5,
    0.1,
    '12345678901234.5678',
    'tab\there \'q\' "d" ✓ 日本',
    Buffer.from([0, 255, 16]),
    '2024-02-29',
    '23:59:59.9999',
    '2024-01-02T03:04:05.1234',
    '2024-01-02T03:04:05.1234+08:00',
  ];
  const row2 = [
    -9223372036854775808n,
    false,
    127,
    0,
    -2147483648,
    -0.25,
    -1e-300,
    '-0.0001',
    '',
    Buffer.alloc(0),
    '1900-01-01',
    '00:00:00',
    '1970-01-01T00:00:00',
    '1970-01-01T00:00:00Z',
  ];
  const row3 = [3n, ...new Array<null>(13).fill(null)];
  const asRow = (kind: Row['kind'], fields: unknown[]): Row => ({ kind, tableId: all.tableId, fields });

  it('writes every type (creating the table), reads it back equal, and upserts and deletes by key', async () => {
    const sinkOptions = { ...conn, generate_sink_sql: true, table: 'ALL_TYPES', primary_keys: ['id'] };
    await writeAll(await makeSink(sinkOptions, [all]), [
      asRow(RowKind.INSERT, row1),
      asRow(RowKind.INSERT, row2),
      asRow(RowKind.INSERT, row3),
    ]);
    const { rows, source } = await readAll({ ...conn, table_path: 'ALL_TYPES' });
    const table = source.catalogTables()[0];
    expect(table.primaryKey?.columns).toEqual(['id']);
    expect(table.columns.map((c) => `${c.name} ${formatType(c.type)}`)).toEqual([
      'id bigint',
      'c_bool boolean',
      'c_tiny smallint',
      'c_small smallint',
      'c_int int',
      'c_float float',
      'c_double double',
      'c_dec decimal(18, 4)',
      'c_text string',
      'c_bytes bytes',
      'c_date date',
      'c_time time',
      'c_ts timestamp',
      'c_tstz timestamp',
    ]);
    const byId = new Map(rows.map((r) => [String(r.fields[0]), r.fields]));
    // timestamp_tz is stored as UTC wall-clock time and read back as a timestamp.
    expect(byId.get(String(row1[0]))).toEqual([...row1.slice(0, 13), '2024-01-01T19:04:05.1234']);
    expect(byId.get(String(row2[0]))).toEqual([...row2.slice(0, 7), '-0.0001', ...row2.slice(8, 13), '1970-01-01T00:00:00']);
    expect(byId.get('3')).toEqual(row3);

    const updated = [...row2];
    updated[8] = 'updated';
    await writeAll(await makeSink({ ...sinkOptions, data_save_mode: 'APPEND_DATA' }, [all]), [
      asRow(RowKind.UPDATE_AFTER, updated),
      asRow(RowKind.DELETE, row3),
      asRow(RowKind.INSERT, [4n, ...new Array<null>(13).fill(null)]),
    ]);
    const after = await readAll({ ...conn, query: 'SELECT "id", "c_text" FROM ALL_TYPES ORDER BY "id"' });
    expect(after.rows.map((r) => r.fields)).toEqual([
      [row2[0], 'updated'],
      [4n, null],
      [row1[0], row1[8]],
    ]);
  });

  it('cuts fractions of seconds to Firebird’s 1/10000 s', async () => {
    const t = newCatalogTable(
      { database: 'src', table: 'ts' },
      [
        { name: 'id', type: Types.INT, nullable: false },
        { name: 'ts', type: Types.TIMESTAMP, nullable: true },
        { name: 't', type: Types.TIME, nullable: true },
      ],
      {},
    );
    await writeAll(await makeSink({ ...conn, generate_sink_sql: true, table: 'FRACTIONS' }, [t]), [
      { kind: RowKind.INSERT, tableId: t.tableId, fields: [1, '2024-01-02T03:04:05.123456', '10:11:12.987654'] },
    ]);
    const { rows } = await readAll({ ...conn, table_path: 'FRACTIONS' });
    expect(rows.map((r) => r.fields)).toEqual([[1, '2024-01-02T03:04:05.1234', '10:11:12.9876']]);
  });

  it.each([true, false])(
    'with handleRowErrors (auto_commit %s), hands on the rows Firebird refuses for themselves (a duplicate, a truncation, a NOT NULL, a CHECK) and writes the rest',
    async (autoCommit) => {
      const table = `ROWERR_${autoCommit ? 'A' : 'B'}`;
      const c = await FirebirdConnection.open(connectionSettings(parseJdbcUrl(conn.url, {}), conn, undefined, 30, {}));
      try {
        await c.execute(`CREATE TABLE ${table} (k INTEGER NOT NULL PRIMARY KEY, v VARCHAR(3) NOT NULL, n SMALLINT CHECK (n >= 0))`);
      } finally {
        await c.close();
      }
      const t = newCatalogTable(
        { database: 'src', table: 'rowerr' },
        [
          { name: 'K', type: Types.INT, nullable: false },
          { name: 'V', type: Types.STRING, nullable: true },
          { name: 'N', type: Types.INT, nullable: true },
        ],
        {},
      );
      const sink = await makeSink({ ...conn, generate_sink_sql: true, table, auto_commit: autoCommit }, [t]);
      const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
      const rejected: Array<[Row, Error & { code?: string }]> = [];
      writer.handleRowErrors!((r, err) => rejected.push([r, err]));
      const rows = [
        [1, 'abc', 1],
        [1, 'dup', 2],
        [3, 'toolong', 3],
        [4, null, 4],
        [5, 'neg', -1],
        [6, 'fin', 6],
      ];
      await writer.write(rows.map((fields) => ({ kind: RowKind.INSERT, tableId: t.tableId, fields })));
      const info = await writer.prepareCommit?.(1);
      if (info) await sink.createCommitter().commit([info]);
      await writer.close();
      expect(rejected.map(([r]) => r.fields)).toEqual([rows[1], rows[2], rows[3], rows[4]]);
      expect(rejected.map(([, e]) => e.code)).toEqual(['335544665', '335544569', '335544347', '335544558']);
      expect(rejected[0][1].message).toMatch(
        /^Violation of PRIMARY or UNIQUE KEY constraint .* on table "ROWERR_[AB]", Problematic key value is \("K" = 1\)/,
      );
      const { rows: back } = await readAll({ ...conn, table_path: table });
      expect(back.map((r) => r.fields).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([rows[0], rows[5]]);
    },
  );

  it('reads tables made in SQL, with unquoted (upper-case) names, NUMERIC precision and CHAR padding', async () => {
    const c = await FirebirdConnection.open(connectionSettings(parseJdbcUrl(conn.url, {}), conn, undefined, 30, {}));
    try {
      await c.execute(
        'CREATE TABLE plain_t (k INTEGER NOT NULL PRIMARY KEY, n NUMERIC(9, 3), d DECIMAL(4, 1), ch CHAR(4), v VARCHAR(20), o VARCHAR(4) CHARACTER SET OCTETS, b BLOB SUB_TYPE TEXT)',
      );
      await c.execute('INSERT INTO plain_t VALUES (1, 123456.789, -123.4, ?, ?, ?, ?)', ['ab', 'ünï', Buffer.from([1, 2]), 'long text']);
      expect(await c.primaryKey({ table: 'PLAIN_T' })).toEqual(['K']);
      expect(await c.tableExists({ table: 'plain_t' })).toBe(false);
    } finally {
      await c.close();
    }
    const { rows, source } = await readAll({ ...conn, table_path: 'PLAIN_T' });
    expect(source.catalogTables()[0].columns.map((c) => `${c.name} ${formatType(c.type)}`)).toEqual([
      'K int',
      'N decimal(9, 3)',
      'D decimal(4, 1)',
      'CH string',
      'V string',
      'O bytes',
      'B string',
    ]);
    expect(rows[0].fields).toEqual([1, '123456.789', '-123.4', 'ab  ', 'ünï', Buffer.from([1, 2]), 'long text']);
  });

  it('splits a table by an integer and by a text column: every row once', async () => {
    const c = await FirebirdConnection.open(connectionSettings(parseJdbcUrl(conn.url, {}), conn, undefined, 30, {}));
    try {
      await c.execute('CREATE TABLE SPLIT_T ("id" INTEGER NOT NULL PRIMARY KEY, "name" VARCHAR(20))');
      await c.execute('BEGIN');
      await c.executeEach(
        'INSERT INTO SPLIT_T VALUES (?, ?)',
        [...Array(600).keys()].map((i) => [i + 1, (i + 1) % 50 === 0 ? null : `name ${i + 1}`]),
      );
      await c.execute('COMMIT');
    } finally {
      await c.close();
    }
    for (const column of ['id', 'name']) {
      const { rows, splits } = await readAll({ ...conn, table_path: 'SPLIT_T', partition_column: column, partition_num: 4 }, 2);
      expect(splits, column).toBeGreaterThan(1);
      expect(
        rows.map((r) => Number(r.fields[0])).sort((a, b) => a - b),
        column,
      ).toEqual([...Array(600).keys()].map((i) => i + 1));
    }
  });

  it('applies save modes: ERROR_WHEN_SCHEMA_NOT_EXIST, ERROR_WHEN_DATA_EXISTS, DROP_DATA, RECREATE_SCHEMA', async () => {
    const base = { ...conn, generate_sink_sql: true, table: 'SM', primary_keys: ['id'] };
    await expect(makeSink({ ...base, schema_save_mode: 'ERROR_WHEN_SCHEMA_NOT_EXIST' }, [all])).rejects.toThrow(
      /table .*\.SM does not exist \(schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST\)/,
    );
    await writeAll(await makeSink(base, [all]), [asRow(RowKind.INSERT, row1), asRow(RowKind.INSERT, row2)]);
    await expect(makeSink({ ...base, data_save_mode: 'ERROR_WHEN_DATA_EXISTS' }, [all])).rejects.toThrow(/table .*\.SM has rows/);
    await writeAll(await makeSink({ ...base, data_save_mode: 'DROP_DATA' }, [all]), [asRow(RowKind.INSERT, row3)]);
    expect((await readAll({ ...conn, table_path: 'SM' })).rows.length).toBe(1);
    const c = await FirebirdConnection.open(connectionSettings(parseJdbcUrl(conn.url, {}), conn, undefined, 30, {}));
    await c.execute('ALTER TABLE SM ADD extra VARCHAR(5)').finally(() => c.close());
    await writeAll(await makeSink({ ...base, schema_save_mode: 'RECREATE_SCHEMA' }, [all]), [asRow(RowKind.INSERT, row1)]);
    const again = await readAll({ ...conn, table_path: 'SM' });
    expect(again.rows.length).toBe(1);
    expect(again.source.catalogTables()[0].columns.map((c) => c.name)).not.toContain('EXTRA');
  });

  it('refuses exactly-once, wide decimals, schemas in table paths and a wrong driver, naming the option', async () => {
    const sink = { ...conn, generate_sink_sql: true, table: 'REFUSED' };
    await expect(makeSink({ ...sink, is_exactly_once: true, xa_data_source_class_name: 'x' }, [all])).rejects.toThrow(
      /is_exactly_once is not supported for Firebird/,
    );
    await expect(makeSink({ ...sink, database: 'other' }, [all])).rejects.toThrow(/database 'other' is not supported for Firebird/);
    await expect(makeSink({ ...sink, driver: 'org.postgresql.Driver' }, [all])).rejects.toThrow(
      /driver 'org.postgresql.Driver' does not fit url jdbc:firebirdsql:\/\/ \(use org.firebirdsql.jdbc.FBDriver\)/,
    );
    await expect(readAll({ ...conn, table_path: 'a.b.c' })).rejects.toThrow(/Firebird has no schemas/);
    const wide = newCatalogTable({ database: 'src', table: 'w' }, [{ name: 'd', type: Types.decimal(38, 10), nullable: true }], {});
    await expect(makeSink(sink, [wide])).rejects.toThrow(/decimal\(38, 10\) does not fit Firebird 3/);
  });
});
