/**
 * The Iceberg sink through the real CLI, its tables read back by PyIceberg (scripts/ensure-iceberg-peers.sh):
 * every type into a hadoop catalog (a local folder, read through its metadata file), a Jdbc
 * table into a sql catalog in the test's own PostgreSQL (read through PyIceberg's SqlCatalog),
 * injected faults with restores (every row once), two jobs committing to one table at once,
 * CDC updates and deletes as equality deletes, and the refusals of bad options (exit 2).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  icebergJavaPresent,
  icebergPeersPresent,
  javaIcebergRead,
  pyicebergRead,
  sharedConformanceDir,
  startPostgres,
  type TestDatabaseServer,
} from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';

const present = icebergPeersPresent();
/** Iceberg's Java library reads the tables too (outside CI only when scripts/ensure-iceberg-java.sh fetched it). */
const javaPresent = present && icebergJavaPresent();
const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-'));
let server: TestDatabaseServer;
let jobNo = 0;

async function runJob(text: string, timeoutMs = 120_000) {
  const file = join(dir, `job-${++jobNo}.conf`);
  writeFileSync(file, text);
  return runCli(['run', '-c', file], timeoutMs);
}

const hadoop = (warehouse: string) => `iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "file://${warehouse}" }`;
const sql = (warehouse: string) =>
  `iceberg.catalog.config = { "type" = "jdbc", "uri" = "${server.jdbcUrl}", "jdbc.user" = "${server.user}", "jdbc.password" = "${server.password}", "warehouse" = "${warehouse}" }`;
/** PyIceberg's SqlCatalog address of the test's PostgreSQL. */
const pyUri = () =>
  `postgresql+psycopg2://${server.user}:${encodeURIComponent(server.password)}@127.0.0.1:${server.port}/${server.database}`;

/** The current metadata file of a hadoop-catalog table. */
function hadoopMetadata(warehouse: string, table: string): string {
  const version = readFileSync(join(warehouse, table, 'metadata', 'version-hint.text'), 'utf8').trim();
  return join(warehouse, table, 'metadata', `v${version}.metadata.json`);
}

