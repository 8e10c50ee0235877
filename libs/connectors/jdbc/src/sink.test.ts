import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCatalogTable, Types, type CatalogTable, type Row } from '@tideway/api';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { openConnection } from './open-connection.js';
import { compileConnection } from './connection-options.js';
import { optionsOf } from '@tideway/api';
import type { JdbcConnection } from './jdbc-connection.js';
import { flushed, makeSink, writeAll, type JdbcCommitInfo } from './test/wiring.js';
import { jdbcSinkFactory } from './jdbc-sink.js';
import { jobXidPrefix, preparedXids } from './xa-transactions.js';

let pgServer: TestDatabaseServer;
let myServer: TestDatabaseServer;

beforeAll(async () => {
  [pgServer, myServer] = await Promise.all([startPostgres(), startMariaDb()]);
});
afterAll(async () => {
  await Promise.all([pgServer?.stop(), myServer?.stop()]);
});

const users: CatalogTable = newCatalogTable(
  { database: 'src', table: 'users' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'name', type: Types.STRING, nullable: true },
    { name: 'score', type: Types.decimal(10, 2), nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] } },
);

const row = (kind: Row['kind'], id: number, name: string | null, score: string | null): Row => ({
  kind,
  tableId: users.tableId,
  fields: [id, name, score],
});

const databases = () => [
  {
    name: 'PostgreSQL',
    conn: { url: pgServer.jdbcUrl, driver: 'org.postgresql.Driver', user: pgServer.user, password: pgServer.password },
    db: pgServer.database,
    xa: 'org.postgresql.xa.PGXADataSource',
    table: (t: string) => `public.${t}`,
  },
  {
    name: 'MariaDB',
    conn: { url: myServer.jdbcUrl, driver: 'com.mysql.cj.jdbc.Driver', user: myServer.user, password: myServer.password },
    db: myServer.database,
    xa: 'com.mysql.cj.jdbc.MysqlXADataSource',
    table: (t: string) => t,
  },
];

async function session(conn: Record<string, unknown>): Promise<JdbcConnection> {
  const options = optionsOf(conn, jdbcSinkFactory.spec);
  return openConnection(compileConnection(options).settings, {});
}

async function contents(c: JdbcConnection, table: string): Promise<unknown[][]> {
  const res = await c.execute(`SELECT id, name, score FROM ${table} ORDER BY id`);
  return res.rows.map((r) => [Number(r[0]), r[1], r[2]]);
}

