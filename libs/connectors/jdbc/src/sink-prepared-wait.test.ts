import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCatalogTable, optionsOf, Types, type Row } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { compileConnection } from './connection-options.js';
import type { JdbcConnection } from './jdbc-connection.js';
import { jdbcSinkFactory } from './jdbc-sink.js';
import { openConnection } from './open-connection.js';
import { flushed, makeSink, type JdbcCommitInfo } from './test/wiring.js';
import { jobXidPrefix, preparedXids } from './xa-transactions.js';

let pgServer: TestDatabaseServer;
let myServer: TestDatabaseServer;

beforeAll(async () => {
  [pgServer, myServer] = await Promise.all([startPostgres(), startMariaDb()]);
});
afterAll(async () => {
  await Promise.all([pgServer?.stop(), myServer?.stop()]);
});

const keyed = newCatalogTable(
  { table: 'kv' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'v', type: Types.STRING, nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] } },
);
const keyless = newCatalogTable({ table: 'kv' }, [
  { name: 'id', type: Types.INT, nullable: false },
  { name: 'v', type: Types.STRING, nullable: true },
]);
const row = (kind: Row['kind'], id: number, v: string): Row => ({ kind, tableId: 'kv', fields: [id, v] });

const databases = {
  PostgreSQL: () => ({
    conn: { url: pgServer.jdbcUrl, driver: 'org.postgresql.Driver', user: pgServer.user, password: pgServer.password },
    db: pgServer.database,
    xa: 'org.postgresql.xa.PGXADataSource',
    table: (t: string) => `public.${t}`,
  }),
  MariaDB: () => ({
    conn: { url: myServer.jdbcUrl, driver: 'com.mysql.cj.jdbc.Driver', user: myServer.user, password: myServer.password },
    db: myServer.database,
    xa: 'com.mysql.cj.jdbc.MysqlXADataSource',
    table: (t: string) => t,
  }),
};

async function session(conn: Record<string, unknown>): Promise<JdbcConnection> {
  return openConnection(compileConnection(optionsOf(conn, jdbcSinkFactory.spec)).settings, {});
}

/** Whether a promise is still pending after `ms`. */
async function stillPendingAfter(p: Promise<unknown>, ms: number): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([
    p.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((r) => setTimeout(() => r(pending), ms)),
  ]);
  return first === pending;
}

describe.each(['PostgreSQL', 'MariaDB'] as const)(
  'exactly-once Jdbc sink on %s: the next transaction and the still-prepared one',
  (dbName) => {
    const d = () => databases[dbName]();
    const xaOpts = (table: string, extra: Record<string, unknown> = {}) => ({
      ...d().conn,
      generate_sink_sql: true,
      database: d().db,
      table: d().table(table),
      is_exactly_once: true,
      xa_data_source_class_name: d().xa,
      batch_size: 1,
      ...extra,
    });

    it('a delete and an upsert of rows the prepared transaction inserted wait for its commit and then apply', async () => {
      const sink = await makeSink(xaOpts('lost_delete', { primary_keys: ['id'] }), [keyed], `job-lost-delete-${dbName}`);
      const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
      const committer = sink.createCommitter();
      await w.write([row('+I', 1, 'a'), row('+I', 2, 'b')]);
      const info1 = (await w.prepareCommit!(1)) as JdbcCommitInfo;
      // Checkpoint 1's commit has not run yet when the next rows arrive.
      await w.write([row('-D', 1, 'a'), row('+U', 2, 'b2')]);
      const next = flushed(w);
      next.catch(() => undefined);
      expect(await stillPendingAfter(next, 500)).toBe(true);
      expect(await committer.commit([info1])).toEqual([]);
      await next;
      const info2 = (await w.prepareCommit!(2)) as JdbcCommitInfo;
      expect(await committer.commit([info2])).toEqual([]);
      await w.close();
      const c = await session(d().conn);
      const res = await c.execute(`SELECT id, v FROM ${d().table('lost_delete')} ORDER BY id`);
      expect(res.rows.map((r) => [Number(r[0]), r[1]])).toEqual([[2, 'b2']]);
      await c.close();
    });
  },
);