beforeAll(async () => {
  if (present) server = await startPostgres();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!present)('Iceberg sink, read back by PyIceberg', () => {
  it('writes every type into a hadoop catalog table, partitioned, with column stats', async () => {
    const wh = join(dir, 'wh-types');
    const res = await runJob(`
env { parallelism = 1, job.mode = "BATCH" }
source {
  FakeSource {
    schema = { fields { id = bigint, name = string, c_tiny = tinyint, c_int = int, c_float = float, c_double = double, c_decimal = "decimal(20, 4)",
                        c_bool = boolean, c_bytes = bytes, c_date = date, c_time = time, c_ts = timestamp, c_arr = "array<int>", c_map = "map<string, bigint>", c_part = string } }
    rows = [
      { kind = INSERT, fields = [1, "one", 1, 10, 1.5, 2.25, "12345.6789", true, "AQI=", "2024-02-29", "10:11:12.123456", "2024-02-29T23:59:59.999999", [1, 2], { a = 1 }, "x"] },
      { kind = INSERT, fields = [2, "two", -2, -20, -1.5, -2.25, "-0.0001", false, "", "1970-01-01", "00:00:00", "1970-01-01T00:00:00", [], {}, "y"] },
      { kind = INSERT, fields = [3, null, null, null, null, null, null, null, null, null, null, null, null, null, "x"] }
    ]
  }
}
sink {
  Iceberg {
    catalog_name = "local"
    ${hadoop(wh)}
    namespace = "db"
    table = "types"
    iceberg.table.partition-keys = "c_part"
  }
}`);
    expect(res.code, res.stderr).toBe(0);
    const t = await pyicebergRead({ metadata: hadoopMetadata(wh, 'db/types') });
    expect(t.schema.map(([n, ty]) => `${n} ${ty}`)).toEqual([
      'id long',
      'name string',
      'c_tiny int',
      'c_int int',
      'c_float float',
      'c_double double',
      'c_decimal decimal(20, 4)',
      'c_bool boolean',
      'c_bytes binary',
      'c_date date',
      'c_time time',
      'c_ts timestamp',
      'c_arr list<int>',
      'c_map map<string, long>',
      'c_part string',
    ]);
    expect(t.rows).toEqual([
      [
        '1',
        'one',
        '1',
        '10',
        1.5,
        2.25,
        '12345.6789',
        true,
        '0102',
        '2024-02-29',
        '10:11:12.123456',
        '2024-02-29T23:59:59.999999',
        ['1', '2'],
        [['a', '1']],
        'x',
      ],
      ['2', 'two', '-2', '-20', -1.5, -2.25, '-0.0001', false, '', '1970-01-01', '00:00:00', '1970-01-01T00:00:00', [], [], 'y'],
      ['3', null, null, null, null, null, null, null, null, null, null, null, null, null, 'x'],
    ]);
    if (javaPresent) {
      // the same values through Iceberg's own reader (IcebergGenerics)
      const java = await javaIcebergRead({ metadata: hadoopMetadata(wh, 'db/types') });
      expect(java.schema).toEqual(t.schema);
      expect(sorted(java.rows)).toEqual(sorted(t.rows));
    }
    expect(t.snapshots).toHaveLength(1);
    expect(t.snapshots[0]).toMatchObject({
      operation: 'append',
      'added-records': '3',
      'tideway.max-committed-checkpoint-id': expect.any(String) as unknown,
    });
    // stats: PyIceberg prunes files by them (the c_part = y file holds id 2 only, so id > 2 skips it)
    const pruned = await runPython(`
from pyiceberg.table import StaticTable
t = StaticTable.from_metadata(${JSON.stringify(hadoopMetadata(wh, 'db/types'))})
print(len(list(t.scan(row_filter="id > 2").plan_files())), len(list(t.scan(row_filter="id > 100").plan_files())), len(list(t.scan().plan_files())))`);
    const [matching, none, all] = pruned.trim().split(' ').map(Number);
    expect(none).toBe(0);
    expect(matching).toBeGreaterThanOrEqual(1);
    expect(matching).toBeLessThan(all);
  }, 150_000);

  it('partitions by year, month, day, hour and truncate as Iceberg computes them (PyIceberg prunes by them)', async () => {
    const wh = join(dir, 'wh-transforms');
    const res = await runJob(`
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { schema = { fields { id = bigint, name = string, d = date, ts = timestamp, amount = "decimal(10, 2)" } }, rows = [
  { kind = INSERT, fields = [1, "alpha", "2024-02-29", "2024-02-29T23:59:59.5", "12.34"] },
  { kind = INSERT, fields = [2, "beta", "1969-12-31", "1969-12-31T23:00:00", "-0.05"] },
  { kind = INSERT, fields = [3, null, null, null, null] } ] } }
sink { Iceberg {
  catalog_name = "c"
  ${hadoop(wh)}
  namespace = "db", table = "p"
  iceberg.table.partition-keys = "year(d),month(ts),day(ts),hour(ts),truncate[2](name),truncate[10](id),truncate[100](amount)"
} }`);
    expect(res.code, res.stderr).toBe(0);
    const out = await runPython(`
from pyiceberg.table import StaticTable
t = StaticTable.from_metadata(${JSON.stringify(hadoopMetadata(wh, 'db/p'))})
print(str(t.spec()).replace("\\n", " "))
for p in sorted(str(task.file.partition) for task in t.scan().plan_files()): print(p)
print(len(list(t.scan(row_filter="ts >= '2024-01-01T00:00:00'").plan_files())), t.scan().to_arrow().num_rows)`);
    const lines = out.trim().split('\n');
    expect(lines.slice(-4)).toEqual([
      'Record[-1, -1, -1, -1, be, 0, -1.00]',
      'Record[54, 649, 19782, 474791, al, 0, 12.00]',
      'Record[None, None, None, None, None, 0, None]',
      '1 3',
    ]);
    expect(out).toContain('ts_hour: hour(4)');
  }, 150_000);

  it("partitions by bucket[N] as PyIceberg's bucket transform computes it, and PyIceberg prunes by it", async () => {
    const wh = join(dir, 'wh-bucket');
    const ids = Array.from({ length: 24 }, (_, i) => i * 7 - 20);
    const res = await runJob(`
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { schema = { fields { id = bigint, name = string, d = date, amount = "decimal(10, 2)" } }, rows = [
  ${ids.map((id) => `{ kind = INSERT, fields = [${id}, "n${id}", "2024-0${(Math.abs(id) % 9) + 1}-1${Math.abs(id) % 10}", "${id}.${Math.abs(id) % 100}"] }`).join(',\n  ')},
  { kind = INSERT, fields = [1000, null, null, null] } ] } }
sink { Iceberg {
  catalog_name = "c"
  ${hadoop(wh)}
  namespace = "db", table = "b"
  iceberg.table.partition-keys = "bucket[4](id),bucket[3](name),bucket[5](d),bucket[2](amount)"
} }`);
    expect(res.code, res.stderr).toBe(0);
    const out = await runPython(`
import pyarrow.parquet as pq
from pyiceberg.table import StaticTable
from pyiceberg.transforms import BucketTransform
t = StaticTable.from_metadata(${JSON.stringify(hadoopMetadata(wh, 'db/b'))})
schema, spec = t.schema(), t.spec()
checked = wrong = 0
for task in t.scan().plan_files():
    rows = pq.read_table(task.file.file_path.removeprefix("file://")).to_pylist()
    for i, f in enumerate(spec.fields):
        source = schema.find_field(f.source_id)
        fn = BucketTransform(f.transform.num_buckets).transform(source.field_type)
        for r in rows:
            checked += 1
            wrong += fn(r[source.name]) != task.file.partition[i]
print(checked, wrong, len(list(t.scan(row_filter="id == 22").plan_files())), len(list(t.scan().plan_files())))`);
    const [checked, wrong, matching, files] = out.trim().split(' ').map(Number);
    expect(checked).toBe(4 * 25);
    expect(wrong).toBe(0);
    expect(matching).toBeGreaterThanOrEqual(1);
    expect(matching).toBeLessThan(files);
  }, 150_000);

  it("runs SeaTunnel's fake_to_iceberg.conf unchanged but for its warehouse: 100 rows, one file each (10-byte target), partitioned by timestamp", async () => {
    const shared = sharedConformanceDir();
    if (!shared) return; // said once by sharedConformanceDir; CI fails there without the folder
    const wh = join(dir, 'wh-seatunnel');
    const text = readFileSync(join(shared, 'iceberg', 'iceberg', 'fake_to_iceberg.conf'), 'utf8').replace(
      'file:///tmp/seatunnel/iceberg/hadoop-sink/',
      `file://${wh}/`,
    );
    const res = await runJob(text);
    expect(res.code, res.stderr).toBe(0);
    const t = await pyicebergRead({ metadata: hadoopMetadata(wh, 'seatunnel_namespace/iceberg_sink_table') });
    expect(t.rows).toHaveLength(100);
    expect(t.files).toBe(100);
    expect(t.schema.map(([n, ty]) => `${n} ${ty}`)).toContain('c_timestamp timestamp');
  }, 150_000);

  it("runs SeaTunnel's fake_to_iceberg_with_branch.conf unchanged but for its warehouse: the snapshots go to the branch, main stays empty", async () => {
    const shared = sharedConformanceDir();
    if (!shared) return; // said once by sharedConformanceDir; CI fails there without the folder
    const wh = join(dir, 'wh-branch');
    const text = readFileSync(join(shared, 'iceberg', 'iceberg', 'fake_to_iceberg_with_branch.conf'), 'utf8').replace(
      'file:///tmp/seatunnel/iceberg/hadoop-sink/',
      `file://${wh}/`,
    );
    const res = await runJob(text);
    expect(res.code, res.stderr).toBe(0);
    const out = await runPython(`
from pyiceberg.table import StaticTable
t = StaticTable.from_metadata(${JSON.stringify(hadoopMetadata(wh, 'seatunnel_namespace/iceberg_sink_table'))})
ref = t.metadata.refs["commit-branch"]
print(ref.snapshot_ref_type.value, t.current_snapshot() is None, t.scan(snapshot_id=ref.snapshot_id).to_arrow().num_rows)`);
    expect(out.trim()).toBe('branch True 100');
  }, 150_000);

  it('copies a PostgreSQL table into a sql catalog table in the same PostgreSQL, appending a second run as a second snapshot', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('CREATE TABLE src (id int PRIMARY KEY, name text, amount numeric(10,2), at timestamp)');
    await client.query(
      `INSERT INTO src SELECT g, 'n' || g, g * 1.25, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 500) g`,
    );
    const wh = join(dir, 'wh-sql');
    const job = `
env { parallelism = 1, job.mode = "BATCH" }
source { Jdbc { url = "${server.jdbcUrl}", driver = "org.postgresql.Driver", user = "${server.user}", password = "${server.password}", query = "SELECT id, name, amount, at FROM src" } }
sink {
  Iceberg {
    catalog_name = "tw"
    ${sql(wh)}
    namespace = "sales"
    table = "src_copy"
  }
}`;
    for (let run = 0; run < 2; run++) {
      const res = await runJob(job);
      expect(res.code, res.stderr).toBe(0);
    }
    const t = await pyicebergRead({ uri: pyUri(), catalog: 'tw', table: 'sales.src_copy' });
    expect(t.schema.map(([n, ty]) => `${n} ${ty}`)).toEqual(['id int', 'name string', 'amount decimal(10, 2)', 'at timestamp']);
    expect(t.rows).toHaveLength(1000);
    expect(t.rows.filter((r) => r[0] === '7')).toEqual([
      ['7', 'n7', '8.75', '2024-01-01T00:07:00'],
      ['7', 'n7', '8.75', '2024-01-01T00:07:00'],
    ]);
    expect(t.snapshots.map((s) => s.operation)).toEqual(['append', 'append']);
    const row = await client.query(
      'SELECT table_namespace, table_name, metadata_location, previous_metadata_location FROM iceberg_tables WHERE catalog_name = $1',
      ['tw'],
    );
    expect(row.rows).toHaveLength(1);
    expect(row.rows[0]).toMatchObject({ table_namespace: 'sales', table_name: 'src_copy' });
    expect((row.rows[0] as { previous_metadata_location: string }).previous_metadata_location).toMatch(/\.metadata\.json$/);
    // DROP_DATA: a snapshot without files first, then this run's rows
    const dropped = await runJob(job.replace('table = "src_copy"', 'table = "src_copy"\n    data_save_mode = "DROP_DATA"'));
    expect(dropped.code, dropped.stderr).toBe(0);
    const after = await pyicebergRead({ uri: pyUri(), catalog: 'tw', table: 'sales.src_copy' });
    expect(after.rows).toHaveLength(500);
    expect(after.snapshots.map((s) => s.operation)).toEqual(['append', 'append', 'delete', 'append']);
    await client.end();
  }, 150_000);

  it('commits every row exactly once through injected faults and restores', async () => {
    const wh = join(dir, 'wh-faults');
    const res = await runJob(
      `
env { parallelism = 2, job.mode = "BATCH", checkpoint.interval = 300, job.retry.times = 20, job.retry.interval.seconds = 0 }
source { Sequence { plugin_output = "seq", keys = 4, rows.per.key = 1500, rows.per.second = 4000 } }
transform { FaultInjector { plugin_input = "seq", plugin_output = "out", probability = 0.5, max = 4, dir = "${join(dir, 'faults')}" } }
sink {
  Iceberg {
    plugin_input = "out"
    catalog_name = "local"
    ${hadoop(wh)}
    namespace = "db"
    table = "seq"
  }
}`,
      170_000,
    );
    expect(res.code, res.stderr).toBe(0);
    expect(readdirSync(join(dir, 'faults')).length).toBeGreaterThanOrEqual(2); // faults did happen
    const t = await pyicebergRead({ metadata: hadoopMetadata(wh, 'db/seq') });
    const keys = new Set(t.rows.map((r) => JSON.stringify(r.slice(0, 2))));
    expect(t.rows).toHaveLength(6000);
    expect(keys.size).toBe(6000);
    expect(t.identifier).toEqual(['key', 'seq']);
    expect(t.snapshots.length).toBeGreaterThan(1);
  }, 180_000);

  it('lets two jobs commit to one sql catalog table at once: each snapshot on top of the other, nothing lost', async () => {
    const wh = join(dir, 'wh-race');
    const job = (table: string) => `
env { parallelism = 2, job.mode = "BATCH", checkpoint.interval = 200 }
source { Sequence { table = "${table}", keys = 4, rows.per.key = 500, rows.per.second = 1000 } }
sink {
  Iceberg {
    catalog_name = "race"
    ${sql(wh)}
    namespace = "db"
    table = "shared"
    iceberg.table.primary-keys = "key,seq"
  }
}`;
    const [a, b] = await Promise.all([runJob(job('a')), runJob(job('b'))]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const t = await pyicebergRead({ uri: pyUri(), catalog: 'race', table: 'db.shared' });
    expect(t.rows).toHaveLength(4000);
    const jobs = new Set(t.snapshots.map((s) => s['tideway.job-id']));
    expect(jobs.size).toBe(2);
  }, 150_000);

  it('turns updates and deletes into equality deletes by primary key; PyIceberg reads the final state', async () => {
    const wh = join(dir, 'wh-cdc');
    const sink = (extra = '') => `sink {
  Iceberg {
    catalog_name = "cdc"
    ${hadoop(wh)}
    namespace = "db"
    table = "users"
    iceberg.table.primary-keys = "id,region"
    iceberg.table.partition-keys = "region"
    ${extra}
  }
}`;
    const source = (rows: string) => `
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { schema = { fields { id = int, region = string, name = string, score = bigint } }, rows = [${rows}] } }
`;
    const insert = await runJob(
      `${source(`
      { kind = INSERT, fields = [1, "eu", "ann", 10] }, { kind = INSERT, fields = [2, "eu", "bob", 20] },
      { kind = INSERT, fields = [3, "us", "cid", 30] }, { kind = INSERT, fields = [4, "us", "dan", 40] }`)}${sink()}`,
    );
    expect(insert.code, insert.stderr).toBe(0);
    const changes = await runJob(
      `${source(`
      { kind = UPDATE_BEFORE, fields = [1, "eu", "ann", 10] }, { kind = UPDATE_AFTER, fields = [1, "eu", "ann", 11] },
      { kind = DELETE, fields = [3, "us", "cid", 30] },
      { kind = INSERT, fields = [5, "us", "eve", 50] }, { kind = UPDATE_BEFORE, fields = [5, "us", "eve", 50] }, { kind = UPDATE_AFTER, fields = [5, "us", "eve", 55] },
      { kind = INSERT, fields = [6, "eu", "fay", 60] }, { kind = DELETE, fields = [6, "eu", "fay", 60] }`)}${sink()}`,
    );
    expect(changes.code, changes.stderr).toBe(0);
    const upserts = await runJob(
      `${source(`{ kind = INSERT, fields = [2, "eu", "bob", 22] }, { kind = INSERT, fields = [7, "us", "gus", 70] }`)}${sink(
        'iceberg.table.upsert-mode-enabled = true',
      )}`,
    );
    expect(upserts.code, upserts.stderr).toBe(0);
    const t = await pyicebergRead({ metadata: hadoopMetadata(wh, 'db/users') });
    expect(t.identifier).toEqual(['id', 'region']);
    expect(t.rows).toEqual([
      ['1', 'eu', 'ann', '11'],
      ['2', 'eu', 'bob', '22'],
      ['4', 'us', 'dan', '40'],
      ['5', 'us', 'eve', '55'],
      ['7', 'us', 'gus', '70'],
    ]);
    expect(t.delete_files).toBeGreaterThan(0);
    expect(t.snapshots.map((s) => s.operation)).toEqual(['append', 'overwrite', 'overwrite']);
    if (javaPresent) {
      // Iceberg's own reader applies the equality deletes by its rules, by the metadata file and through HadoopCatalog
      const byFile = await javaIcebergRead({ metadata: hadoopMetadata(wh, 'db/users') });
      expect(byFile.identifier).toEqual(['id', 'region']);
      expect(sorted(byFile.rows)).toEqual(sorted(t.rows));
      const byCatalog = await javaIcebergRead({ catalog: { type: 'hadoop', warehouse: `file://${wh}` }, table: 'db.users' });
      expect(sorted(byCatalog.rows)).toEqual(sorted(t.rows));
    }
  }, 150_000);
});

// (a hive catalog, an ORC format, an unknown partition key: the contract's bad-options, in process)
describe('Iceberg sink refusals', () => {
  const job = (sinkOptions: string) => `
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { row.num = 1, schema = { fields { id = int, name = string } } } }
sink { Iceberg { catalog_name = "c", namespace = "n", table = "t"
  ${sinkOptions}
} }`;
  const local = 'iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "/tmp/none" }';
  const cases: [string, string, RegExp][] = [
    [
      'a hadoop catalog on S3',
      'iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "s3a://bucket/wh" }',
      /cannot be on S3.*atomic/,
    ],
    [
      'a warehouse of a scheme other than a local folder or S3',
      'iceberg.catalog.config = { "type" = "jdbc", "uri" = "jdbc:postgresql://127.0.0.1:1/x", "warehouse" = "gs://bucket/wh" }',
      /gs:\/\/bucket\/wh: the gs: scheme is not supported/,
    ],
    ['an unknown partition transform', `${local}\n iceberg.table.partition-keys = "void(id)"`, /transform void is not written by Tideway/],
  ];
  for (const [what, options, says] of cases) {
    it(`refuses ${what} before the job starts (exit 2)`, async () => {
      const res = await runJob(job(options));
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(says);
    }, 60_000);
  }
});

async function runPython(code: string): Promise<string> {
  const { execFile } = await import('node:child_process');
  const { ICEBERG_PEERS_DIR } = await import('@tideway/testing');
  return new Promise((resolve, reject) =>
    execFile(join(ICEBERG_PEERS_DIR, 'venv', 'bin', 'python'), ['-c', code], (err, stdout, stderr) =>
      err ? reject(new Error(stderr || err.message)) : resolve(stdout),
    ),
  );
}
