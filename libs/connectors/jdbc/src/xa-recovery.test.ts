/**
 * A restored exactly-once writer rolls back what its subtask prepared after the checkpoint it
 * restores from. On MariaDB a prepared XA transaction stays attached to the session that prepared
 * it until that session has ended, and another session's XA ROLLBACK answers "unknown XID"
 * meanwhile: a failed attempt whose connection is still closing holds the transaction, and its
 * rows' locks, past a rollback tried once (the restored writer's first write then waited 50 s on
 * those locks and failed). rollbackAllPrepared waits for the session to let go.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import { optionsOf } from '@tideway/api';
import { startMariaDb, type TestDatabaseServer } from '@tideway/testing';
import { compileConnection } from './connection-options.js';
import { jdbcSinkFactory } from './jdbc-sink.js';
import { openConnection } from './open-connection.js';
import { preparedXids, rollbackAllPrepared, rollbackXa } from './xa-transactions.js';

let server: TestDatabaseServer;

beforeAll(async () => {
  server = await startMariaDb();
});
afterAll(async () => {
  await server?.stop();
});

/** A session that prepares `xid` inserting `id` into xr, and keeps it attached until it ends. */
async function prepareOn(xid: string, id: number): Promise<mysql.Connection> {
  const c = await mysql.createConnection({ uri: server.url });
  await c.query(`XA START '${xid}'`);
  await c.query(`INSERT INTO xr VALUES (${id})`);
  await c.query(`XA END '${xid}'`);
  await c.query(`XA PREPARE '${xid}'`);
  return c;
}

describe('XA recovery on MariaDB', () => {
  it('rolls back a prepared transaction once the session holding it has ended, keeping the ids asked for', async () => {
    const setup = await mysql.createConnection({ uri: server.url });
    await setup.query('CREATE TABLE xr (id INT PRIMARY KEY)');
    await setup.end();
    const attached = await prepareOn('xr-1', 1);
    await (await prepareOn('xr-keep', 2)).end();
    const conn = await openConnection(
      compileConnection(
        optionsOf(
          {
            url: server.jdbcUrl.replace('jdbc:mysql:', 'jdbc:mariadb:'),
            driver: 'org.mariadb.jdbc.Driver',
            user: server.user,
            password: server.password,
          },
          jdbcSinkFactory.spec,
        ),
      ).settings,
      {},
    );
    try {
      // Tried once while its session lives, the rollback changes nothing.
      await rollbackXa(conn, 'xr-1');
      expect((await preparedXids(conn, 'xr-')).sort()).toEqual(['xr-1', 'xr-keep']);

      const rolledBack = rollbackAllPrepared(conn, 'xr-', 8, new Set(['xr-keep']));
      await new Promise((r) => setTimeout(r, 300));
      await attached.end();
      await rolledBack;
      expect(await preparedXids(conn, 'xr-')).toEqual(['xr-keep']);
      // Its row's lock is gone: the same key is written at once.
      await conn.execute('SET SESSION innodb_lock_wait_timeout = 2');
      await conn.execute('INSERT INTO xr VALUES (1)');
      await rollbackXa(conn, 'xr-keep');
    } finally {
      await conn.close();
    }
  });
});
