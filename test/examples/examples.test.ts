/**
 * Every job in examples/ runs, unchanged, through the real CLI, with its connection details as
 * `-i` variables (as each file's header says), against private servers: PostgreSQL and MariaDB
 * (libs/testing) and s3rver. Each test checks what the example promises arrived.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '@tideway/checkpoint/s3';
import { startS3rver, type TestS3Server } from '@tideway/checkpoint/testing';
import { Redis } from 'ioredis';
import Firebird from 'node-firebird';
import {
  firebirdMissing,
  sharedFirebird,
  startMariaDb,
  startPostgres,
  startRedis,
  type RedisServer,
  type TestDatabaseServer,
} from '@tideway/testing';
import { repoRoot } from '../conformance/conformance-files.js';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { filesUnder, textRowsUnder } from '../conformance/local-file-output.js';
import { detach } from '@tideway/common';

const dir = mkdtempSync(join(tmpdir(), 'tideway-examples-'));
const example = (name: string) => join(repoRoot, 'examples', name);
const vars = (v: Record<string, string | number>) => Object.entries(v).flatMap(([k, x]) => ['-i', `${k}=${x}`]);
let postgres: TestDatabaseServer | undefined;
let maria: TestDatabaseServer | undefined;
let s3: TestS3Server | undefined;
let redis: RedisServer | undefined;

afterAll(async () => {
  await Promise.all([postgres?.stop(), maria?.stop(), s3?.stop(), redis?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

async function pgQuery(database: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({
    host: postgres!.host,
    port: postgres!.port,
    user: postgres!.user,
    password: postgres!.password,
    database,
  });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts a streaming example; `stop()` sends Ctrl-C and checks it ended CANCELED with exit 130. */
function startStreaming(args: string[]) {
  const child = spawnCli(args);
  const exited = waitForExit(child);
  let ended = false;
  detach(
    exited.then(() => (ended = true)),
    'waiting for the process to exit',
  );
  return {
    running: () => !ended,
    exited,
    async stop() {
      child.kill('SIGINT');
      const res = await exited;
      expect(res.code, res.stderr).toBe(130);
      expect(res.stderr).toMatch(/job \d+ CANCELED/);
    },
  };
}

