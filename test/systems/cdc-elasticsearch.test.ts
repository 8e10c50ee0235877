/**
 * MySQL-CDC (on MariaDB) into Elasticsearch (an OpenSearch node) through `tideway run`, as issue
 * 38 checks it: the snapshot, then inserts, updates and deletes while the job runs, the job
 * SIGKILLed and restored from its checkpoint (`run -r`) with changes made while it was down; the
 * index ends equal to the table, one document per primary key.
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchSkipped, sharedOpenSearch, startMariaDb, type OpenSearchNode, type TestDatabaseServer } from '@tideway/testing';
import { CliJob, TempDirs, killStartedJobs, until } from '../cdc/cli-job.js';

const dirs = new TempDirs();
let maria: TestDatabaseServer;
let db: mysql.Connection;
let node: OpenSearchNode;
const INDEX = `cdc_orders_${Date.now()}`;

async function sourceRows(): Promise<string[]> {
  const [rows] = await db.query('SELECT id, v, qty FROM orders ORDER BY id');
  return (rows as Array<{ id: number; v: string; qty: number }>).map((r) => `${r.id}|${r.v}|${r.qty}`);
}

/** The index's documents; undefined while it cannot be searched yet (just created by the sink, its shard still starting). */
async function indexRows(): Promise<string[] | undefined> {
  await fetch(`${node.url}/${INDEX}/_refresh`, { method: 'POST' });
  const res = await fetch(`${node.url}/${INDEX}/_search?size=10000`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"query":{"match_all":{}}}',
  });
  if (res.status === 404) return [];
  if (!res.ok) {
    lastSearchError = `${res.status} ${await res.text()}`;
    return undefined;
  }
  const body = (await res.json()) as { hits: { hits: Array<{ _id: string; _source: { id: number; v: string; qty: number } }> } };
  for (const h of body.hits.hits) expect(h._id).toBe(String(h._source.id));
  return body.hits.hits
    .map((h) => h._source)
    .sort((a, b) => a.id - b.id)
    .map((d) => `${d.id}|${d.v}|${d.qty}`);
}

let lastSearchError = '';

/** Waits until the index holds what the table holds. */
async function converged(what: string): Promise<void> {
  let last: string[] = [];
  await until(
    what,
    async () => {
      const [want, got] = [await sourceRows(), await indexRows()];
      if (got === undefined) return undefined;
      last = got;
      return JSON.stringify(want) === JSON.stringify(got) ? true : undefined;
    },
    90_000,
    500,
  ).catch(async (err: Error) => {
    throw new Error(
      `${err.message}: the table has ${(await sourceRows()).length} rows, the index ${last.length}` +
        (lastSearchError === '' ? '' : `; last failed search: ${lastSearchError.slice(0, 500)}`),
    );
  });
}

describe.skipIf(openSearchSkipped())('MySQL-CDC (MariaDB) -> Elasticsearch', () => {
  beforeAll(async () => {
    [maria, node] = await Promise.all([startMariaDb(), sharedOpenSearch()]);
    const root = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password });
    await root.query('CREATE DATABASE cdc_es');
    await root.end();
    db = await mysql.createConnection({
      host: maria.host,
      port: maria.port,
      user: maria.user,
      password: maria.password,
      database: 'cdc_es',
    });
    await db.query('CREATE TABLE orders (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL, qty INT NOT NULL)');
    const values = Array.from({ length: 200 }, (_, i) => `(${i + 1}, 'snap-${i + 1}', ${i})`).join(',');
    await db.query(`INSERT INTO orders VALUES ${values}`);
  }, 240_000);

  afterAll(async () => {
    killStartedJobs();
    await db?.end().catch(() => undefined);
    await Promise.all([maria?.stop(), node?.stop()]);
    dirs.cleanup();
  });

  it('ends equal to the table through changes, a SIGKILL and a restore from the checkpoint', async () => {
    const job = new CliJob(
      dirs.make(),
      `
env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 500
}
source {
  MySQL-CDC {
    plugin_output = "cdc"
    base-url = "jdbc:mysql://${maria.host}:${maria.port}/cdc_es"
    username = "${maria.user}"
    password = "${maria.password}"
    table-names = ["cdc_es.orders"]
    server-id = "5701"
  }
}
sink {
  Elasticsearch {
    plugin_input = "cdc"
    hosts = ["${node.url}"]
    index = "${INDEX}"
    primary_keys = ["id"]
    max_batch_size = 50
  }
}
`,
    );
    let running = await job.start();
    await converged('the snapshot in the index');
    await db.query("UPDATE orders SET v = CONCAT(v, '-u'), qty = qty + 1000 WHERE id % 3 = 0");
    await db.query('DELETE FROM orders WHERE id % 7 = 0');
    await db.query(`INSERT INTO orders VALUES ${Array.from({ length: 50 }, (_, i) => `(${1000 + i}, 'live-${i}', ${i})`).join(',')}`);
    await converged('the live changes in the index');
    // Killed without warning; changes made while no job runs; restored from its latest checkpoint.
    running.child.kill('SIGKILL');
    await running.exit;
    await db.query("UPDATE orders SET v = 'down' WHERE id BETWEEN 10 AND 40");
    await db.query('DELETE FROM orders WHERE id >= 1040');
    await db.query("INSERT INTO orders VALUES (5000, 'while-down', 1)");
    running = await job.restore();
    await converged('the changes made while the job was down in the index');
    await db.query('UPDATE orders SET qty = -1 WHERE id = 5000');
    await converged('a change after the restore in the index');
    expect((await indexRows())?.length).toBe((await sourceRows()).length);
    running.child.kill('SIGINT');
    await running.exit;
  }, 300_000);
});
