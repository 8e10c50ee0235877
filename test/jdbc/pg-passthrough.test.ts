/**
 * PostgreSQL -> PostgreSQL without decoding (docs/decisions/0104), through the real engine
 * (`tideway run`) against a private PostgreSQL:
 * - a Jdbc source feeding a Jdbc COPY sink directly reads COPY's binary format and the sink
 *   writes the tuples as they came: the target equals the source, value for value, for every type
 *   the pass-through takes (edge values and NULLs included);
 * - a target column of another type, a column type without a binary decoder, or a transform
 *   between source and sink: the rows go as values, as before, and the target still equals
 *   the source.
 * - killed mid-copy into an exactly-once (XA) sink and restored with `run -r`: the restored
 *   splits resume after their last keys, still undecoded, and the target holds every row once.
 * Which way each table went is read from the source's log line (TIDEWAY_LOG_LEVEL=info).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { JobFolder, jdbcConnection, pgExec } from './databases.js';

let pgs: TestDatabaseServer;
const jobs = new JobFolder();

/** Every column type the pass-through takes, with edge values; `id` orders the rows. */
const TYPES_DDL = `
CREATE TABLE pt_types (
  id bigint PRIMARY KEY,
  b boolean, by bytea, ch "char", nm name, i2 smallint, i4 integer, t text, o oid, j json,
  f4 real, f8 double precision, bp char(5), vc varchar(20), d date, tm time, ts timestamp,
  tstz timestamptz, n numeric(20,6), nu numeric, u uuid, jb jsonb
);`;

const EDGE_ROWS = `
INSERT INTO pt_types VALUES
 (1, true, '\\x00ff10'::bytea, 'a', 'name_1', -32768, -2147483648, 'plain', 0, '{"a": [1, 2]}', 0.1, 0.1, 'ab', 'hello',
  '2024-02-29', '00:00:00', '2024-02-29 23:59:59.999999', '2024-02-29 12:00:00+08', -12345678901234.123456, 0.000001,
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1, "a": "x"}'),
 (2, false, ''::bytea, 'Z', '', 32767, 2147483647, E'tab\\there\\nnewline \\\\ back', 4294967295, '[]', 'NaN', 'Infinity', 'abcde', '',
  '0044-03-15 BC', '24:00:00', '0001-01-01 00:00:00 BC', 'infinity', 0, 'NaN',
  '00000000-0000-0000-0000-000000000000', '[]'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-Infinity', '-0', NULL, NULL,
  'infinity', '12:34:56.5', '-infinity', '-infinity', 99999999999999.999999, -1e-30,
  NULL, 'null'),
 (4, true, '\\xdeadbeef'::bytea, ' ', 'ünïcødé', 0, 0, 'ünïcødé 😀 日本', 42, '"s"', 3.4028235e38, 1.7976931348623157e308, 'é', 'ünïcødé',
  '9999-12-31', '23:59:59.999999', '294276-12-31 23:59:59.999999', '1970-01-01 00:00:00+00', -0.5, 123456789012345678901234567890.123456789,
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', '{"nested": {"k": [true, false, null, 1.5e3]}}'),
 (5, false, NULL, NULL, NULL, 1, 1, NULL, NULL, NULL, 1e-45, 5e-324, NULL, NULL, '2000-01-01', NULL, '2000-01-01 00:00:00', '1999-12-31 23:59:59.5-05:30', 1, -99999, NULL, '1');
INSERT INTO pt_types
SELECT g, g % 2 = 0, decode(md5(g::text), 'hex'), chr(65 + g % 26), 'n' || g, (g % 65536) - 32768, g * 7919 - 1000000, repeat(md5(g::text), g % 4),
       g, json_build_object('g', g)::json, (g / 7.0)::real, g / 3.0, left(md5(g::text), g % 6), 'v' || g,
       date '2024-01-01' + (g % 3650) - 1825, time '00:00' + g * interval '1.000123 second',
       timestamp '2024-01-01' + g * interval '1 hour 1.5 second', timestamptz '2024-01-01 00:00+00' + g * interval '37 minutes 0.000001 second',
       round((g * 1.000001)::numeric, 6), (g::numeric / 7) * 10 ^ (g % 40 - 20), md5(g::text)::uuid, jsonb_build_object('k', g, 'l', jsonb_build_array(g, 'x'))
FROM generate_series(10, 5009) g;`;

beforeAll(async () => {
  pgs = await startPostgres();
  await pgExec(
    pgs,
    `${TYPES_DDL}
     ${EDGE_ROWS}
     CREATE TABLE pt_copy (LIKE pt_types INCLUDING ALL);
     CREATE TABLE pt_wider (LIKE pt_types INCLUDING ALL);
     ALTER TABLE pt_wider ALTER COLUMN i4 TYPE bigint, ALTER COLUMN vc TYPE text;
     CREATE TABLE pt_transformed (LIKE pt_types INCLUDING ALL);
     CREATE TABLE pt_restored (LIKE pt_types INCLUDING ALL);
     CREATE TABLE with_interval (id bigint PRIMARY KEY, span interval, label text);
     INSERT INTO with_interval SELECT g, g * interval '1 minute', 'row ' || g FROM generate_series(1, 300) g;
     CREATE TABLE with_interval_copy (LIKE with_interval INCLUDING ALL);`,
  );
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await pgs?.stop();
});

