/**
 * A Jdbc table as the dead-letter sink of env.transform_error_handler mode ROUTE, written as
 * SeaTunnel's docs write it (`error_table`), through `tideway run` against private PostgreSQL and
 * MariaDB servers: the error table is created from the error rows' schema by the sink's save
 * mode, each bad row lands there once with its error, and the good rows reach the job's sink.
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
