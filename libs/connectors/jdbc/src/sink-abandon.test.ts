import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCatalogTable, optionsOf, Types, type Row } from '@tideway/api';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { compileConnection } from './connection-options.js';
import type { JdbcConnection } from './jdbc-connection.js';
import { jdbcSinkFactory } from './jdbc-sink.js';
import { openConnection } from './open-connection.js';
import { makeSink } from './test/wiring.js';
import { jobXidPrefix, preparedXids } from './xa-transactions.js';

let pgServer: TestDatabaseServer;
let myServer: TestDatabaseServer;

beforeAll(async () => {
  [pgServer, myServer] = await Promise.all([startPostgres(), startMariaDb()]);
});
afterAll(async () => {
  await Promise.all([pgServer?.stop(), myServer?.stop()]);
});

const input = newCatalogTable(
  { table: 'in' },
  [
    { name: 'id', type: Types.INT, nullable: false },
    { name: 'v', type: Types.STRING, nullable: true },
  ],
  { primaryKey: { name: 'pk', columns: ['id'] } },
);
const rows = (from: number, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({ kind: '+I', tableId: 'in', fields: [from + i, `v${from + i}`] }));

const databases = () => ({
  PostgreSQL: {
    conn: { url: pgServer.jdbcUrl, driver: 'org.postgresql.Driver', user: pgServer.user, password: pgServer.password },
    db: pgServer.database,
    xa: 'org.postgresql.xa.PGXADataSource',
    table: (t: string) => `public.${t}`,
  },
  MariaDB: {
    conn: { url: myServer.jdbcUrl, driver: 'com.mysql.cj.jdbc.Driver', user: myServer.user, password: myServer.password },
    db: myServer.database,
    xa: 'com.mysql.cj.jdbc.MysqlXADataSource',
    table: (t: string) => t,
  },
});

describe.each(['PostgreSQL', 'MariaDB'] as const)('Jdbc sink abandon on %s', (dbName) => {
  const d = () => databases()[dbName];
  const opts = (table: string) => ({
    ...d().conn,
    generate_sink_sql: true,
    database: d().db,
    table: d().table(table),
    is_exactly_once: true,
    xa_data_source_class_name: d().xa,
    batch_size: 1,
  });

  async function session(): Promise<JdbcConnection> {
    return openConnection(compileConnection(optionsOf(d().conn, jdbcSinkFactory.spec)).settings, {});
  }

  it('a failure keeps prepared transactions; abandon (the job was cancelled) rolls back every one of the job, and only of the job', async () => {
    const sink = await makeSink(opts('abandoned'), [input], 'job-cancelled');
    const other = await makeSink(opts('kept'), [input], 'job-still-running');
    const w0 = sink.createWriter({ subtaskIndex: 0, parallelism: 2 });
    const w1 = sink.createWriter({ subtaskIndex: 1, parallelism: 2 });
    const wOther = other.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w0.write(rows(1, 2));
    await w0.prepareCommit!(1);
    await w1.write(rows(10, 2));
    await w1.prepareCommit!(1);
    await wOther.write(rows(100, 1));
    await wOther.prepareCommit!(1);
    await w0.write(rows(3, 1)); // an open transaction, not yet prepared
    // A failure: the task groups stop, prepared transactions stay for a restore to decide.
    for (const w of [w0, w1]) {
      await w.abortPrepare!();
      await w.close();
    }
    const c = await session();
    try {
      expect((await preparedXids(c, jobXidPrefix('job-cancelled'))).length).toBe(2);
      // The job is cancelled instead: nothing of it stays prepared, nothing was written.
      await sink.abandon();
      expect(await preparedXids(c, jobXidPrefix('job-cancelled'))).toEqual([]);
      await sink.abandon(); // idempotent
      expect((await c.execute(`SELECT count(*) FROM ${d().table('abandoned')}`)).rows[0][0]).toSatisfy((n: unknown) => Number(n) === 0);
      expect((await preparedXids(c, jobXidPrefix('job-still-running'))).length).toBe(1);
    } finally {
      await wOther.close();
      await other.abandon();
      await c.close();
    }
  });

  it('abandon waits until a just-closed session has let go of its prepared transaction', async () => {
    const sink = await makeSink(opts('detached'), [input], 'job-detached');
    const w = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    await w.write(rows(1, 1));
    await w.prepareCommit!(1);
    // No close: the abandon runs right after the writer's session ended (or, on PostgreSQL, while it is open).
    await sink.abandon();
    const c = await session();
    try {
      expect(await preparedXids(c, jobXidPrefix('job-detached'))).toEqual([]);
    } finally {
      await w.close();
      await c.close();
    }
  });
});