describe.each(['PostgreSQL', 'MariaDB'])('Jdbc sink on %s', (dbName) => {
  const d = () => databases().find((x) => x.name === dbName)!;
  const gen = (table: string, extra: Record<string, unknown> = {}) => ({
    ...d().conn,
    generate_sink_sql: true,
    database: d().db,
    table: d().table(table),
    ...extra,
  });

  it('applies a changelog (+I, -U, +U, -D) in order by primary key, across batches', async () => {
    const sink = await makeSink(gen('cl', { primary_keys: ['id'], batch_size: 3 }), [users]);
    await writeAll(
      sink,
      [
        row('+I', 1, 'a', '1.00'),
        row('+I', 2, 'b', '2.00'),
        row('+I', 3, 'c', '3.00'),
        row('-U', 1, 'a', '1.00'),
        row('+U', 1, 'a2', '1.50'),
        row('-D', 2, 'b', '2.00'),
        row('+I', 4, 'd', null),
        row('-D', 4, 'd', null),
        row('+I', 4, 'd2', '4.25'),
        row('+I', 5, 'e', '5.00'),
        row('-U', 5, 'e', '5.00'),
        row('+U', 5, 'e2', '5.50'),
        row('-D', 3, 'c', '3.00'),
      ],
      2,
    );
    const c = await session(d().conn);
    expect(await contents(c, d().table('cl'))).toEqual([
      [1, 'a2', '1.50'],
      [4, 'd2', '4.25'],
      [5, 'e2', '5.50'],
    ]);
    await c.close();
  });

  it('upserts by query when enable_upsert is false', async () => {
    const sink = await makeSink(gen('byquery', { primary_keys: ['id'], enable_upsert: false }), [users]);
    await writeAll(sink, [row('+I', 1, 'a', '1.00'), row('+I', 2, 'b', null)]);
    await writeAll(sink, [row('+U', 1, 'a', '1.00'), row('+U', 2, 'b2', '2.00'), row('+I', 3, 'c', '3.00')]);
    const c = await session(d().conn);
    expect(await contents(c, d().table('byquery'))).toEqual([
      [1, 'a', '1.00'],
      [2, 'b2', '2.00'],
      [3, 'c', '3.00'],
    ]);
    await c.close();
  });

  it('runs the user query per row; field_ide names created columns', async () => {
    const c = await session(d().conn);
    await c.execute(`CREATE TABLE ${d().table('q')} (id int, name text, score decimal(10, 2))`);
    const sink = await makeSink({ ...d().conn, query: `insert into ${d().table('q')} (score, name, id) values (?, ?, ?)` }, [
      newCatalogTable({ table: 'x' }, [
        { name: 'score', type: Types.decimal(10, 2), nullable: true },
        { name: 'name', type: Types.STRING, nullable: true },
        { name: 'id', type: Types.INT, nullable: true },
      ]),
    ]);
    await writeAll(sink, [{ kind: '+I', tableId: 'x', fields: ['9.99', 'q', 7] }]);
    expect(await contents(c, d().table('q'))).toEqual([[7, 'q', '9.99']]);
    const upper = await makeSink(gen('ide', { field_ide: 'UPPERCASE' }), [users]);
    await writeAll(upper, [row('+I', 1, 'x', null)]);
    const ideTable = dbName === 'PostgreSQL' ? c.tableSql({ schema: 'public', table: 'IDE' }) : c.quote('IDE');
    const res = await c.execute(`SELECT ${c.quote('ID')}, ${c.quote('NAME')} FROM ${ideTable}`);
    expect(res.rows.map((r) => [Number(r[0]), r[1]])).toEqual([[1, 'x']]);
    await c.close();
  });

  it('save modes: ERROR_WHEN_SCHEMA_NOT_EXIST, DROP_DATA, ERROR_WHEN_DATA_EXISTS, CUSTOM_PROCESSING, RECREATE_SCHEMA', async () => {
    await expect(makeSink(gen('sm', { schema_save_mode: 'ERROR_WHEN_SCHEMA_NOT_EXIST' }), [users])).rejects.toThrow(
      /table \S*sm does not exist \(schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST\)/,
    );
    await writeAll(await makeSink(gen('sm'), [users]), [row('+I', 1, 'a', null), row('+I', 2, 'b', null)]);
    await expect(makeSink(gen('sm', { data_save_mode: 'ERROR_WHEN_DATA_EXISTS' }), [users])).rejects.toThrow(
      /has rows \(data_save_mode = ERROR_WHEN_DATA_EXISTS\)/,
    );
    const c = await session(d().conn);
    await makeSink(gen('sm', { data_save_mode: 'CUSTOM_PROCESSING', custom_sql: `DELETE FROM ${d().table('sm')} WHERE id = 1` }), [users]);
    expect(await contents(c, d().table('sm'))).toEqual([[2, 'b', null]]);
    await makeSink(gen('sm', { data_save_mode: 'DROP_DATA' }), [users]);
    expect(await contents(c, d().table('sm'))).toEqual([]);
    await c.execute(`ALTER TABLE ${d().table('sm')} ADD COLUMN extra int`);
    await makeSink(gen('sm', { schema_save_mode: 'RECREATE_SCHEMA' }), [users]);
    const cols = await c.describe(`SELECT * FROM ${d().table('sm')}`);
    expect(cols.map((x) => x.name)).toEqual(['id', 'name', 'score']);
    await c.close();
  });

  it('writes several input tables each to its own table (${table_name}, ${primary_key})', async () => {
    const other = newCatalogTable({ database: 'src', table: 'others' }, users.columns, { primaryKey: { name: 'pk', columns: ['id'] } });
    const sink = await makeSink(gen('${table_name}_copy', { primary_keys: ['${primary_key}'] }), [users, other]);
    await writeAll(sink, [
      row('+I', 1, 'u', null),
      { kind: '+I', tableId: other.tableId, fields: [2, 'o', '2.00'] },
      row('+U', 1, 'u2', null),
    ]);
    const c = await session(d().conn);
    expect(await contents(c, d().table('users_copy'))).toEqual([[1, 'u2', null]]);
    expect(await contents(c, d().table('others_copy'))).toEqual([[2, 'o', '2.00']]);
    await c.close();
  });

  it("catalog options: tablePrefix and tableSuffix around each table's name, schema replacing the table's (PostgreSQL); table defaults to ${table_name}", async () => {
    const other = newCatalogTable({ database: 'src', table: 'others' }, users.columns, { primaryKey: { name: 'pk', columns: ['id'] } });
    const c = await session(d().conn);
    const extra: Record<string, unknown> = { tablePrefix: 'pre_', tableSuffix: '_suf', primary_keys: ['${primary_key}'] };
    if (dbName === 'PostgreSQL') {
      await c.execute('CREATE SCHEMA IF NOT EXISTS cat');
      extra.schema = 'cat';
    }
    const { table: _t, ...noTable } = gen('unused', extra);
    const sink = await makeSink(noTable, [users, other]);
    await writeAll(sink, [row('+I', 1, 'u', null), { kind: '+I', tableId: other.tableId, fields: [2, 'o', '2.00'] }]);
    const named = (t: string) => (dbName === 'PostgreSQL' ? `cat.${t}` : t);
    expect(await contents(c, named('pre_users_suf'))).toEqual([[1, 'u', null]]);
    expect(await contents(c, named('pre_others_suf'))).toEqual([[2, 'o', '2.00']]);
    await c.close();
  });

  it('query with generate_sink_sql: rows written by query, the table prepared by the save modes (as SeaTunnel does)', async () => {
    const c = await session(d().conn);
    const sink = await makeSink(
      gen('qgen', { query: `insert into ${d().table('qgen')} (id, name, score) values (?, ?, ?)`, data_save_mode: 'DROP_DATA' }),
      [users],
    );
    await writeAll(sink, [row('+I', 1, 'a', '1.00'), row('+I', 1, 'again', null)]); // query, not an upsert: both rows land
    expect(await contents(c, d().table('qgen'))).toEqual([
      [1, 'a', '1.00'],
      [1, 'again', null],
    ]);
    await c.close();
  });

  it('auto_commit = false commits at the checkpoint, not before', async () => {
    const sink = await makeSink(gen('ac', { auto_commit: false, batch_size: 1 }), [users]);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write([row('+I', 1, 'a', null), row('+I', 2, 'b', null)]);
    const c = await session(d().conn);
    expect(await contents(c, d().table('ac'))).toEqual([]);
    await writer.prepareCommit?.(1);
    expect((await contents(c, d().table('ac'))).length).toBe(2);
    await writer.close();
    await c.close();
  });

  it('auto_commit = false with keys: upserts of one transaction over many batches, each applied once', async () => {
    // PostgreSQL stages each batch in a temporary table that only the commit would empty: it is emptied after each batch.
    const sink = await makeSink(gen('ack', { auto_commit: false, primary_keys: ['id'], batch_size: 1 }), [users]);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await writer.write([row('+I', 1, 'a', '1.00')]);
    await writer.write([row('+I', 2, 'b', null)]);
    await writer.write([row('+U', 1, 'c', '3.00')]);
    await writer.prepareCommit?.(1);
    await writer.write([row('+U', 2, 'd', null)]);
    await writer.prepareCommit?.(2);
    const c = await session(d().conn);
    if (dbName === 'PostgreSQL') {
      // The writer's session staged its upserts (another session sees its temporary table while it lives).
      const staged = await c.execute(`SELECT relname FROM pg_class WHERE relname LIKE 'tw_upsert_%' AND relpersistence = 't'`);
      expect(staged.rows.length).toBe(1);
    }
    expect(await contents(c, d().table('ack'))).toEqual([
      [1, 'c', '3.00'],
      [2, 'd', null],
    ]);
    await writer.close();
    await c.close();
  });

  // Commit, replayed commits, abort, restores at every checkpoint and failures in every method:
  // the connector contract suite (test/contract/jdbc-contract.test.ts). What stays here looks
  // at the databases' prepared transactions themselves.
  describe('exactly-once', () => {
    const xa = (table: string, jobId: string) => ({
      opts: gen(table, { primary_keys: ['id'], is_exactly_once: true, xa_data_source_class_name: d().xa, batch_size: 1 }),
      jobId,
    });

    it('a restored writer rolls back prepared ids its state does not have (their checkpoint never completed)', async () => {
      const { opts, jobId } = xa('xa5', 'job-restore-rollback');
      const sink = await makeSink(opts, [users], jobId);
      const w1 = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
      await w1.write([row('+I', 1, 'cp1', null)]);
      const info1 = (await w1.prepareCommit!(1)) as JdbcCommitInfo;
      const state = w1.snapshotState!(1);
      await sink.createCommitter().commit([info1]);
      await w1.write([row('+I', 2, 'cp2-never-completed', null), row('-D', 1, 'cp1', null)]);
      const info2 = (await w1.prepareCommit!(2)) as JdbcCommitInfo;
      expect(w1.snapshotState!(2)[0].preparedXids).toEqual([info2.xid]);
      // The process dies before checkpoint 2 completes.
      await (w1 as unknown as { conn?: JdbcConnection }).conn?.close();
      const w2 = sink.createWriter({ subtaskIndex: 0, parallelism: 1 }, state);
      await w2.write([row('+I', 4, 'after-restore', null)]);
      const info = (await w2.prepareCommit!(2)) as JdbcCommitInfo;
      await sink.createCommitter().commit([info]);
      await w2.close();
      const c = await session(d().conn);
      expect(await contents(c, d().table('xa5'))).toEqual([
        [1, 'cp1', null],
        [4, 'after-restore', null],
      ]);
      expect(await preparedXids(c, jobXidPrefix(jobId))).toEqual([]);
      await c.close();
    });
  });

  it('bad credentials and a bad driver give one sentence each', async () => {
    const sink = await makeSink({ ...d().conn, password: 'wrong', query: 'insert into t values (?)' }, [users]);
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const err = (await Promise.resolve(writer.write(Array.from({ length: 1000 }, (_, i) => row('+I', i, 'x', null))))
      .then(() => flushed(writer))
      .catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^plugin test, option 'url': connecting to \w+ at 127\.0\.0\.1:\d+ failed: the database refused the login/);
    await Promise.resolve(writer.close()).catch(() => undefined);
    await expect(makeSink({ ...d().conn, driver: 'oracle.jdbc.OracleDriver', query: 'x' }, [users])).rejects.toThrow(
      /^plugin test, option 'driver': driver 'oracle\.jdbc\.OracleDriver' does not fit url jdbc:(postgresql|mysql):\/\//,
    );
  });
});

