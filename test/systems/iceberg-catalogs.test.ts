/**
 * The Iceberg sink's REST catalog against Iceberg's own REST catalog (Iceberg's Java library in
 * one JVM shared by the suite run, scripts/ensure-iceberg-java.sh), and every catalog's tables read
 * back by two readers that apply deletes: PyIceberg and Iceberg's Java library (IcebergGenerics).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  icebergJavaPresent,
  icebergPeersPresent,
  javaIcebergRead,
  pyicebergRead,
  sharedIcebergJava,
  startPostgres,
  type TestDatabaseServer,
} from '@tideway/testing';
import { runCli } from '../conformance/cli-process.js';

const present = icebergPeersPresent() && icebergJavaPresent();
const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-catalogs-'));
const run = `r${process.pid}`; // the shared REST catalog outlives this file: namespaces of its own
let server: TestDatabaseServer;
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

/** Runs the three CDC runs into the sink block `sink(extra)`. */
async function runCdc(sink: (extra: string) => string): Promise<void> {
  for (const [i, rows] of CDC_RUNS.entries()) {
    const res = await runJob(`${source(rows)}sink { Iceberg {
      ${sink(i === 2 ? 'iceberg.table.upsert-mode-enabled = true' : '')}
      iceberg.table.primary-keys = "id,region"
      iceberg.table.partition-keys = "region"
    } }`);
    expect(res.code, res.stderr).toBe(0);
  }
}

const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

beforeAll(async () => {
  if (!present) return;
  [server, rest] = await Promise.all([startPostgres(), sharedIcebergJava()]);
}, 150_000);

afterAll(async () => {
  await server?.stop();
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

  it("reads hadoop and sql catalog CDC tables with Iceberg's Java library as PyIceberg reads them", async () => {
    const wh = join(dir, 'wh-hadoop');
    await runCdc(
      (extra) => `catalog_name = "h"
      iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "file://${wh}" }
      namespace = "db"
      table = "users"
      ${extra}`,
    );
    const version = readFileSync(join(wh, 'db', 'users', 'metadata', 'version-hint.text'), 'utf8').trim();
    const metadata = join(wh, 'db', 'users', 'metadata', `v${version}.metadata.json`);
    const byFile = await javaIcebergRead({ metadata });
    expect(sorted(byFile.rows)).toEqual(sorted(CDC_ROWS));
    const byCatalog = await javaIcebergRead({ catalog: { type: 'hadoop', warehouse: `file://${wh}` }, table: 'db.users' });
    expect(sorted(byCatalog.rows)).toEqual(sorted(CDC_ROWS));
    expect(sorted((await pyicebergRead({ metadata })).rows)).toEqual(sorted(CDC_ROWS));

    const sqlWh = join(dir, 'wh-sql');
    await runCdc(
      (extra) => `catalog_name = "tw"
      iceberg.catalog.config = { "type" = "jdbc", "uri" = "${server.jdbcUrl}", "jdbc.user" = "${server.user}", "jdbc.password" = "${server.password}", "warehouse" = "${sqlWh}" }
      namespace = "db"
      table = "users"
      ${extra}`,
    );
    const java = await javaIcebergRead({
      catalog: { type: 'jdbc', uri: server.jdbcUrl, 'jdbc.user': server.user, 'jdbc.password': server.password, warehouse: sqlWh },
      name: 'tw',
      table: 'db.users',
    });
    expect(java.identifier).toEqual(['id', 'region']);
    expect(sorted(java.rows)).toEqual(sorted(CDC_ROWS));
    const pyUri = `postgresql+psycopg2://${server.user}:${encodeURIComponent(server.password)}@127.0.0.1:${server.port}/${server.database}`;
    expect(sorted((await pyicebergRead({ uri: pyUri, catalog: 'tw', table: 'db.users' })).rows)).toEqual(sorted(CDC_ROWS));
  }, 300_000);

  it('says in one sentence that a REST catalog cannot be reached, with its address', async () => {
    const res = await runJob(`${source('{ kind = INSERT, fields = [1, "eu", "ann", 10, null, null] }')}sink { Iceberg {
      catalog_name = "rest"
      iceberg.catalog.config = { "type" = "rest", "uri" = "http://127.0.0.1:9" }
      namespace = "db", table = "t"
    } }`);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/rest catalog at http:\/\/127\.0\.0\.1:9 cannot be reached/);
  }, 120_000);
});
