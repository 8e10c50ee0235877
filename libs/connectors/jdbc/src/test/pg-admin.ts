/** A private PostgreSQL server with an admin session, for sink tests that look at or break sessions. */
import { afterAll, beforeAll } from 'vitest';
import pg from 'pg';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import type { JdbcConnection } from '../jdbc-connection.js';
import { PgConnection } from '../pg-connection.js';

/** A Jdbc PostgreSQL session on a test server, set up as the connector sets up its own (UTC, ISO dates). */
export function openPgSession(server: TestDatabaseServer): Promise<PgConnection> {
  return PgConnection.open({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database: server.database,
    sessionSql: [],
  } as never);
}

export interface PgFixture {
  readonly server: TestDatabaseServer;
  readonly admin: pg.Client;
  /** Jdbc sink options that reach the server (generate_sink_sql into its database). */
  sinkConnection(): Record<string, unknown>;
  /** Ends a writer's database session from outside, as a network failure or server restart would. */
  killSessionOf(writer: unknown): Promise<void>;
}

/** Starts the server before the file's tests and stops it after them. */
export function usePgFixture(): PgFixture {
  const f = {} as { server: TestDatabaseServer; admin: pg.Client };
  beforeAll(async () => {
    f.server = await startPostgres();
    f.admin = new pg.Client({ connectionString: f.server.url });
    await f.admin.connect();
  });
  afterAll(async () => {
    await f.admin?.end();
    await f.server?.stop();
  });
  return {
    get server() {
      return f.server;
    },
    get admin() {
      return f.admin;
    },
    sinkConnection: () => ({
      url: f.server.jdbcUrl,
      driver: 'org.postgresql.Driver',
      user: f.server.user,
      password: f.server.password,
      generate_sink_sql: true,
      database: f.server.database,
    }),
    killSessionOf: async (writer) => {
      const c = (writer as { conn: JdbcConnection & { client: pg.Client } }).conn;
      await f.admin.query('SELECT pg_terminate_backend($1)', [(c.client as unknown as { processID: number }).processID]);
    },
  };
}
