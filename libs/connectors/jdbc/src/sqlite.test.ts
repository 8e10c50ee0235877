/**
 * The SQLite dialect against real database files: declared types both ways, every SeaTunnel
 * type written and read back, upserts and deletes by key, splits, save modes, and the refusals
 * (missing file, read-only file, wrong url, exactly-once).
 */
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatType, newCatalogTable, RowKind, Types, type CatalogTable, type Row } from '@tideway/api';
import { parseJdbcUrl } from './jdbc-url.js';
import { sqliteColumnReading, sqliteColumnType } from './sqlite-types.js';
import { expandListParams } from './sqlite-connection.js';
import { makeSink, readAll, writeAll } from './test/wiring.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const newFile = () => join(dir, `db-${++n}.db`);
const conn = (file: string) => ({ url: `jdbc:sqlite:${file}`, driver: 'org.sqlite.JDBC' });

describe('SQLite type mapping', () => {
  it('reads declared types as SeaTunnel types, by name and else by affinity', () => {
    const cases: [string, string][] = [
      ['boolean', 'boolean'],
      ['tinyint', 'tinyint'],
      ['smallint', 'smallint'],
      ['int', 'int'],
      ['MEDIUMint', 'int'],
      ['INTEGER', 'bigint'],
      ['bigint', 'bigint'],
      ['UNSIGNED BIG INT', 'bigint'],
      ['float', 'float'],
      ['REAL', 'double'],
      ['double PRECISION', 'double'],
      ['decimal(10, 2)', 'decimal(10, 2)'],
      ['NUMERIC(5)', 'decimal(5, 0)'],
      ['DECIMAL_TEXT(38, 10)', 'decimal(38, 10)'],
      ['NUMERIC', 'decimal(38, 18)'],
      ['date', 'date'],
      ['time', 'time'],
      ['DATETIME', 'timestamp'],
      ['timestamp', 'timestamp'],
      ['VARCHAR(255)', 'string'],
      ['NVARCHAR(10)', 'string'],
      ['CLOB', 'string'],
      ['TEXT', 'string'],
      ['BLOB', 'bytes'],
      ['VARBINARY', 'bytes'],
      ['INT8', 'bigint'],
      ['MY_INTEGRAL', 'bigint'],
      ['FLOATY', 'double'],
      ['FLOATING POINT', 'bigint'],
      ['WEIRD', 'decimal(38, 18)'],
    ];
    for (const [declared, seatunnel] of cases) expect(formatType(sqliteColumnReading(declared).type), declared).toBe(seatunnel);
    expect(formatType(sqliteColumnReading(null, 5n).type)).toBe('bigint');
    expect(formatType(sqliteColumnReading(null, 1.5).type)).toBe('double');
    expect(formatType(sqliteColumnReading(null, 'x').type)).toBe('string');
  });

  it('creates columns whose declared type reads back as the same SeaTunnel type (timestamp_tz and nested types excepted)', () => {
    const all = [
      Types.BOOLEAN,
      Types.TINYINT,
      Types.SMALLINT,
      Types.INT,
      Types.BIGINT,
      Types.FLOAT,
      Types.DOUBLE,
      Types.decimal(38, 10),
      Types.decimal(5, 0),
      Types.STRING,
      Types.BYTES,
      Types.DATE,
      Types.TIME,
      Types.TIMESTAMP,
    ];
    for (const t of all) expect(formatType(sqliteColumnReading(sqliteColumnType(t)).type)).toBe(formatType(t));
    expect(sqliteColumnType(Types.TIMESTAMP_TZ)).toBe('DATETIME');
  });

  it('expands list parameters outside quotes only', () => {
    expect(
      expandListParams("INSERT INTO t VALUES ? -- '?'", [
        [
          [1, 'a'],
          [2, 'b'],
        ],
      ]),
    ).toEqual({
      sql: "INSERT INTO t VALUES (?, ?), (?, ?) -- '?'",
      params: [1, 'a', 2, 'b'],
    });
    expect(expandListParams('DELETE FROM t WHERE "k?" IN (?)', [[1, 2, 3]])).toEqual({
      sql: 'DELETE FROM t WHERE "k?" IN (?, ?, ?)',
      params: [1, 2, 3],
    });
  });
});

