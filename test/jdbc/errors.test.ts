/**
 * Jdbc jobs that cannot run, through the real CLI: bad credentials, a missing table, a column
 * type without a SeaTunnel mapping. Each ends with a non-zero exit code, one `tideway:` line
 * on stderr that names the plugin or the place and says what is wrong, and no row in the target.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { JobFolder, jdbcConnection, myExec, pgExec, type DbKind } from './databases.js';

let pgs: TestDatabaseServer;
let maria: TestDatabaseServer;
const jobs = new JobFolder();

beforeAll(async () => {
  [pgs, maria] = await Promise.all([startPostgres(), startMariaDb()]);
  await pgExec(
    pgs,
    `CREATE TABLE src (id bigint PRIMARY KEY, name text);
     INSERT INTO src SELECT g, 'n' || g FROM generate_series(1, 100) g;
     CREATE TABLE dst (LIKE src);
     CREATE TYPE pair AS (a integer, b text);
     CREATE TABLE odd (id bigint PRIMARY KEY, p pair);
     INSERT INTO odd VALUES (1, ROW(1, 'x'));`,
  );
  await myExec(maria, 'CREATE TABLE dst (id BIGINT PRIMARY KEY, name TEXT)');
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await Promise.all([pgs?.stop(), maria?.stop()]);
});

function conn(kind: DbKind, overrides: { user?: string; password?: string } = {}): string {
  return jdbcConnection(kind, kind === 'pg' ? pgs : maria, overrides);
}

const pgSink = `Jdbc {\n    ${'${pgConn}'}\n    generate_sink_sql = true\n    database = "tideway"\n    table = "public.dst"\n  }`;

interface FailingJob {
  name: string;
  source: () => string;
  sink: () => string;
  /** What the single `tideway:` line must say. */
  says: RegExp;
  /** The target that must stay empty. */
  target: DbKind;
}

const pgSource =
  (extra: string, overrides: { user?: string; password?: string } = {}) =>
  () =>
    `Jdbc {\n    ${conn('pg', overrides)}\n    ${extra}\n  }`;
const pgDst = () => pgSink.replace('${pgConn}', conn('pg'));
const mariaDst =
  (overrides: { user?: string; password?: string } = {}) =>
  () =>
    `Jdbc {\n    ${conn('maria', overrides)}\n    generate_sink_sql = true\n    database = "tideway"\n    table = "dst"\n  }`;

const CASES: FailingJob[] = [
  {
    name: 'wrong password for the PostgreSQL source',
    source: pgSource('table_path = "tideway.public.src"', { password: 'wrong' }),
    sink: pgDst,
    says: /Jdbc.*password authentication failed for user "postgres"/i,
    target: 'pg',
  },
  {
    name: 'unknown user for the MariaDB sink',
    source: pgSource('table_path = "tideway.public.src"'),
    sink: mariaDst({ user: 'nobody' }),
    says: /Jdbc.*access denied for user 'nobody'/i,
    target: 'maria',
  },
  {
    name: 'missing source table',
    source: pgSource('table_path = "tideway.public.no_such_table"'),
    sink: pgDst,
    says: /Jdbc.*no_such_table/,
    target: 'pg',
  },
  {
    name: 'missing table in the source query',
    source: pgSource('query = "select id, name from no_such_table"'),
    sink: pgDst,
    says: /Jdbc.*relation "no_such_table" does not exist/,
    target: 'pg',
  },
  {
    name: 'missing sink table with schema_save_mode ERROR_WHEN_SCHEMA_NOT_EXIST',
    source: pgSource('table_path = "tideway.public.src"'),
    sink: () =>
      `Jdbc {\n    ${conn('maria')}\n    generate_sink_sql = true\n    database = "tideway"\n    table = "no_such_sink"\n    schema_save_mode = "ERROR_WHEN_SCHEMA_NOT_EXIST"\n  }`,
    says: /Jdbc.*no_such_sink/,
    target: 'maria',
  },
  {
    name: 'a composite-type column, which has no SeaTunnel type',
    source: pgSource('query = "select id, p from odd"'),
    sink: pgDst,
    says: /Jdbc.*column 'p' has PostgreSQL type pair, which has no SeaTunnel type/,
    target: 'pg',
  },
];

describe('Jdbc jobs that cannot run', () => {
  it.each(CASES)('$name: one clear line, non-zero exit, nothing written', async ({ name, source, sink, says, target }) => {
    const conf = jobs.write(`env { job.mode = "BATCH", parallelism = 1 }\nsource {\n  ${source()}\n}\nsink {\n  ${sink()}\n}\n`);
    const res = await runCli(['run', '-c', conf], 90_000);
    const lines = res.stderr.split('\n').filter((l) => l.startsWith('tideway:'));
    expect(res.code, `${name}: ${res.stderr}`).not.toBe(0);
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(says);
    // One sentence: no stack trace, no line breaks inside the message.
    expect(res.stderr).not.toMatch(/\n\s+at /);
    const rows =
      target === 'pg' ? await pgExec(pgs, 'SELECT count(*)::int AS n FROM dst') : await myExec(maria, 'SELECT COUNT(*) AS n FROM dst');
    expect(Number(rows[0].n)).toBe(0);
  });
});
