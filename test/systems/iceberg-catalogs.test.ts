/**
 * The Iceberg sink's REST catalog against Iceberg's own REST catalog (Iceberg's Java library in
 * one JVM shared by the suite run, scripts/ensure-iceberg-java.sh), and S3 warehouses (s3rver) of
 * a sql catalog and of a REST catalog (a peer of its own, its warehouse on S3),
 * the tables read back by two readers that apply deletes: PyIceberg and Iceberg's Java library
 * (IcebergGenerics). The hadoop catalog's tables are read by both in iceberg.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import {
  freePort,
  icebergJavaPresent,
  icebergPeersPresent,
  javaIcebergRead,
  pyicebergRead,
  sharedIcebergJava,
  startIcebergJava,
  startPostgres,
  type TestDatabaseServer,
} from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';

const present = icebergPeersPresent() && icebergJavaPresent();
const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-catalogs-'));
const run = `r${process.pid}`; // the shared REST catalog outlives this file: namespaces of its own
let server: TestDatabaseServer;
let s3: TestS3Server;
let rest: string;
let jobNo = 0;

async function runJob(text: string, timeoutMs = 120_000) {
  const file = join(dir, `job-${++jobNo}.conf`);
  writeFileSync(file, text);
  return runCli(['run', '-c', file], timeoutMs);
}

const source = (rows: string) => `
env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { schema = { fields { id = int, region = string, name = string, score = bigint, amount = "decimal(10, 2)", at = timestamp } }, rows = [${rows}] } }
`;
/** Three runs into one table: inserts, then updates and deletes, then upserts; the rows the table ends with. */
const CDC_RUNS = [
  `{ kind = INSERT, fields = [1, "eu", "ann", 10, "1.50", "2024-01-01T10:00:00"] }, { kind = INSERT, fields = [2, "eu", "bob", 20, "-2.25", "2024-01-02T00:00:00.5"] },
   { kind = INSERT, fields = [3, "us", "cid", 30, null, null] }, { kind = INSERT, fields = [4, "us", "dan", 40, "4.00", "2024-01-04T04:04:04"] }`,
  `{ kind = UPDATE_BEFORE, fields = [1, "eu", "ann", 10, "1.50", "2024-01-01T10:00:00"] }, { kind = UPDATE_AFTER, fields = [1, "eu", "ann", 11, "1.50", "2024-01-01T10:00:00"] },
   { kind = DELETE, fields = [3, "us", "cid", 30, null, null] },
   { kind = INSERT, fields = [5, "us", "eve", 50, "5.00", null] }, { kind = UPDATE_BEFORE, fields = [5, "us", "eve", 50, "5.00", null] }, { kind = UPDATE_AFTER, fields = [5, "us", "eve", 55, "5.50", null] },
   { kind = INSERT, fields = [6, "eu", "fay", 60, null, null] }, { kind = DELETE, fields = [6, "eu", "fay", 60, null, null] }`,
  `{ kind = INSERT, fields = [2, "eu", "bob", 22, "-2.25", "2024-01-02T00:00:00.5"] }, { kind = INSERT, fields = [7, "us", "gus", 70, "7.07", "2024-01-07T07:07:07"] }`,
];
const CDC_ROWS = [
  ['1', 'eu', 'ann', '11', '1.50', '2024-01-01T10:00:00'],
  ['2', 'eu', 'bob', '22', '-2.25', '2024-01-02T00:00:00.500000'],
  ['4', 'us', 'dan', '40', '4.00', '2024-01-04T04:04:04'],
  ['5', 'us', 'eve', '55', '5.50', null],
  ['7', 'us', 'gus', '70', '7.07', '2024-01-07T07:07:07'],
];

/** The rows after the first two runs (inserts, then updates and deletes). */
const CDC_ROWS_AFTER_TWO = [
  ['1', 'eu', 'ann', '11', '1.50', '2024-01-01T10:00:00'],
  ['2', 'eu', 'bob', '20', '-2.25', '2024-01-02T00:00:00.500000'],
  ['4', 'us', 'dan', '40', '4.00', '2024-01-04T04:04:04'],
  ['5', 'us', 'eve', '55', '5.50', null],
];