describe('SQLite urls', () => {
  it('takes the file from jdbc:sqlite: urls and refuses what names no file', () => {
    expect(parseJdbcUrl('jdbc:sqlite:/tmp/x.db', {}).file).toBe('/tmp/x.db');
    expect(parseJdbcUrl('jdbc:sqlite:file:/tmp/y.db', {}).file).toBe('/tmp/y.db');
    expect(parseJdbcUrl('jdbc:sqlite:rel.db', {})).toMatchObject({ dialect: 'sqlite', database: 'main', file: 'rel.db' });
    expect(() => parseJdbcUrl('jdbc:sqlite::memory:', {})).toThrow(/url 'jdbc:sqlite::memory:' cannot be used: only database files/);
    expect(() => parseJdbcUrl('jdbc:sqlite:', {})).toThrow(/names no database file/);
  });
});

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
    { name: 'c_dec', type: Types.decimal(38, 10), nullable: true },
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
  '1234567890123456789012345678.0123456789',
  'tab\there \'q\' "d" ✓ 日本',
  Buffer.from([0, 255, 16]),
  '2024-02-29',
  '23:59:59.999999',
  '2024-01-02T03:04:05.123456',
  '2024-01-02T03:04:05.123456+08:00',
];
const row2 = [
  -9223372036854775808n,
  false,
  127,
  0,
  -2147483648,
  -0.25,
  -1e-300,
  '0.0000000001',
  '',
  Buffer.alloc(0),
  '1900-01-01',
  '00:00:00',
  '1970-01-01T00:00:00',
  '1970-01-01T00:00:00Z',
];
const row3 = [3n, ...new Array<null>(13).fill(null)];
const asRow = (kind: Row['kind'], fields: unknown[]): Row => ({ kind, tableId: all.tableId, fields });

