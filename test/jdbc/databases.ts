/**
 * Private PostgreSQL and MariaDB servers for the Jdbc end-to-end suites, and the small pieces
 * every suite needs: SQL runners, the connection block of a job config, job files in a temp
 * folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestDatabaseServer } from '@tideway/testing';

/** Which database a server is: the Jdbc connector speaks to both. */
export type DbKind = 'pg' | 'maria';

/** Runs one or more statements on PostgreSQL; returns the rows of the last. */
export async function pgExec(server: TestDatabaseServer, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    const res = await client.query<Record<string, unknown>>(sql, params);
    // A multi-statement string returns one result per statement (pg's types say one).
    const results: readonly pg.QueryResult<Record<string, unknown>>[] = Array.isArray(res) ? res : [res];
    return results[results.length - 1].rows;
  } finally {
    await client.end();
  }
}

/** Rows of one PostgreSQL query as arrays: columns by position, as JDBC's getObject(i) reads them. */
export async function pgRowArrays(server: TestDatabaseServer, sql: string): Promise<unknown[][]> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return (await client.query({ text: sql, rowMode: 'array' })).rows as unknown[][];
  } finally {
    await client.end();
  }
}

/** Runs one or more statements on MariaDB (several separated by `;`); returns the rows of the last. */
export async function myExec(
  server: TestDatabaseServer,
  sql: string,
  params: unknown[] = [],
  database = server.database,
): Promise<Record<string, unknown>[]> {
  const conn = await mysql.createConnection({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database,
    multipleStatements: params.length === 0,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  try {
    const [res] = await conn.query(sql, params);
    if (Array.isArray(res) && res.length > 0 && Array.isArray(res[0])) return res[res.length - 1] as Record<string, unknown>[];
    return Array.isArray(res) ? (res as Record<string, unknown>[]) : [];
  } finally {
    await conn.end();
  }
}

/** Runs a query on either database; rows as objects. */
export function dbExec(kind: DbKind, server: TestDatabaseServer, sql: string): Promise<Record<string, unknown>[]> {
  return kind === 'pg' ? pgExec(server, sql) : myExec(server, sql);
}

/**
 * The url/driver/user/password lines of a Jdbc plugin block. MariaDB is reached through the
 * MariaDB driver name and url, as a SeaTunnel user of MariaDB would write it.
 */
export function jdbcConnection(kind: DbKind, server: TestDatabaseServer, overrides: { user?: string; password?: string } = {}): string {
  const url = kind === 'pg' ? server.jdbcUrl : server.jdbcUrl.replace('jdbc:mysql:', 'jdbc:mariadb:');
  const driver = kind === 'pg' ? 'org.postgresql.Driver' : 'org.mariadb.jdbc.Driver';
  return [
    `url = "${url}"`,
    `driver = "${driver}"`,
    `user = "${overrides.user ?? server.user}"`,
    `password = "${overrides.password ?? server.password}"`,
  ].join('\n    ');
}

/** A temp folder for job files, removed by `cleanup`. */
export class JobFolder {
  readonly dir = mkdtempSync(join(tmpdir(), 'tideway-jdbc-e2e-'));
  private n = 0;

  /** Writes a job config and returns its path. */
  write(text: string, name = `job-${++this.n}.conf`): string {
    const file = join(this.dir, name);
    writeFileSync(file, text);
    return file;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
