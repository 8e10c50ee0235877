/**
 * The Jdbc sink's own `query` with named parameters (`:field`, as SeaTunnel's
 * JdbcSinkNameParameterSQLIT writes it) through `tideway run`, against private PostgreSQL and
 * MariaDB servers: parameters in another order than the row's fields, one field twice, quoted
 * text and PostgreSQL casts left alone; a name the input table lacks is refused (exit 2) naming
 * the option.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { JobFolder, dbExec, jdbcConnection, type DbKind } from './databases.js';

let pgs: TestDatabaseServer;
let maria: TestDatabaseServer;
const jobs = new JobFolder();

beforeAll(async () => {
  [pgs, maria] = await Promise.all([startPostgres(), startMariaDb()]);
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await Promise.all([pgs?.stop(), maria?.stop()]);
});

const server = (kind: DbKind) => (kind === 'pg' ? pgs : maria);

function job(kind: DbKind, query: string): string {
  return `
env { job.mode = "BATCH", parallelism = 1 }
source {
  FakeSource {
    schema = { fields { user_id = "bigint", name = "string", age = "int" } }
    rows = [
      { kind = INSERT, fields = [1, "Ann", 31] },
      { kind = INSERT, fields = [2, "Bo:b?", 42] },
      { kind = INSERT, fields = [3, null, null] }
    ]
  }
}
sink {
  Jdbc {
    ${jdbcConnection(kind, server(kind))}
    query = """${query}"""
  }
}`;
}

describe.each<DbKind>(['pg', 'maria'])('Jdbc sink query with :field parameters (%s)', (kind) => {
  it("writes each row's fields by name, in the query's order", async () => {
    await dbExec(
      kind,
      server(kind),
      'CREATE TABLE sink (user_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(255), age INT, note VARCHAR(64))',
    );
    const cast = kind === 'pg' ? ':age::int' : ':age';
    const res = await runCli([
      'run',
      '-c',
      jobs.write(job(kind, `insert into sink(age, name, user_id, note) values(${cast}, :name, :user_id, concat('at :name? ', :user_id))`)),
    ]);
    expect(res.code, res.stderr).toBe(0);
    const rows = await dbExec(kind, server(kind), 'SELECT user_id, name, age, note FROM sink ORDER BY user_id');
    expect(rows.map((r) => [String(r.user_id), r.name, r.age === null ? null : Number(r.age), r.note])).toEqual([
      ['1', 'Ann', 31, 'at :name? 1'],
      ['2', 'Bo:b?', 42, 'at :name? 2'],
      ['3', null, null, 'at :name? 3'],
    ]);
  });

  it('refuses a parameter that names no field of the input table, before writing', async () => {
    await dbExec(kind, server(kind), 'CREATE TABLE sink2 (user_id BIGINT, name VARCHAR(255))');
    const file = jobs.write(job(kind, 'insert into sink2(user_id, name) values(:user_id, :nmae)'));
    const res = await runCli(['run', '-c', file]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:`);
    expect(res.stderr).toContain("option 'query'");
    expect(res.stderr).toContain("query names the parameter :nmae, but the input table has no field 'nmae' (fields: user_id, name, age)");
    expect(await dbExec(kind, server(kind), 'SELECT count(*) AS n FROM sink2')).toEqual([{ n: '0' }]);
  });
});