describe('SQLite sink and source on a real file', () => {
  it('writes every type (creating the file and table), reads it back equal, and upserts and deletes by key', async () => {
    const file = newFile();
    const sinkOptions = { ...conn(file), generate_sink_sql: true, table: 'all_types', primary_keys: ['id'] };
    await writeAll(await makeSink(sinkOptions, [all]), [
      asRow(RowKind.INSERT, row1),
      asRow(RowKind.INSERT, row2),
      asRow(RowKind.INSERT, row3),
    ]);
    const db = new Database(file, { readonly: true });
    expect(db.prepare(`SELECT name, type, pk FROM pragma_table_info('all_types') ORDER BY cid`).raw(true).all().slice(0, 9)).toEqual([
      ['id', 'BIGINT', 1],
      ['c_bool', 'BOOLEAN', 0],
      ['c_tiny', 'TINYINT', 0],
      ['c_small', 'SMALLINT', 0],
      ['c_int', 'INT', 0],
      ['c_float', 'FLOAT', 0],
      ['c_double', 'DOUBLE', 0],
      ['c_dec', 'DECIMAL_TEXT(38, 10)', 0],
      ['c_text', 'TEXT', 0],
    ]);
    db.close();
    const { rows, source } = await readAll({ ...conn(file), table_path: 'all_types' });
    const types = source.catalogTables()[0].columns.map((c) => formatType(c.type));
    expect(types).toEqual([
      'bigint',
      'boolean',
      'tinyint',
      'smallint',
      'int',
      'float',
      'double',
      'decimal(38, 10)',
      'string',
      'bytes',
      'date',
      'time',
      'timestamp',
      'timestamp',
    ]);
    const byId = new Map(rows.map((r) => [String(r.fields[0]), r.fields]));
    // timestamp_tz is stored as UTC wall-clock time and read back as a timestamp.
    expect(byId.get(String(row1[0]))).toEqual([...row1.slice(0, 13), '2024-01-01T19:04:05.123456']);
    expect(byId.get(String(row2[0]))).toEqual([...row2.slice(0, 13), '1970-01-01T00:00:00']);
    expect(byId.get('3')).toEqual(row3);

    const updated = [...row2];
    updated[8] = 'updated';
    await writeAll(await makeSink({ ...sinkOptions, data_save_mode: 'APPEND_DATA' }, [all]), [
      asRow(RowKind.UPDATE_AFTER, updated),
      asRow(RowKind.DELETE, row3),
    ]);
    const after = await readAll({ ...conn(file), query: 'SELECT id, c_text FROM all_types ORDER BY id' });
    expect(after.rows.map((r) => r.fields)).toEqual([
      [row2[0], 'updated'],
      [row1[0], row1[8]],
    ]);
  });

  it('splits a table by an integer and by a text column: every row once', async () => {
    const file = newFile();
    const db = new Database(file);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 1; i <= 1000; i++) insert.run(i, i % 50 === 0 ? null : `name ${i}`);
    })();
    db.close();
    for (const column of ['id', 'name']) {
      const { rows, splits } = await readAll({ ...conn(file), table_path: 't', partition_column: column, partition_num: 4 }, 2);
      expect(splits, column).toBeGreaterThan(1);
      expect(
        rows.map((r) => Number(r.fields[0])).sort((a, b) => a - b),
        column,
      ).toEqual([...Array(1000).keys()].map((i) => i + 1));
    }
  });

  it('applies save modes: RECREATE_SCHEMA, ERROR_WHEN_SCHEMA_NOT_EXIST, DROP_DATA, ERROR_WHEN_DATA_EXISTS', async () => {
    const file = newFile();
    const base = { ...conn(file), generate_sink_sql: true, table: 'sm', primary_keys: ['id'] };
    await expect(makeSink({ ...base, schema_save_mode: 'ERROR_WHEN_SCHEMA_NOT_EXIST' }, [all])).rejects.toThrow(
      /table main.sm does not exist \(schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST\)/,
    );
    await writeAll(await makeSink(base, [all]), [asRow(RowKind.INSERT, row1), asRow(RowKind.INSERT, row2)]);
    await expect(makeSink({ ...base, data_save_mode: 'ERROR_WHEN_DATA_EXISTS' }, [all])).rejects.toThrow(/table main.sm has rows/);
    await writeAll(await makeSink({ ...base, data_save_mode: 'DROP_DATA' }, [all]), [asRow(RowKind.INSERT, row3)]);
    expect((await readAll({ ...conn(file), table_path: 'sm' })).rows.length).toBe(1);
    const db = new Database(file);
    db.exec('ALTER TABLE sm ADD COLUMN extra TEXT');
    db.close();
    await writeAll(await makeSink({ ...base, schema_save_mode: 'RECREATE_SCHEMA' }, [all]), [asRow(RowKind.INSERT, row1)]);
    const again = await readAll({ ...conn(file), table_path: 'sm' });
    expect(again.rows.length).toBe(1);
    expect(again.source.catalogTables()[0].columns.map((c) => c.name)).not.toContain('extra');
  });

  it('refuses a missing source file, a read-only sink file and exactly-once, naming the option', async () => {
    const missing = join(dir, 'missing.db');
    await expect(readAll({ ...conn(missing), table_path: 't' })).rejects.toThrow(
      new RegExp(`SQLite database file ${missing} \\(to read\\) failed: SQLite database file ${missing} does not exist`),
    );
    const ro = newFile();
    new Database(ro).close();
    chmodSync(ro, 0o444);
    const roSink = { ...conn(ro), generate_sink_sql: true, table: 't' };
    // root writes files whatever their mode: a path under a missing folder is refused for everyone.
    if (process.getuid?.() !== 0) await expect(makeSink(roSink, [all])).rejects.toThrow(/attempt to write a readonly database/);
    const noDir = join(dir, 'no-such-dir', 'x.db');
    await expect(makeSink({ ...roSink, url: `jdbc:sqlite:${noDir}` }, [all])).rejects.toThrow(
      new RegExp(`connecting to SQLite database file ${noDir} failed: the folder of ${noDir} does not exist`),
    );
    await expect(makeSink({ ...roSink, is_exactly_once: true, xa_data_source_class_name: 'x' }, [all])).rejects.toThrow(
      /is_exactly_once is not supported for SQLite/,
    );
    await expect(makeSink({ ...roSink, url: `jdbc:sqlite:${ro}?journal_mode=WAL` }, [all])).rejects.toThrow(
      /url\/properties parameter journal_mode=WAL is not supported for SQLite/,
    );
    await expect(makeSink({ ...roSink, driver: 'org.postgresql.Driver' }, [all])).rejects.toThrow(
      /driver 'org.postgresql.Driver' does not fit url jdbc:sqlite: \(use org.sqlite.JDBC\)/,
    );
  });
});