describe('Jdbc sink upserts into PostgreSQL', () => {
  it('a role without the TEMPORARY privilege upserts without a staging table', async () => {
    const admin = await session(databases()[0].conn);
    await admin.execute(
      `CREATE TABLE public.notemp (id int PRIMARY KEY, name varchar(64), score numeric(10,2));
       CREATE ROLE tw_notemp LOGIN PASSWORD 'pw'; GRANT ALL ON public.notemp TO tw_notemp; GRANT USAGE ON SCHEMA public TO tw_notemp;
       REVOKE TEMPORARY ON DATABASE "${pgServer.database}" FROM PUBLIC`,
    );
    try {
      const sink = await makeSink(
        {
          ...databases()[0].conn,
          user: 'tw_notemp',
          password: 'pw',
          generate_sink_sql: true,
          database: pgServer.database,
          table: 'public.notemp',
          primary_keys: ['id'],
          batch_size: 2,
        },
        [users],
      );
      await writeAll(sink, [row('+I', 1, 'a', '1.00'), row('+I', 2, 'b', null), row('+U', 1, 'c', '2.00')]);
      expect(await contents(admin, 'public.notemp')).toEqual([
        [1, 'c', '2.00'],
        [2, 'b', null],
      ]);
    } finally {
      await admin.execute(`GRANT TEMPORARY ON DATABASE "${pgServer.database}" TO PUBLIC`);
      await admin.close();
    }
  });
});
