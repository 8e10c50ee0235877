/**
 * The Jdbc connector's SQLite dialect through the real engine (`tideway run`): PostgreSQL ->
 * SQLite and SQLite -> PostgreSQL with every type SQLite maps, upserts by key, save modes, and
 * bad input (a missing source file, a wrong url, exactly-once) refused with one sentence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { JobFolder, jdbcConnection, pgExec } from './databases.js';

let pgs: TestDatabaseServer;
const jobs = new JobFolder();
const sqliteFile = join(jobs.dir, 'target.db');
const sqliteConn = (file = sqliteFile) => `url = "jdbc:sqlite:${file}"\n    driver = "org.sqlite.JDBC"`;

const COLUMNS =
  'id, c_bool, c_int2, c_int4, c_int8, c_float4, c_float8, c_numeric, c_varchar, c_text, c_bytea, c_date, c_time, c_ts, c_tstz';

beforeAll(async () => {
  pgs = await startPostgres();
  await pgExec(
    pgs,
    `CREATE TABLE sq_types (
       id bigint PRIMARY KEY, c_bool boolean, c_int2 smallint, c_int4 integer, c_int8 bigint, c_float4 real,
       c_float8 double precision, c_numeric numeric(30, 8), c_varchar varchar(64), c_text text, c_bytea bytea,
       c_date date, c_time time(6), c_ts timestamp(6), c_tstz timestamptz(6));
     INSERT INTO sq_types VALUES
       (1, true, -32768, 2147483647, 9223372036854775807, 1.5, 0.1, '-1234567890123456789012.12345678',
        'héllo wörld ✓ 日本', E'tab\\there\\nnew ''q'' "d"', '\\x00ff10', '2024-02-29', '23:59:59.999999',
        '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123456+08'),
       (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       (3, false, 0, -2147483648, -9223372036854775808, -0.25, -1e-300, '0.00000001', '', '', '\\x',
        '1900-01-01', '00:00:00', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00');`,
  );
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await pgs?.stop();
});

async function run(conf: string): Promise<{ code: number; stderr: string }> {
  const res = await runCli(['run', '-c', jobs.write(conf)]);
  return { code: res.code ?? -1, stderr: res.stderr };
}

function pgToSqlite(extra = ''): string {
  return `
env { job.mode = "BATCH", parallelism = 1 }
source {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    table_path = "${pgs.database}.public.sq_types"
  }
}
sink {
  Jdbc {
    ${sqliteConn()}
    generate_sink_sql = true
    table = "sq_types"
    primary_keys = ["id"]
    ${extra}
  }
}`;
}

function sqliteRows(sql: string): unknown[][] {
  const db = new Database(sqliteFile, { readonly: true });
  try {
    return db.prepare(sql).safeIntegers(true).raw(true).all() as unknown[][];
  } finally {
    db.close();
  }
}

describe('SQLite through tideway run', () => {
  it('PostgreSQL -> SQLite: creates the file and table, every mapped type arrives', async () => {
    const res = await run(pgToSqlite());
    expect(res.code, res.stderr).toBe(0);
    expect(sqliteRows(`SELECT name, type, pk FROM pragma_table_info('sq_types') ORDER BY cid`)).toEqual([
      ['id', 'BIGINT', 1n],
      ['c_bool', 'BOOLEAN', 0n],
      ['c_int2', 'SMALLINT', 0n],
      ['c_int4', 'INT', 0n],
      ['c_int8', 'BIGINT', 0n],
      ['c_float4', 'FLOAT', 0n],
      ['c_float8', 'DOUBLE', 0n],
      ['c_numeric', 'DECIMAL_TEXT(30, 8)', 0n],
      ['c_varchar', 'TEXT', 0n],
      ['c_text', 'TEXT', 0n],
      ['c_bytea', 'BLOB', 0n],
      ['c_date', 'DATE', 0n],
      ['c_time', 'TIME', 0n],
      ['c_ts', 'DATETIME', 0n],
      ['c_tstz', 'DATETIME', 0n],
    ]);
    expect(sqliteRows(`SELECT ${COLUMNS} FROM sq_types ORDER BY id`)).toEqual([
      [
        1n,
        1n,
        -32768n,
        2147483647n,
        9223372036854775807n,
        1.5,
        0.1,
        '-1234567890123456789012.12345678',
        'héllo wörld ✓ 日本',
        'tab\there\nnew \'q\' "d"',
        Buffer.from([0, 255, 16]),
        '2024-02-29',
        '23:59:59.999999',
        '2024-01-02 03:04:05.123456',
        '2024-01-01 19:04:05.123456',
      ],
      [2n, ...new Array<null>(14).fill(null)],
      [
        3n,
        0n,
        0n,
        -2147483648n,
        -9223372036854775808n,
        -0.25,
        -1e-300,
        '0.00000001',
        '',
        '',
        Buffer.alloc(0),
        '1900-01-01',
        '00:00:00',
        '1970-01-01 00:00:00',
        '1970-01-01 00:00:00',
      ],
    ]);
  });

  it('upserts by primary key when the job runs again, and honours ERROR_WHEN_DATA_EXISTS and DROP_DATA', async () => {
    await pgExec(pgs, `UPDATE sq_types SET c_text = 'changed' WHERE id = 3; INSERT INTO sq_types (id, c_text) VALUES (4, 'new')`);
    const again = await run(pgToSqlite('data_save_mode = "APPEND_DATA"'));
    expect(again.code, again.stderr).toBe(0);
    expect(sqliteRows('SELECT id, c_text FROM sq_types ORDER BY id')).toEqual([
      [1n, 'tab\there\nnew \'q\' "d"'],
      [2n, null],
      [3n, 'changed'],
      [4n, 'new'],
    ]);
    const refused = await run(pgToSqlite('data_save_mode = "ERROR_WHEN_DATA_EXISTS"'));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('table main.sq_types has rows (data_save_mode = ERROR_WHEN_DATA_EXISTS)');
    await pgExec(pgs, 'DELETE FROM sq_types WHERE id = 4');
    const dropped = await run(pgToSqlite('data_save_mode = "DROP_DATA"'));
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(sqliteRows('SELECT count(*) FROM sq_types')).toEqual([[3n]]);
  });

  it('two sink writers of one file take turns: every row arrives once', async () => {
    await pgExec(pgs, `CREATE TABLE many AS SELECT g AS id, 'row ' || g AS label FROM generate_series(1, 5000) g`);
    const res = await run(`
env { job.mode = "BATCH", parallelism = 2 }
source {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    query = "SELECT id, label FROM many"
    partition_column = "id"
    partition_num = 4
  }
}
sink {
  Jdbc {
    ${sqliteConn()}
    generate_sink_sql = true
    table = "many"
    batch_size = 200
  }
}`);
    expect(res.code, res.stderr).toBe(0);
    expect(sqliteRows('SELECT count(*), count(DISTINCT id), min(id), max(id) FROM many')).toEqual([[5000n, 5000n, 1n, 5000n]]);
  });

  it('SQLite -> PostgreSQL into a table the sink creates: values equal (timestamptz arrives as UTC timestamp)', async () => {
    const res = await run(`
env { job.mode = "BATCH", parallelism = 1 }
source {
  Jdbc {
    ${sqliteConn()}
    query = "SELECT * FROM sq_types"
    partition_column = "id"
    partition_num = 2
  }
}
sink {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    generate_sink_sql = true
    database = "${pgs.database}"
    table = "public.from_sqlite"
    primary_keys = ["id"]
    schema_save_mode = "RECREATE_SCHEMA"
  }
}`);
    expect(res.code, res.stderr).toBe(0);
    const text = (table: string, tstz: string) =>
      pgExec(
        pgs,
        `SELECT id, c_bool::text, c_int2::text, c_int4::text, c_int8::text, c_float4::text, c_float8::text, c_numeric::text,
           c_varchar, c_text, encode(c_bytea, 'hex') AS c_bytea, c_date::text, c_time::text, c_ts::text, ${tstz} AS c_tstz
         FROM ${table} ORDER BY id`,
      );
    expect(await text('from_sqlite', 'c_tstz::text')).toEqual(await text('sq_types', `(c_tstz AT TIME ZONE 'UTC')::text`));
  });

  it('refuses bad input with one sentence naming the option', async () => {
    const missing = join(jobs.dir, 'missing.db');
    const noFile = await run(`
env { job.mode = "BATCH" }
source { Jdbc {
    ${sqliteConn(missing)}
    table_path = "t"
} }
sink { Console {} }`);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain(
      `option 'url': connecting to SQLite database file ${missing} (to read) failed: SQLite database file ${missing} does not exist`,
    );
    expect(existsSync(missing)).toBe(false);

    const memory = await run(`
env { job.mode = "BATCH" }
source { Jdbc {
    url = "jdbc:sqlite::memory:"
    driver = "org.sqlite.JDBC"
    query = "select 1"
} }
sink { Console {} }`);
    expect(memory.code).toBe(2);
    expect(memory.stderr).toContain("url 'jdbc:sqlite::memory:' cannot be used: only database files are supported");

    const xa = await run(pgToSqlite('is_exactly_once = true\n    xa_data_source_class_name = "org.sqlite.JDBC"'));
    expect(xa.code).toBe(2);
    expect(xa.stderr).toContain('is_exactly_once is not supported for SQLite');
  });
});