/** Runs the first `runs` CDC runs into the sink block `sink(extra)`. */
async function runCdc(sink: (extra: string) => string, runs = CDC_RUNS.length): Promise<void> {
  for (const [i, rows] of CDC_RUNS.slice(0, runs).entries()) {
    const res = await runJob(`${source(rows)}sink { Iceberg {
      ${sink(i === 2 ? 'iceberg.table.upsert-mode-enabled = true' : '')}
      iceberg.table.primary-keys = "id,region"
      iceberg.table.partition-keys = "region"
    } }`);
    expect(res.code, res.stderr).toBe(0);
  }
}

const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
/** The catalog keys of the test's s3rver, as Iceberg names them. */
const s3Props = (): Record<string, string> => ({
  's3.endpoint': s3.endpoint,
  's3.access-key-id': s3.accessKeyId,
  's3.secret-access-key': s3.secretAccessKey,
  's3.path-style-access': 'true',
  'client.region': 'us-east-1',
});
const hocon = (props: Record<string, string>) =>
  Object.entries(props)
    .map(([k, v]) => `"${k}" = "${v}"`)
    .join(', ');

beforeAll(async () => {
  if (!present) return;
  [server, rest, s3] = await Promise.all([startPostgres(), sharedIcebergJava(), startS3rver(['lake'])]);
}, 150_000);

