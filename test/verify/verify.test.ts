/**
 * `tideway verify` through the real CLI, after real Jdbc jobs between private PostgreSQL and
 * MariaDB servers: equal after a sync in each direction (types mapped between the dialects:
 * decimal scale, booleans, timestamp precision, JSON layout); then, with the target changed
 * behind the job's back, the deleted row, the extra row, the changed value and the changed
 * column type are each reported by key, with exit code 1; bad input exits with 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';
import { JobFolder, dbExec, jdbcConnection, myExec, pgExec, type DbKind } from '../jdbc/databases.js';
import { commonTypesDdl } from '../jdbc/type-tables.js';

let pgs: TestDatabaseServer;
let maria: TestDatabaseServer;
const jobs = new JobFolder();
const server = (k: DbKind) => (k === 'pg' ? pgs : maria);

/** 3,000 more rows after the three edge rows of common_types, so that tables span several key ranges. */
function moreRows(kind: DbKind): string {
  const rows: string[] = [];
  for (let i = 1000; i < 4000; i++) {
    const bytes = kind === 'pg' ? `'\\x${i.toString(16).padStart(4, '0')}'` : `X'${i.toString(16).padStart(4, '0')}'`;
    rows.push(
      `(${i}, ${i % 2 === 0}, ${i % 300}, ${i * 7}, ${i * 1000003}, ${i / 4}, ${i / 3}, '${i}.${String(i % 100).padStart(2, '0')}', 'name ${i}', 'text ${i}', ${bytes}, '2024-01-${String(1 + (i % 28)).padStart(2, '0')}', '10:00:${String(i % 60).padStart(2, '0')}.5', '2024-03-04 05:06:07.${String(i).padStart(6, '0')}', '{"i": ${i}, "tags": ["a", "b"]}')`,
    );
  }
  return `INSERT INTO common_types VALUES ${rows.join(', ')}`;
}

function job(from: DbKind, to: DbKind, target: string): string {
  return `
env { job.mode = "BATCH", parallelism = 1 }
source {
  Jdbc {
    ${jdbcConnection(from, server(from))}
    table_path = "${from === 'pg' ? `${pgs.database}.public.common_types` : `${maria.database}.common_types`}"
  }
}
sink {
  Jdbc {
    ${jdbcConnection(to, server(to))}
    generate_sink_sql = true
    database = "${server(to).database}"
    table = "${to === 'pg' ? `public.${target}` : target}"
    primary_keys = ["id"]
  }
}`;
}

interface Report {
  equal: boolean;
  tables: Array<{
    sourceRows: number;
    sinkRows: number;
    ranges: number;
    differingRanges: number;
    missing: number;
    extra: number;
    different: number;
    keys: { missing: { key: string }[]; extra: { key: string }[]; different: { key: string; columns: string[] }[] };
    typeChanges: string[];
  }>;
}

async function verify(conf: string): Promise<{ code: number | null; report: Report; stderr: string }> {
  const res = await runCli(['verify', '-c', conf, '--json', '--max-keys', '5000']);
  return { code: res.code, report: res.stdout ? (JSON.parse(res.stdout) as Report) : (undefined as never), stderr: res.stderr };
}

beforeAll(async () => {
  [pgs, maria] = await Promise.all([startPostgres(), startMariaDb()]);
  await pgExec(pgs, `${commonTypesDdl('pg')} ${moreRows('pg')}`);
  await myExec(maria, `${commonTypesDdl('maria')} ${moreRows('maria')}`);
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await Promise.all([pgs?.stop(), maria?.stop()]);
});