/** Runs a PG -> PG job (COPY sink) at `parallelism`; returns the log. */
async function copyJob(source: string, target: string, opts: { transform?: string; parallelism?: number } = {}): Promise<string> {
  const conf = `
env { job.mode = "BATCH", parallelism = ${opts.parallelism ?? 1} }
source {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    table_path = "${pgs.database}.public.${source}"
    split.size = 700
    plugin_output = "src"
  }
}
${opts.transform ? `transform {\n${opts.transform}\n}` : ''}
sink {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    plugin_input = "${opts.transform ? 'out' : 'src'}"
    generate_sink_sql = true
    database = "${pgs.database}"
    table = "public.${target}"
    use_copy_statement = true
    batch_size = 300
  }
}`;
  const res = await runCli(['run', '-c', jobs.write(conf)], 120_000, { TIDEWAY_LOG_LEVEL: 'info' });
  expect(res.code, res.stderr).toBe(0);
  return res.stderr;
}

/** A table's rows as PostgreSQL prints them, in id order. */
const rowsOf = async (table: string) => (await pgExec(pgs, `SELECT t::text AS row FROM ${table} t ORDER BY id`)).map((r) => r.row);

const BINARY = "is read in COPY's binary format";
const VALUES = 'is read as values';

describe('Jdbc PostgreSQL -> PostgreSQL, binary pass-through', () => {
  it('a source feeding a COPY sink directly goes undecoded, in 8 splits at parallelism 2, and the target equals the source', async () => {
    const log = await copyJob('pt_types', 'pt_copy', { parallelism: 2 });
    expect(log).toContain(`table ${pgs.database}.public.pt_types ${BINARY}`);
    const source = await rowsOf('pt_types');
    expect(source).toHaveLength(5005);
    expect(await rowsOf('pt_copy')).toEqual(source);
  });

  it('target columns of other types (bigint for integer, text for varchar) take the rows as values, converted as before', async () => {
    const log = await copyJob('pt_types', 'pt_wider');
    expect(log).toContain(`table ${pgs.database}.public.pt_types ${VALUES}: the sink's target columns are not of the source's types`);
    expect(log).not.toContain(BINARY);
    expect(await rowsOf('pt_wider')).toEqual(await rowsOf('pt_types'));
  });

  it('a column type without a binary decoder (interval) reads the table as values', async () => {
    const log = await copyJob('with_interval', 'with_interval_copy');
    expect(log).toContain(`${VALUES}: a column's type has no binary decoder here`);
    expect(await rowsOf('with_interval_copy')).toEqual(await rowsOf('with_interval'));
  });

  it('a transform between source and sink: nothing is offered, the rows go as values', async () => {
    const log = await copyJob('pt_types', 'pt_transformed', {
      transform:
        '  Filter {\n    plugin_input = "src"\n    plugin_output = "out"\n    include_fields = ["id", "b", "by", "ch", "nm", "i2", "i4", "t", "o", "j", "f4", "f8", "bp", "vc", "d", "tm", "ts", "tstz", "n", "nu", "u", "jb"]\n  }',
    });
    expect(log).not.toContain(BINARY);
    expect(log).not.toContain(VALUES);
    expect(await rowsOf('pt_transformed')).toEqual(await rowsOf('pt_types'));
  });

  it('killed mid-copy into an exactly-once sink, then restored with run -r: every row once, still undecoded', async () => {
    const conf = jobs.write(`
env {
  job.mode = "BATCH"
  parallelism = 1
  checkpoint.interval = 400
  read_limit.rows_per_second = 1500
}
source {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    table_path = "${pgs.database}.public.pt_types"
    split.size = 700
    fetch_size = 200
  }
}
sink {
  Jdbc {
    ${jdbcConnection('pg', pgs)}
    generate_sink_sql = true
    database = "${pgs.database}"
    table = "public.pt_restored"
    use_copy_statement = true
    is_exactly_once = true
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"
    batch_size = 300
  }
}`);
    const engine = jobs.write(
      `seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: localfile\n        plugin-config:\n          namespace: ${join(jobs.dir, 'restored-checkpoints')}\n`,
      'restored-engine.yaml',
    );
    const jobId = String(Date.now());
    const count = async () => Number((await pgExec(pgs, 'SELECT count(*) AS n FROM pt_restored'))[0].n);
    const child = spawnCli(['run', '-c', conf, '--engine-config', engine, '--set-job-id', jobId], { TIDEWAY_LOG_LEVEL: 'info' });
    const exit = waitForExit(child);
    const end = Date.now() + 60_000;
    // Killed once some checkpoints have committed their rows, well before the end (about 3.3 s of rows at the read limit).
    while ((await count()) < 1500 && Date.now() < end && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    const first = await exit;
    expect(first.stderr).toContain(`table ${pgs.database}.public.pt_types ${BINARY}`);
    const before = await count();
    expect(before).toBeGreaterThanOrEqual(1500);
    expect(before).toBeLessThan(5005);

    const restored = await runCli(['run', '-r', jobId, '-c', conf, '--engine-config', engine], 120_000, { TIDEWAY_LOG_LEVEL: 'info' });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain(`table ${pgs.database}.public.pt_types ${BINARY}`);
    expect(await rowsOf('pt_restored')).toEqual(await rowsOf('pt_types'));
    expect(await pgExec(pgs, 'SELECT gid FROM pg_prepared_xacts')).toEqual([]);
  }, 180_000);
});
