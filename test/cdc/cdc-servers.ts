/** The MariaDB and PostgreSQL (logical replication on) servers of a CDC test file, with a root session on each. */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { killStartedJobs, type TempDirs } from './cli-job.js';

export interface CdcServers {
  readonly maria: TestDatabaseServer;
  readonly postgres: TestDatabaseServer;
  readonly mroot: mysql.Connection;
  readonly proot: pg.Client;
  /** Ends the root sessions and stops both servers. */
  stop(): Promise<void>;
}

export async function startCdcServers(): Promise<CdcServers> {
  const [maria, postgres] = await Promise.all([startMariaDb(), startPostgres({ logical: true })]);
  const mroot = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password });
  const proot = new pg.Client({ connectionString: postgres.url });
  await proot.connect();
  return {
    maria,
    postgres,
    mroot,
    proot,
    stop: async () => {
      await proot.end().catch(() => undefined);
      await mroot.end().catch(() => undefined);
      await Promise.all([maria.stop(), postgres.stop()]);
    },
  };
}

/**
 * Starts both servers before the file's tests (`started` receives them) and, after them, kills
 * the jobs still running, ends `clients`, stops the servers and removes `dirs`.
 */
export function cdcServersForFile(
  dirs: TempDirs,
  clients: readonly { end(): Promise<void> }[],
  started: (servers: CdcServers) => void,
): void {
  let servers: CdcServers | undefined;
  beforeAll(async () => {
    servers = await startCdcServers();
    started(servers);
  }, 60_000);
  afterAll(async () => {
    killStartedJobs();
    for (const c of clients) await c.end().catch(() => undefined);
    await servers?.stop();
    dirs.cleanup();
  });
}