describe('exactly-once Jdbc sink on PostgreSQL: waiting for the previous commit', () => {
  const xaOpts = (table: string, extra: Record<string, unknown> = {}) => ({
    url: pgServer.jdbcUrl,
    driver: 'org.postgresql.Driver',
    user: pgServer.user,
    password: pgServer.password,
    generate_sink_sql: true,
    database: pgServer.database,
    table: `public.${table}`,
    is_exactly_once: true,
    xa_data_source_class_name: 'org.postgresql.xa.PGXADataSource',
    batch_size: 1,
    ...extra,
  });

  it('gives up after transaction_timeout_sec with a retryable error naming the prepared transaction', async () => {
    const jobId = 'job-never-committed';
    const sink = await makeSink(xaOpts('never_committed', { transaction_timeout_sec: 1, primary_keys: ['id'] }), [keyed], jobId);
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write([row('+I', 1, 'a')]);
    const info1 = (await w.prepareCommit!(1)) as JdbcCommitInfo;
    // Checkpoint 1 is aborted: nothing commits its transaction while the writer waits.
    const started = Date.now();
    await w.write([row('-D', 1, 'a')]);
    const err = (await flushed(w).catch((e: unknown) => e)) as TidewayError;
    const waited = Date.now() - started;
    expect(err).toBeInstanceOf(TidewayError);
    expect(err.code).toBe(ErrorCode.EXTERNAL_SYSTEM);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(
      /^plugin test: the Jdbc sink's next transaction waited 1 s \(transaction_timeout_sec.*\) for prepared transaction\(s\) tw-[0-9a-f]{12}-[0-9a-f]{6}-0-\S+ of an earlier checkpoint to be committed, and they were not/,
    );
    expect(err.message).toContain(info1.xid);
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(5000);
    await w.close();
    // What failover does: the restored writer rolls back the transaction of the aborted checkpoint.
    const w2 = sink.createWriter({ subtaskIndex: 0, parallelism: 1 }, [{ preparedXids: [] }]);
    await w2.write([row('+I', 3, 'c')]);
    await sink.createCommitter().commit([(await w2.prepareCommit!(1)) as JdbcCommitInfo]);
    await w2.close();
    const c = await session(xaOpts('x'));
    expect((await c.execute('SELECT id FROM public.never_committed ORDER BY id')).rows.map((r) => Number(r[0]))).toEqual([3]);
    expect(await preparedXids(c, jobXidPrefix(jobId))).toEqual([]);
    await c.close();
  });

  it('abortPrepare ends a waiting transaction start at once', async () => {
    const sink = await makeSink(xaOpts('aborted_wait', { primary_keys: ['id'] }), [keyed], 'job-aborted-wait');
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write([row('+I', 1, 'a')]);
    const info1 = (await w.prepareCommit!(1)) as JdbcCommitInfo;
    await w.write([row('-D', 1, 'a')]);
    const started = Date.now();
    await w.abortPrepare!();
    await w.close();
    expect(Date.now() - started).toBeLessThan(2000);
    await sink.createCommitter().abort([info1]);
  });

  it('a writer of plain inserts (no primary key) does not wait: its inserts cannot miss a prepared row', async () => {
    const sink = await makeSink(xaOpts('append_only'), [keyless], 'job-append-only');
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const committer = sink.createCommitter();
    await w.write([row('+I', 1, 'a')]);
    const info1 = (await w.prepareCommit!(1)) as JdbcCommitInfo;
    await w.write([row('+I', 2, 'b')]);
    await flushed(w);
    const info2 = (await w.prepareCommit!(2)) as JdbcCommitInfo;
    expect(await committer.commit([info1, info2])).toEqual([]);
    await w.close();
    const c = await session(xaOpts('x'));
    expect((await c.execute('SELECT id FROM public.append_only ORDER BY id')).rows.map((r) => Number(r[0]))).toEqual([1, 2]);
    await c.close();
  });
});