describe('tideway verify', () => {
  it.each<{ from: DbKind; to: DbKind; target: string }>([
    { from: 'maria', to: 'pg', target: 'v_from_maria' },
    { from: 'pg', to: 'maria', target: 'v_from_pg' },
    { from: 'pg', to: 'pg', target: 'v_pg_copy' },
  ])(
    "$from -> $to: equal after the sync, across the dialects' type mappings",
    async ({ from, to, target }) => {
      const conf = jobs.write(job(from, to, target));
      const run = await runCli(['run', '-c', conf]);
      expect(run.code, run.stderr).toBe(0);
      const { code, report, stderr } = await verify(conf);
      expect(code, `${stderr}\n${JSON.stringify(report, null, 2)}`).toBe(0);
      expect(report.equal).toBe(true);
      expect(report.tables[0]).toMatchObject({ sourceRows: 3003, sinkRows: 3003, differingRanges: 0, missing: 0, extra: 0, different: 0 });
      expect(report.tables[0].ranges).toBeGreaterThan(1);
    },
    120_000,
  );

  it('names the deleted, extra and changed rows and the rows a changed column type altered, each by key', async () => {
    const conf = jobs.write(job('maria', 'pg', 'v_changed'));
    const run = await runCli(['run', '-c', conf]);
    expect(run.code, run.stderr).toBe(0);
    await dbExec('pg', pgs, 'DELETE FROM v_changed WHERE id = 2000');
    await pgExec(pgs, "INSERT INTO v_changed (id, c_varchar) VALUES (99999, 'not in the source')");
    await pgExec(pgs, "UPDATE v_changed SET c_varchar = 'changed' WHERE id = 1500");
    // Floats and JSON across dialects are hashed as each side prints them, and compared here where a range differs.
    await pgExec(
      pgs,
      'UPDATE v_changed SET c_double = c_double + 0.5 WHERE id = 1600; UPDATE v_changed SET c_json = \'{"i": 0}\' WHERE id = 1700',
    );
    // One fraction digit left: 1234.56-style values keep their value only where the second digit was 0.
    await pgExec(pgs, 'ALTER TABLE v_changed ALTER COLUMN c_decimal TYPE numeric(20, 1)');
    const { code, report } = await verify(conf);
    expect(code).toBe(1);
    // One session per side, or more slices than ranges: the same differences.
    for (const parallelism of ['1', '7']) {
      const other = await runCli(['verify', '-c', conf, '--json', '--max-keys', '5000', '--parallelism', parallelism]);
      expect(other.code).toBe(1);
      expect((JSON.parse(other.stdout) as Report).tables[0].keys).toEqual(report.tables[0].keys);
    }
    const t = report.tables[0];
    expect(t.keys.missing).toEqual([{ key: 'id=2000' }]);
    expect(t.keys.extra).toEqual([{ key: 'id=99999' }]);
    expect(t.keys.different).toContainEqual({ key: 'id=1500', columns: ['c_varchar'] });
    expect(t.keys.different).toContainEqual({ key: 'id=1600', columns: ['c_double'] });
    expect(t.keys.different).toContainEqual({ key: 'id=1700', columns: ['c_json'] });
    // -12345678901234.123456 and 0.000001 lose digits; 1001.01 becomes 1001.0, 1010.10 stays 1010.1.
    expect(t.keys.different).toContainEqual({ key: 'id=1', columns: ['c_decimal'] });
    expect(t.keys.different).toContainEqual({ key: 'id=1001', columns: ['c_decimal'] });
    expect(t.keys.different.map((d) => d.key)).not.toContain('id=1010');
    expect(t.typeChanges.some((c) => c.startsWith('c_decimal:') && c.endsWith('numeric(20,1)'))).toBe(true);
    expect(t).toMatchObject({ sourceRows: 3003, sinkRows: 3003, missing: 1, extra: 1 });

    const text = await runCli(['verify', '-c', conf, '--max-keys', '3']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/missing in the sink +id=2000/);
    expect(text.stdout).toMatch(/NOT EQUAL/);
  }, 120_000);

  it('reads a range whose checksums differ only by how a database prints equal JSON, and finds it equal', async () => {
    const conf = jobs.write(job('pg', 'maria', 'v_json_layout'));
    const run = await runCli(['run', '-c', conf]);
    expect(run.code, run.stderr).toBe(0);
    // The same value in another key order and spacing: MariaDB keeps JSON as the text it was given.
    await myExec(maria, `UPDATE v_json_layout SET c_json = '{"tags":["a","b"],"i":1800}' WHERE id = 1800`);
    const { code, report } = await verify(conf);
    expect(code).toBe(0);
    expect(report.tables[0]).toMatchObject({ differingRanges: 1, missing: 0, extra: 0, different: 0 });
  }, 120_000);

  it('refuses what it cannot compare with exit code 2 and one sentence', async () => {
    const withQuery = jobs.write(job('pg', 'pg', 'v_pg_copy').replace(/table_path = "[^"]+"/, 'query = "select * from common_types"'));
    const q = await runCli(['verify', '-c', withQuery]);
    expect(q.code).toBe(2);
    expect(q.stderr).toMatch(/only whole tables \(table_path\) can be compared/);
    const bad = await runCli(['verify', '-c', jobs.write(job('pg', 'pg', 'v_pg_copy')), '--max-keys', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-keys many/);
    const none = await runCli(['verify', '-c', jobs.write(job('pg', 'pg', 'v_pg_copy')), '--parallelism', '0']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--parallelism 0: expected a whole number of at least 1/);
    const plain = jobs.write(job('pg', 'pg', 'v_pg_copy'));
    const alone = await runCli(['verify', '-c', plain, '--then-job-id', '42']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--then-job-id is read only with --then/);
    // --then compares through Kafka: a Jdbc -> Jdbc job is no first half of such a pipeline.
    const through = await runCli(['verify', '-c', plain, '--then', plain, '--no-wait']);
    expect(through.code).toBe(2);
    expect(through.stderr).toMatch(/verify --then compares through Kafka: the first job's sinks must be Kafka sinks, and sink Jdbc is not/);
  }, 90_000);
});