describe('examples/', () => {
  it('fake_to_console.conf prints its rows through the Sql transform (names upper-cased)', async () => {
    const res = await runCli(['run', '-c', example('fake_to_console.conf')]);
    expect(res.code, res.stderr).toBe(0);
    const rows = res.stdout.split('\n').filter((l) => l.includes('SeaTunnelRow#'));
    // row.num 5 per reader, parallelism 2.
    expect(rows).toHaveLength(10);
    for (const r of rows) expect(r).toMatch(/SeaTunnelRow#kind=INSERT : -?\d+, [A-Z]+, -?\d+, -?[\d.]+$/);
  });

  it('streaming_fake_to_localfile.conf keeps running and commits every row, exactly once, until Ctrl-C', async () => {
    const out = join(dir, 'stream');
    const job = startStreaming(['run', '-c', example('streaming_fake_to_localfile.conf'), ...vars({ output_dir: out })]);
    const committed = () => textRowsUnder(out) - textRowsUnder(join(out, '.tmp'));
    // row.num is per reader, as in SeaTunnel: 2 readers x 1000.
    await until('2000 rows committed', () => committed() >= 2000);
    await new Promise((r) => setTimeout(r, 2500)); // one more checkpoint: nothing committed twice
    expect(job.running()).toBe(true);
    expect(committed()).toBe(2000);
    await job.stop();
  }, 150_000);

  it('multi_table_fake_to_localfile.conf writes each table to its own folder', async () => {
    const out = join(dir, 'multi');
    const res = await runCli(['run', '-c', example('multi_table_fake_to_localfile.conf'), ...vars({ output_dir: out })]);
    expect(res.code, res.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['customers', 'orders']);
    expect(textRowsUnder(join(out, 'orders'))).toBe(30);
    expect(textRowsUnder(join(out, 'customers'))).toBe(10);
    const customer = JSON.parse(readFileSync(filesUnder(join(out, 'customers'))[0], 'utf8').split('\n')[0]) as Record<string, unknown>;
    expect(Object.keys(customer).sort()).toEqual(['id', 'name']);
  });

  it('http_to_sqlite.conf pages through a JSON API into a SQLite file, and a second run upserts the same rows', async () => {
    // 250 products served 100 a page: pages 1, 2 and 3 (50 rows, the last).
    const products = Array.from({ length: 250 }, (_, i) => ({ id: i + 1, name: `product ${i + 1}`, price: ((i + 1) * 1.25).toFixed(2) }));
    const requested: string[] = [];
    const api = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      requested.push(url.search);
      const page = Number(url.searchParams.get('page'));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ page, items: products.slice((page - 1) * 100, page * 100) }));
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    try {
      const { port } = api.address() as AddressInfo;
      const dbFile = join(dir, 'products.db');
      const args = [
        'run',
        '-c',
        example('http_to_sqlite.conf'),
        ...vars({ api_url: `http://127.0.0.1:${port}/products`, db_file: dbFile }),
      ];
      for (let run = 1; run <= 2; run++) {
        const res = await runCli(args);
        expect(res.code, res.stderr).toBe(0);
      }
      expect(requested).toEqual(['?page=1', '?page=2', '?page=3', '?page=1', '?page=2', '?page=3']);
      const db = new Database(dbFile, { readonly: true });
      try {
        const rows = db.prepare('SELECT id, name, price FROM products ORDER BY id').all() as Array<{
          id: number;
          name: string;
          price: unknown;
        }>;
        expect(rows).toHaveLength(250);
        expect(rows[0]).toMatchObject({ id: 1, name: 'product 1' });
        expect(Number(rows[249].price)).toBe(312.5);
      } finally {
        db.close();
      }
    } finally {
      await new Promise((r) => api.close(r));
    }
  });

  it('localfile_to_s3file.conf turns CSV files into JSON objects in a bucket', async () => {
    s3 = await startS3rver(['examples']);
    const input = join(dir, 'csv');
    mkdirSync(input);
    const lines = (from: number) =>
      Array.from({ length: 25 }, (_, i) => `${from + i},customer ${from + i},${(from + i) * 1.5},2026-11-30 12:00:00`);
    writeFileSync(join(input, 'a.csv'), ['id,customer,total,placed_at', ...lines(1)].join('\n') + '\n');
    writeFileSync(join(input, 'b.csv'), ['id,customer,total,placed_at', ...lines(26)].join('\n') + '\n');
    const res = await runCli([
      'run',
      '-c',
      example('localfile_to_s3file.conf'),
      ...vars({
        input_dir: input,
        bucket: 'examples',
        s3_path: '/orders',
        s3_endpoint: s3.endpoint,
        access_key: s3.accessKeyId,
        secret_key: s3.secretAccessKey,
      }),
    ]);
    expect(res.code, res.stderr).toBe(0);
    const store = new S3BlobStore({
      bucket: 'examples',
      prefix: '',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      forcePathStyle: true,
    });
    try {
      const keys = (await store.list('orders/')).filter((k) => !k.startsWith('orders/.tmp/'));
      const rows: Record<string, unknown>[] = [];
      for (const k of keys)
        for (const l of Buffer.from((await store.get(k))!)
          .toString('utf8')
          .split('\n'))
          if (l) rows.push(JSON.parse(l) as Record<string, unknown>);
      expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(rows.find((r) => Number(r.id) === 2)).toMatchObject({ customer: 'customer 2' });
      expect(await store.list('orders/.tmp/')).toEqual([]);
    } finally {
      store.close();
    }
  }, 120_000);

  describe('with databases', () => {
    beforeAll(async () => {
      [postgres, maria] = await Promise.all([startPostgres(), startMariaDb()]);
    }, 120_000);

    const pgVars = () => ({ pg_host: postgres!.host, pg_port: postgres!.port, pg_user: postgres!.user, pg_password: postgres!.password });

    it('jdbc_postgres_to_postgres.conf copies a table into another database', async () => {
      await pgQuery(postgres!.database, 'CREATE DATABASE shop');
      await pgQuery(postgres!.database, 'CREATE DATABASE shop_copy');
      await pgQuery(
        'shop',
        `CREATE TABLE public.orders (id bigint PRIMARY KEY, customer text NOT NULL, total numeric(10,2), placed_at timestamp);
        INSERT INTO public.orders SELECT g, 'customer ' || g, g * 1.25, timestamp '2026-11-30 12:00' + g * interval '1 minute' FROM generate_series(1, 5000) g`,
      );
      const res = await runCli([
        'run',
        '-c',
        example('jdbc_postgres_to_postgres.conf'),
        ...vars({ ...pgVars(), source_db: 'shop', target_db: 'shop_copy' }),
      ]);
      expect(res.code, res.stderr).toBe(0);
      const digest =
        "SELECT count(*)::int AS n, sum(total)::text AS total, md5(string_agg(id || customer || placed_at, ',' ORDER BY id)) AS h FROM public.orders";
      expect(await pgQuery('shop_copy', digest)).toEqual(await pgQuery('shop', digest));
    }, 120_000);

    it('csv_to_postgres_with_dead_letters.conf writes the good payments and puts each bad one, with its error, in payments_rejected', async () => {
      await pgQuery(postgres!.database, 'CREATE DATABASE payments_shop');
      await pgQuery(
        'payments_shop',
        'CREATE TABLE payments (id bigint PRIMARY KEY, amount numeric(12,2) NOT NULL, currency varchar(3) NOT NULL)',
      );
      const input = join(dir, 'payments');
      mkdirSync(input);
      const lines = ['id,amount,currency'];
      for (let id = 1; id <= 1000; id++)
        lines.push(`${id},${id % 97 === 0 ? 'n/a' : (id * 1.5).toFixed(2)},${id % 250 === 0 ? 'EURO' : 'EUR'}`);
      lines.push('7,1.00,EUR'); // a duplicate id
      writeFileSync(join(input, 'payments.csv'), `${lines.join('\n')}\n`);
      const res = await runCli([
        'run',
        '-c',
        example('csv_to_postgres_with_dead_letters.conf'),
        ...vars({ ...pgVars(), pg_db: 'payments_shop', input }),
      ]);
      expect(res.code, res.stderr).toBe(0);
      // 10 amounts that are not numbers (a multiple of 97), 3 currencies too long (250, 500, 750; 1000 is 97-free too), one duplicate id.
      const notNumbers = Array.from({ length: 1000 }, (_, i) => i + 1).filter((id) => id % 97 === 0);
      const tooLong = [250, 500, 750, 1000].filter((id) => id % 97 !== 0);
      const good = await pgQuery('payments_shop', 'SELECT count(*)::int AS n FROM payments');
      expect(good[0].n).toBe(1000 - notNumbers.length - tooLong.length);
      const bad = await pgQuery(
        'payments_shop',
        'SELECT error_stage, count(*)::int AS n FROM payments_rejected GROUP BY error_stage ORDER BY error_stage',
      );
      expect(bad).toEqual([
        { error_stage: 'SINK', n: tooLong.length + 1 },
        { error_stage: 'TRANSFORM', n: notNumbers.length },
      ]);
    }, 120_000);
    it.skipIf(firebirdMissing() !== undefined && process.env.CI !== 'true')(
      'jdbc_firebird_to_postgres.conf copies a Firebird table into PostgreSQL, lower-casing its names, and a second run upserts',
      async () => {
        const fb = await sharedFirebird();
        const database = await fb.createDatabase(`examples_shop_${process.pid}`);
        const db = await Firebird.attachAsync({ host: fb.host, port: fb.port, database, user: fb.user, password: fb.password });
        try {
          await db.queryAsync(
            'CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, customer VARCHAR(40) NOT NULL, total NUMERIC(10, 2), placed_at TIMESTAMP)',
          );
          await db.queryAsync(
            `EXECUTE BLOCK AS DECLARE i INTEGER = 1; BEGIN
               WHILE (i <= 3000) DO BEGIN
                 INSERT INTO orders VALUES (:i, 'customer ' || :i, :i * 1.25, DATEADD(:i MINUTE TO TIMESTAMP '2026-11-30 12:00:00.1234'));
                 i = i + 1;
               END
             END`,
          );
        } finally {
          await db.detachAsync(true);
        }
        await pgQuery(postgres!.database, 'CREATE DATABASE fb_shop');
        const args = [
          'run',
          '-c',
          example('jdbc_firebird_to_postgres.conf'),
          ...vars({ fb_host: fb.host, fb_port: fb.port, fb_database: database, fb_user: fb.user, fb_password: fb.password }),
          ...vars({ ...pgVars(), pg_db: 'fb_shop' }),
        ];
        for (let run = 1; run <= 2; run++) {
          const res = await runCli(args);
          expect(res.code, res.stderr).toBe(0);
        }
        expect(
          await pgQuery(
            'fb_shop',
            'SELECT count(*)::int AS n, sum(total)::text AS total, count(DISTINCT id)::int AS ids FROM public.orders',
          ),
        ).toEqual([{ n: 3000, total: '5626875.00', ids: 3000 }]);
        expect(await pgQuery('fb_shop', 'SELECT id::text, customer, total::text, placed_at::text FROM public.orders WHERE id = 7')).toEqual(
          [{ id: '7', customer: 'customer 7', total: '8.75', placed_at: '2026-11-30 12:07:00.1234' }],
        );
      },
      120_000,
    );

    it('jdbc_postgres_to_redis.conf loads a table into one Redis hash per row, expiring in a day', async () => {
      redis = await startRedis({ password: 'example-secret' });
      await pgQuery(postgres!.database, 'CREATE DATABASE redis_shop');
      await pgQuery(
        'redis_shop',
        `CREATE TABLE public.products (id int PRIMARY KEY, name text NOT NULL, price numeric(8,2));
        INSERT INTO public.products SELECT g, 'product ' || g, g * 0.5 FROM generate_series(1, 2000) g`,
      );
      const res = await runCli([
        'run',
        '-c',
        example('jdbc_postgres_to_redis.conf'),
        ...vars({ ...pgVars(), pg_db: 'redis_shop', redis_host: redis.host, redis_port: redis.port, redis_password: 'example-secret' }),
      ]);
      expect(res.code, res.stderr).toBe(0);
      const client = new Redis({ host: redis.host, port: redis.port, password: 'example-secret' });
      try {
        expect(await client.dbsize()).toBe(2000);
        expect(await client.hgetall('product:7')).toEqual({ id: '7', name: 'product 7', price: '3.50' });
        const ttl = await client.ttl('product:2000');
        expect(ttl).toBeGreaterThan(86_000);
      } finally {
        client.disconnect();
      }
    }, 120_000);

    it('mysql_cdc_to_postgres.conf snapshots, then applies inserts, updates and deletes as they happen', async () => {
      const root = await mysql.createConnection({
        host: maria!.host,
        port: maria!.port,
        user: maria!.user,
        password: maria!.password,
        multipleStatements: true,
      });
      try {
        await root.query(`CREATE DATABASE cdc_shop; USE cdc_shop;
          CREATE TABLE orders (id bigint PRIMARY KEY, customer varchar(64) NOT NULL, total decimal(10,2));
          INSERT INTO orders SELECT seq, concat('customer ', seq), seq * 2 FROM seq_1_to_100`);
        await pgQuery(postgres!.database, 'CREATE DATABASE cdc_target');
        const job = startStreaming([
          'run',
          '-c',
          example('mysql_cdc_to_postgres.conf'),
          ...vars({
            mysql_host: maria!.host,
            mysql_port: maria!.port,
            mysql_user: maria!.user,
            mysql_password: maria!.password,
            mysql_db: 'cdc_shop',
            ...pgVars(),
            pg_db: 'cdc_target',
          }),
        ]);
        const count = async () => Number((await pgQuery('cdc_target', 'SELECT count(*)::int AS n FROM public.orders'))[0].n);
        await until('the snapshot in PostgreSQL', async () => (await count()) === 100);
        await root.query(
          "USE cdc_shop; INSERT INTO orders VALUES (101, 'late', 1.00); UPDATE orders SET total = 999.99 WHERE id = 7; DELETE FROM orders WHERE id = 8",
        );
        await until('the binlog changes in PostgreSQL', async () => {
          const rows = await pgQuery(
            'cdc_target',
            'SELECT id::int AS id, total::text AS total FROM public.orders WHERE id IN (7, 8, 101) ORDER BY id',
          );
          return (
            JSON.stringify(rows) ===
            JSON.stringify([
              { id: 7, total: '999.99' },
              { id: 101, total: '1.00' },
            ])
          );
        });
        expect(await count()).toBe(100);
        expect(job.running()).toBe(true);
        await job.stop();
      } finally {
        await root.end();
      }
    }, 180_000);
  });

  it('iceberg_to_localfile.conf writes the rows of one region of an Iceberg table (made by the Iceberg sink) as JSON files', async () => {
    const warehouse = join(dir, 'lake');
    const make = join(dir, 'make-orders.conf');
    writeFileSync(
      make,
      `env { parallelism = 1, job.mode = "BATCH" }
source { FakeSource { schema = { fields { id = bigint, region = string, total = "decimal(10, 2)" } }, rows = [
  { kind = INSERT, fields = [1, "eu", "10.50"] }, { kind = INSERT, fields = [2, "us", "20.00"] },
  { kind = INSERT, fields = [3, "eu", "30.25"] }, { kind = INSERT, fields = [4, "ap", "40.00"] } ] } }
sink { Iceberg { catalog_name = "lake", iceberg.catalog.config = { "type" = "hadoop", "warehouse" = "${warehouse}" }
  namespace = "sales", table = "orders", iceberg.table.partition-keys = "region" } }`,
    );
    const made = await runCli(['run', '-c', make]);
    expect(made.code, made.stderr).toBe(0);
    const out = join(dir, 'iceberg-eu');
    const res = await runCli([
      'run',
      '-c',
      example('iceberg_to_localfile.conf'),
      ...vars({ warehouse, namespace: 'sales', table: 'orders', region: 'eu', output_dir: out }),
    ]);
    expect(res.code, res.stderr).toBe(0);
    const rows = filesUnder(out)
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l !== ''),
      )
      .map((l) => JSON.parse(l) as { id: number; region: string; total: string })
      .sort((a, b) => a.id - b.id);
    expect(rows.map((r) => [r.id, r.region, String(r.total)])).toEqual([
      [1, 'eu', '10.5'],
      [3, 'eu', '30.25'],
    ]);
  });
});