afterAll(async () => {
  await server?.stop();
  await s3?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!present)("Iceberg catalogs, read back by PyIceberg and Iceberg's Java library", () => {
  it("writes CDC changes into a REST catalog table (Iceberg's own REST server); both readers apply the deletes", async () => {
    await runCdc(
      (extra) => `catalog_name = "rest"
      iceberg.catalog.config = { "type" = "rest", "uri" = "${rest}", "credential" = "tideway:secret" }
      namespace = "${run}.cdc"
      table = "users"
      ${extra}`,
    );
    const py = await pyicebergRead({ rest, table: `${run}.cdc.users` });
    expect(py.identifier).toEqual(['id', 'region']);
    expect(py.schema.map(([n, t]) => `${n} ${t}`)).toEqual([
      'id int',
      'region string',
      'name string',
      'score long',
      'amount decimal(10, 2)',
      'at timestamp',
    ]);
    expect(sorted(py.rows)).toEqual(sorted(CDC_ROWS));
    expect(py.delete_files).toBeGreaterThan(0);
    expect(py.snapshots.map((s) => s.operation)).toEqual(['append', 'overwrite', 'overwrite']);
    const java = await javaIcebergRead({ catalog: { type: 'rest', uri: rest }, table: `${run}.cdc.users` });
    expect(java.identifier).toEqual(['id', 'region']);
    expect(sorted(java.rows)).toEqual(sorted(CDC_ROWS));
  }, 240_000);

  it('lets two jobs commit to one REST catalog table at once: a lost race (409) is redone on the new metadata, nothing lost', async () => {
    const job = (table: string) => `
env { parallelism = 2, job.mode = "BATCH", checkpoint.interval = 200 }
source { Sequence { table = "${table}", keys = 4, rows.per.key = 300, rows.per.second = 1000 } }
sink { Iceberg {
  catalog_name = "rest"
  iceberg.catalog.config = { "type" = "rest", "uri" = "${rest}" }
  namespace = "${run}_race"
  table = "shared"
  iceberg.table.primary-keys = "key,seq"
} }`;
    const [a, b] = await Promise.all([runJob(job('a')), runJob(job('b'))]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const py = await pyicebergRead({ rest, table: `${run}_race.shared` });
    expect(py.rows).toHaveLength(2400);
    expect(new Set(py.snapshots.map((s) => s['tideway.job-id'])).size).toBe(2);
    const java = await javaIcebergRead({ catalog: { type: 'rest', uri: rest }, table: `${run}_race.shared` });
    expect(java.rows).toHaveLength(2400);
  }, 240_000);

  // A sql catalog over an S3 warehouse is also written and listed by iceberg-maintenance.test.ts;
  // this reading of it by both libraries' catalogs runs with TIDEWAY_SLOW_TESTS=1 (the suite's budget).
  it.skipIf(process.env.TIDEWAY_SLOW_TESTS !== '1')(
    "keeps a sql catalog table in S3 (data, manifests, metadata); PyIceberg's SqlCatalog and the Java library's JdbcCatalog read it there",
    async () => {
      const io = s3Props();
      const ioText = hocon(io);
      await runCdc(
        (extra) => `catalog_name = "lake"
      iceberg.catalog.config = { "type" = "jdbc", "uri" = "${server.jdbcUrl}", "jdbc.user" = "${server.user}", "jdbc.password" = "${server.password}", "warehouse" = "s3://lake/wh", ${ioText} }
      namespace = "db"
      table = "users"
      ${extra}`,
        2,
      );
      const pyUri = `postgresql+psycopg2://${server.user}:${encodeURIComponent(server.password)}@127.0.0.1:${server.port}/${server.database}`;
      const py = await pyicebergRead({ uri: pyUri, catalog: 'lake', table: 'db.users', props: io });
      expect(sorted(py.rows)).toEqual(sorted(CDC_ROWS_AFTER_TWO));
      expect(py.delete_files).toBeGreaterThan(0);
      const java = await javaIcebergRead({
        catalog: {
          type: 'jdbc',
          uri: server.jdbcUrl,
          'jdbc.user': server.user,
          'jdbc.password': server.password,
          warehouse: 's3://lake/wh',
        },
        name: 'lake',
        table: 'db.users',
        io,
      });
      expect(sorted(java.rows)).toEqual(sorted(CDC_ROWS_AFTER_TWO));
    },
    240_000,
  );

  it('writes a REST catalog table whose warehouse is on S3 (the server writes metadata there, the sink data and manifests)', async () => {
    const io = s3Props();
    // s3rver stores the SDK's aws-chunked upload framing as the object's bytes: the server uploads plainly
    const peer = await startIcebergJava(join(dir, 'rest-s3-peer'), {
      warehouse: 's3://lake/rest-wh',
      ...io,
      's3.chunked-encoding-enabled': 'false',
    });
    try {
      await runCdc(
        (extra) => `catalog_name = "rest"
        iceberg.catalog.config = { "type" = "rest", "uri" = "${peer.url}", ${hocon(io)} }
        namespace = "db"
        table = "users"
        ${extra}`,
        2,
      );
      const py = await pyicebergRead({ rest: peer.url, table: 'db.users', props: io });
      expect(sorted(py.rows)).toEqual(sorted(CDC_ROWS_AFTER_TWO));
      expect(py.delete_files).toBeGreaterThan(0);
      const java = await javaIcebergRead({ catalog: { type: 'rest', uri: peer.url }, table: 'db.users', io }, peer.url);
      expect(sorted(java.rows)).toEqual(sorted(CDC_ROWS_AFTER_TWO));
      // Tideway's own Iceberg source reads it back through the same REST catalog and S3, deletes applied.
      const out = join(dir, 'rest-s3-read');
      const read = await runJob(`env { parallelism = 2, job.mode = "BATCH" }
source { Iceberg {
  catalog_name = "rest"
  iceberg.catalog.config = { "type" = "rest", "uri" = "${peer.url}", ${hocon(io)} }
  namespace = "db"
  table = "users"
} }
sink { LocalFile { path = "${out}", file_format_type = "json" } }
`);
      expect(read.code, read.stderr).toBe(0);
      const got = readdirSync(out)
        .flatMap((f) => readFileSync(join(out, f), 'utf8').split('\n'))
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { id: number; name: string; score: number });
      expect(got.map((r) => [String(r.id), r.name, String(r.score)]).sort()).toEqual(
        CDC_ROWS_AFTER_TWO.map((r) => [r[0], r[2], r[3]]).sort(),
      );
    } finally {
      await peer.stop();
    }
  }, 240_000);

  it('says in one sentence that a REST catalog cannot be reached, with its address', async () => {
    const port = await freePort(); // nothing listens there
    const res =
      await runJob(`${source('{ kind = INSERT, fields = [1, "eu", "ann", 10, null, null] }').replace('job.mode = "BATCH"', 'job.mode = "BATCH", job.retry.times = 0')}sink { Iceberg {
      catalog_name = "rest"
      iceberg.catalog.config = { "type" = "rest", "uri" = "http://127.0.0.1:${port}" }
      namespace = "db", table = "t"
    } }`);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(
      `rest catalog at http://127.0.0.1:${port} cannot be reached (GET http://127.0.0.1:${port}/v1/config): ECONNREFUSED.`,
    );
  }, 120_000);
});
