/**
 * Iceberg schema evolution through the real CLI: Postgres-CDC streams a table into an Iceberg
 * table (hadoop catalog) with iceberg.table.schema-evolution-enabled; while rows stream, a column
 * is added, one dropped, one renamed and one widened (int to bigint), each with rows around it.
 * PyIceberg (and Iceberg's Java library, where fetched) read the table with the source's columns,
 * the original field ids kept, and every row equal to the source's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  icebergJavaPresent,
  icebergPeersPresent,
  javaIcebergRead,
  pyicebergRead,
  startPostgres,
  type PyIcebergRead,
  type TestDatabaseServer,
} from '@tideway/testing';
import { CliJob, killStartedJobs, TempDirs, until } from './cli-job.js';

const present = icebergPeersPresent();
const javaPresent = present && icebergJavaPresent();
const dirs = new TempDirs();
let postgres: TestDatabaseServer;
let client: pg.Client;

beforeAll(async () => {
  if (!present) return;
  postgres = await startPostgres({ logical: true });
  client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
}, 60_000);

afterAll(async () => {
  killStartedJobs();
  await client?.end().catch(() => undefined);
  await postgres?.stop();
  dirs.cleanup();
});

const rows = (from: number, n: number, cols: (i: number) => string) =>
  Array.from({ length: n }, (_, k) => `(${cols(from + k)})`).join(', ');

describe.skipIf(!present)('Iceberg sink schema evolution (Postgres-CDC)', () => {
  it('follows ADD, DROP, RENAME and a widening of columns while streaming, each a new schema before the rows after it', async () => {
    await client.query('CREATE TABLE items (id int PRIMARY KEY, name varchar(64) NOT NULL, qty int, note varchar(32))');
    await client.query(`INSERT INTO items VALUES ${rows(1, 20, (i) => `${i}, 'item ${i}', ${i}, 'n${i}'`)}`);
    const dir = dirs.make();
    const wh = join(dir, 'wh');
    const job = new CliJob(
      dir,
      `
env { job.mode = "STREAMING", parallelism = 1, checkpoint.interval = 1000 }
source {
  Postgres-CDC {
    base-url = "jdbc:postgresql://${postgres.host}:${postgres.port}/${postgres.database}"
    username = "${postgres.user}"
    password = "${postgres.password}"
    table-names = ["${postgres.database}.public.items"]
    slot.name = "iceberg_evo"
    schema-changes.enabled = true
  }
}
sink {
  Iceberg {
    catalog_name = "evo"
    iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "file://${wh}" }
    namespace = "db"
    table = "items"
    iceberg.table.schema-evolution-enabled = true
  }
}`,
    );
    const metadata = () => {
      const v = readFileSync(join(wh, 'db', 'items', 'metadata', 'version-hint.text'), 'utf8').trim();
      return join(wh, 'db', 'items', 'metadata', `v${v}.metadata.json`);
    };
    /** The source's rows in PyIceberg's canonical form. */
    const sourceRows = async (columns: string) =>
      (await client.query({ text: `SELECT ${columns} FROM items ORDER BY id`, rowMode: 'array' })).rows.map((r: unknown[]) =>
        r.map((v) => (v === null ? null : typeof v === 'number' ? String(v) : v)),
      );
    const sorted = (rs: unknown[][]) => rs.map((r) => JSON.stringify(r)).sort();
    let last: PyIcebergRead | undefined;
    let failure = '';
    const reaches = (what: string, columns: string, schema: string[]) =>
      until(
        what,
        async () => {
          last = await Promise.resolve()
            .then(() => pyicebergRead({ metadata: metadata() }))
            .catch((err: Error) => {
              failure = err.message;
              return undefined;
            });
          if (!last) return undefined;
          const want = await sourceRows(columns);
          return JSON.stringify(last.schema.map(([n, t]) => `${n} ${t}`)) === JSON.stringify(schema) &&
            JSON.stringify(sorted(last.rows)) === JSON.stringify(sorted(want))
            ? true
            : undefined;
        },
        90_000,
        1000,
      ).catch(async (err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify(last?.schema)} ${last?.rows.length} rows ${failure.slice(-2000)}\n${cli.stderrTail()}`,
        );
      });

    const cli = await job.start();
    await reaches('the first rows', 'id, name, qty, note', ['id int', 'name string', 'qty int', 'note string']);

    await client.query('ALTER TABLE items ADD COLUMN color varchar(16)');
    await client.query(`INSERT INTO items VALUES ${rows(21, 10, (i) => `${i}, 'item ${i}', ${i}, 'n${i}', 'blue'`)}`);
    await client.query("UPDATE items SET color = 'green', qty = qty + 100 WHERE id BETWEEN 5 AND 25");
    await client.query('ALTER TABLE items DROP COLUMN note');
    await client.query(`INSERT INTO items VALUES ${rows(31, 5, (i) => `${i}, 'item ${i}', ${i}, 'pink'`)}`);
    await client.query('DELETE FROM items WHERE id BETWEEN 10 AND 12');
    await client.query('ALTER TABLE items RENAME COLUMN name TO title');
    await client.query('ALTER TABLE items ALTER COLUMN qty TYPE bigint');
    await client.query(`INSERT INTO items VALUES ${rows(36, 5, (i) => `${i}, 'item ${i}', ${i * 10_000_000_000}, 'black'`)}`);
    await client.query("UPDATE items SET title = 'changed' WHERE id IN (1, 2, 3)");
    await reaches('the evolved table', 'id, title, qty, color', ['id int', 'title string', 'qty long', 'color string']);

    const meta = JSON.parse(readFileSync(metadata(), 'utf8')) as {
      schemas: { 'schema-id': number; fields: { id: number; name: string }[] }[];
      'current-schema-id': number;
    };
    const current = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id'])!;
    // the original columns keep their field ids (id 1, name→title 2, qty 3); note (4) is gone; color is new
    expect(current.fields.map((f) => `${f.id} ${f.name}`)).toEqual(['1 id', '2 title', '3 qty', '5 color']);
    expect(meta.schemas.length).toBeGreaterThanOrEqual(4);
    if (javaPresent) {
      const java = await javaIcebergRead({ metadata: metadata() });
      expect(sorted(java.rows)).toEqual(sorted(last!.rows));
    }
    cli.child.kill('SIGINT');
    await cli.exit;
  }, 240_000);
});
