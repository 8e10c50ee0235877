/**
 * A database of its own on the file's MariaDB or PostgreSQL server, as the source of a CDC job
 * (MySQL-CDC or Postgres-CDC) or as its target: how the config names it and its tables, SQL to
 * run on it, and the (id, v) rows of a table.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describe, it } from 'vitest';
import type { TestDatabaseServer } from '@tideway/testing';
import { cdcServersForFile, type CdcServers } from './cdc-servers.js';
import type { TempDirs } from './cli-job.js';

export interface SourceDatabase {
  readonly plugin: 'MySQL-CDC' | 'Postgres-CDC';
  readonly server: TestDatabaseServer;
  /** Source options the job needs beside the connection (server-id, slot.name), HOCON. */
  readonly extra: string;
  /** A table's name as table-names writes it. */
  name(table: string): string;
  /** table-pattern matching the tables whose bare names match `regex`. */
  pattern(regex: string): string;
  run(sql: string): Promise<void>;
  /** A table's rows as `id|v`, by id. */
  rows(table: string): Promise<string[]>;
}

/** Rows as `id|v`. */
export const idAndV = (rows: Array<Record<string, unknown>>) => rows.map((r) => `${String(r.id)}|${String(r.v)}`);

/** A new MariaDB database; `serverId` is the job's binlog client id. */
export async function mariaSourceDatabase(
  s: Pick<CdcServers, 'maria' | 'mroot'>,
  clients: Array<{ end(): Promise<void> }>,
  database: string,
  serverId: number,
): Promise<SourceDatabase> {
  const { maria, mroot } = s;
  await mroot.query(`CREATE DATABASE ${database}`);
  const c = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password, database });
  clients.push(c);
  return {
    plugin: 'MySQL-CDC',
    server: { ...maria, database, jdbcUrl: `jdbc:mysql://${maria.host}:${maria.port}/${database}` },
    extra: `server-id = "${serverId}"`,
    name: (t) => `${database}.${t}`,
    pattern: (regex) => `${database}\\.${regex}`,
    run: async (sql) => void (await c.query(sql)),
    rows: async (t) => idAndV((await c.query(`SELECT id, v FROM ${t} ORDER BY id`))[0] as Array<Record<string, unknown>>),
  };
}

/** A new PostgreSQL database, and a session on it. */
export async function pgDatabase(
  s: Pick<CdcServers, 'postgres' | 'proot'>,
  clients: Array<{ end(): Promise<void> }>,
  database: string,
): Promise<pg.Client> {
  const { postgres, proot } = s;
  await proot.query(`CREATE DATABASE ${database}`);
  const c = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, password: postgres.password, database });
  await c.connect();
  clients.push(c);
  return c;
}

/** A new PostgreSQL database as a Postgres-CDC source, with a replication slot named after it. */
export async function pgSourceDatabase(
  s: Pick<CdcServers, 'postgres' | 'proot'>,
  clients: Array<{ end(): Promise<void> }>,
  database: string,
): Promise<SourceDatabase> {
  const { postgres } = s;
  const c = await pgDatabase(s, clients, database);
  return {
    plugin: 'Postgres-CDC',
    server: { ...postgres, database, jdbcUrl: `jdbc:postgresql://${postgres.host}:${postgres.port}/${database}` },
    extra: `slot.name = "${database}"`,
    name: (t) => `${database}.public.${t}`,
    pattern: (regex) => `${database}\\.public\\.${regex}`,
    run: async (sql) => void (await c.query(sql)),
    rows: async (t) => idAndV((await c.query<Record<string, unknown>>(`SELECT id, v FROM ${t} ORDER BY id`)).rows),
  };
}

/**
 * Rolls back the XA transactions a scenario's jobs left prepared in its target database: a job
 * SIGKILLed between a checkpoint's prepare and its commit, and never restored. Left there, they
 * would hold up the next case on the same server: PostgreSQL creates a logical replication slot
 * only once every transaction running at that moment has ended, prepared ones included, in any
 * database (Postgres-CDC logs which ones it waits for).
 */
async function rollBackAbandoned(target: pg.Client, database: string): Promise<void> {
  const left = await target.query<{ gid: string }>('SELECT gid FROM pg_prepared_xacts WHERE database = $1', [database]);
  for (const { gid } of left.rows) await target.query(`ROLLBACK PREPARED '${gid.replace(/'/g, "''")}'`);
}

/** What a scenario of describeBothSources gets beside its source database. */
export interface BothSourcesContext {
  readonly servers: CdcServers;
  /** A session on the target database (PostgreSQL). */
  readonly target: pg.Client;
  readonly targetDatabase: string;
}

/**
 * Starts the file's servers and runs `scenario` once per CDC source, MySQL-CDC (MariaDB) and
 * Postgres-CDC, each on a source and a PostgreSQL target database of its own named after
 * `prefix`, into the exactly-once Jdbc sink.
 */
export function describeBothSources(o: {
  readonly title: string;
  readonly prefix: string;
  /** MySQL-CDC's server-id (unique among the test files that may run at once). */
  readonly serverId: number;
  readonly dirs: TempDirs;
  readonly timeoutMs: number;
  readonly scenario: (src: SourceDatabase, ctx: BothSourcesContext) => Promise<void>;
  /** A source whose case is skipped, with the reason (said in the test's name). */
  readonly skip?: { readonly source: 'MySQL-CDC' | 'Postgres-CDC'; readonly why: string };
}): void {
  const clients: Array<{ end(): Promise<void> }> = [];
  let servers: CdcServers | undefined;
  cdcServersForFile(o.dirs, clients, (s) => (servers = s));
  const run = async (source: (s: CdcServers) => Promise<SourceDatabase>, suffix: string) => {
    const s = servers!;
    const targetDatabase = `${o.prefix}_dst_${suffix}`;
    const target = await pgDatabase(s, clients, targetDatabase);
    try {
      await o.scenario(await source(s), { servers: s, target, targetDatabase });
    } finally {
      await rollBackAbandoned(target, targetDatabase);
    }
  };
  describe(o.title, () => {
    (o.skip?.source === 'MySQL-CDC' ? it.skip : it)(
      `MySQL-CDC (MariaDB) -> Jdbc PostgreSQL, exactly-once${o.skip?.source === 'MySQL-CDC' ? ` (skipped: ${o.skip.why})` : ''}`,
      () => run((s) => mariaSourceDatabase(s, clients, `${o.prefix}_src_m`, o.serverId), 'm'),
      o.timeoutMs,
    );
    (o.skip?.source === 'Postgres-CDC' ? it.skip : it)(
      `Postgres-CDC -> Jdbc PostgreSQL, exactly-once${o.skip?.source === 'Postgres-CDC' ? ` (skipped: ${o.skip.why})` : ''}`,
      () => run((s) => pgSourceDatabase(s, clients, `${o.prefix}_src_p`), 'p'),
      o.timeoutMs,
    );
  });
}
