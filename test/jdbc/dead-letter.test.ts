/**
 * Row-level error handling with the Jdbc connector, through `tideway run` against private
 * PostgreSQL and MariaDB servers:
 * - a Jdbc table as the dead-letter sink of env.transform_error_handler mode ROUTE, written as
 *   SeaTunnel's docs write it (`error_table`): the error table is created from the error rows'
 *   schema by the sink's save mode, each bad row lands there once with its error, and the good
 *   rows reach the job's sink;
 * - the Jdbc sink's own refusals (env.sink_error_handler): rows the database refuses for
 *   themselves (too long, NULL in a NOT NULL column, a duplicate key) are routed with the
 *   database's error while the other rows of their batches are written, in auto-commit mode and
 *   in XA transactions; a lost table is no row error and fails the job.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { JobFolder, dbExec, jdbcConnection, type DbKind } from './databases.js';
import { routed, sinkErrorRoute } from '../e2e/dead-letter-files.js';

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

function job(kind: DbKind): string {
  return `
env {
  job.mode = "BATCH"
  parallelism = 1
  transform_error_handler {
    mode = "ROUTE"
    include_original_data = true
    sink {
      plugin_name = "Jdbc"
      ${jdbcConnection(kind, server(kind))}
      error_table = "orders_error"
    }
  }
}
source {
  FakeSource {
    plugin_output = "raw"
    schema = { fields { id = "bigint", amount = "string" } }
    rows = [
      { kind = INSERT, fields = [1, "10"] },
      { kind = INSERT, fields = [2, "ten"] },
      { kind = INSERT, fields = [3, "30"] },
      { kind = INSERT, fields = [4, "4O"] }
    ]
  }
}
transform {
  Sql {
    plugin_input = "raw"
    plugin_output = "orders"
    query = "select id, CAST(amount AS INT) as amount from raw"
  }
}
sink {
  Jdbc {
    plugin_input = "orders"
    ${jdbcConnection(kind, server(kind))}
    generate_sink_sql = true
    table = "orders"
  }
}`;
}

describe.each<DbKind>(['pg', 'maria'])('a Jdbc dead-letter table (%s)', (kind) => {
  it('is created by the save mode and holds each bad row once with its error; the good rows reach the sink', async () => {
    const res = await runCli(['run', '-c', jobs.write(job(kind)), '--set-job-id', '4242'], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const good = await dbExec(kind, server(kind), 'SELECT id, amount FROM orders ORDER BY id');
    expect(good.map((r) => [Number(r.id), Number(r.amount)])).toEqual([
      [1, 10],
      [3, 30],
    ]);
    const bad = await dbExec(
      kind,
      server(kind),
      'SELECT error_stage, plugin_type, plugin_name, job_id, error_message, exception_class, stacktrace, original_data, occur_time FROM orders_error ORDER BY original_data',
    );
    expect(bad).toHaveLength(2);
    expect(bad.map((r) => r.original_data)).toEqual(['["2","ten"]', '["4","4O"]']);
    for (const r of bad) {
      expect(r).toMatchObject({ error_stage: 'TRANSFORM', plugin_type: 'TRANSFORM', plugin_name: 'Sql', stacktrace: null });
      expect(Number(r.job_id)).toBe(4242);
      expect(String(r.error_message)).toMatch(/cannot cast '(ten|4O)' to int/);
      expect(r.occur_time).not.toBeNull();
    }
  });
});

const XA = { pg: 'org.postgresql.xa.PGXADataSource', maria: 'org.mariadb.jdbc.MariaDbDataSource' };

function sinkRefusalJob(kind: DbKind, table: string, dead: string, extra: string): string {
  return `
env {
  job.mode = "BATCH"
  parallelism = 1
  checkpoint.interval = 1000
  ${sinkErrorRoute(dead)}
}
source {
  FakeSource {
    schema = { fields { id = "bigint", name = "string" } }
    rows = [
      { kind = INSERT, fields = [1, "ann"] },
      { kind = INSERT, fields = [2, "far too long"] },
      { kind = INSERT, fields = [3, "bo"] },
      { kind = INSERT, fields = [4, null] },
      { kind = INSERT, fields = [5, "cy"] },
      { kind = INSERT, fields = [1, "dup"] },
      { kind = INSERT, fields = [6, "di"] }
    ]
  }
}
sink {
  Jdbc {
    ${jdbcConnection(kind, server(kind))}
    generate_sink_sql = true
    table = "${table}"
    batch_size = 3
    ${extra}
  }
}`;
}

describe.each<DbKind>(['pg', 'maria'])('the Jdbc sink routes the rows the database refuses (%s)', (kind) => {
  it.each([
    ['auto-commit', 'sink_auto', ''],
    ['XA transactions', 'sink_xa', `is_exactly_once = true\n    xa_data_source_class_name = "${XA[kind]}"`],
  ])('%s: the good rows of each batch are written, each refused row is routed once with the error', async (_mode, table, extra) => {
    await dbExec(kind, server(kind), `CREATE TABLE ${table} (id BIGINT PRIMARY KEY, name VARCHAR(5) NOT NULL)`);
    const dead = join(jobs.dir, `${kind}-${table}-dead`);
    const res = await runCli(['run', '-c', jobs.write(sinkRefusalJob(kind, table, dead, extra))], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const rows = await dbExec(kind, server(kind), `SELECT id, name FROM ${table} ORDER BY id`);
    expect(rows.map((r) => `${String(r.id)}|${String(r.name)}`)).toEqual(['1|ann', '3|bo', '5|cy', '6|di']);
    const bad = routed(dead).sort((a, b) => String(a.original_data).localeCompare(String(b.original_data)));
    expect(bad.map((r) => r.original_data)).toEqual(['["1","dup"]', '["2","far too long"]', '["4",null]']);
    for (const r of bad) expect(r).toMatchObject({ error_stage: 'SINK', plugin_type: 'SINK', plugin_name: 'Jdbc' });
    // The database's own words and SQLSTATE: a duplicate key (class 23), a value too long (22), a NULL (23).
    expect(String(bad[0].exception_class)).toMatch(/^DatabaseError\[23/);
    expect(String(bad[1].exception_class)).toMatch(/^DatabaseError\[22/);
    expect(String(bad[2].exception_class)).toMatch(/^DatabaseError\[23/);
    expect(String(bad[1].error_message)).toMatch(/too long/i);
    // The refused rows are not counted as written.
    expect(res.stdout + res.stderr).toMatch(/Total Write Count\s*:\s*4\n/);
    expect(res.stdout + res.stderr).toMatch(/Total Failed Count\s*:\s*3\n/);
  });

  it("an error that is not the row's (the table is gone) still fails the job", async () => {
    const dead = join(jobs.dir, `${kind}-gone-dead`);
    const res = await runCli(
      ['run', '-c', jobs.write(sinkRefusalJob(kind, 'no_such_table', dead, 'schema_save_mode = "ERROR_WHEN_SCHEMA_NOT_EXIST"'))],
      120_000,
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/no_such_table/);
  });
});
