/**
 * External versions from the source position: MySQL-CDC (MariaDB) and Postgres-CDC (pgoutput)
 * jobs into the Elasticsearch sink (OpenSearch 2.19), keyed by id, through the real CLI. Two jobs
 * capture two tables of one server into one index, so their changes carry positions of one log: the job of table y
 * writes the newer change of document 1, then the job of table x, restored from a checkpoint
 * taken before its older change of document 1, writes that change late; the document keeps the
 * newer value. Restored again from that same checkpoint, the job writes its changes a second
 * time without error, and the documents stay as they were. Registered inside
 * elasticsearch.test.ts's describe, to share its OpenSearch node.
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMariaDb, startPostgres, type OpenSearchNode, type TestDatabaseServer } from '@tideway/testing';
import { CliJob, killStartedJobs, TempDirs, until, type RunningCli } from '../cdc/cli-job.js';

const dirs = new TempDirs();
let node: OpenSearchNode;

interface Hit {
  found: boolean;
  _version?: number;
  _source?: { id: number; v: string };
}

/** A CDC source database holding tables x and y, and how a job captures one of them. */
interface CdcSource {
  readonly index: string;
  run(sql: string): Promise<void>;
  /** The source block capturing `table`; `n` tells the job's binlog client or slot apart. */
  block(table: string, n: number): string;
  /** A version every change made from now on exceeds: the log position now. */
  positionNow(): Promise<number>;
}

async function doc(index: string, id: number): Promise<Hit> {
  const res = await fetch(`${node.url}/${index}/_doc/${id}`);
  if (res.status !== 200 && res.status !== 404) throw new Error(`GET /${index}/_doc/${id}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Hit;
}

function job(src: CdcSource, table: string, n: number): CliJob {
  return new CliJob(
    dirs.make('tideway-es-cdc-'),
    `env {
  job.mode = "STREAMING"
  checkpoint.interval = 500
}
source {
  ${src.block(table, n)}
}
sink {
  Elasticsearch {
    hosts = ["${node.url}"]
    index = "${src.index}"
    primary_keys = ["id"]
    max_batch_size = 5
  }
}
`,
  );
}

async function killed(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGKILL');
  expect((await cli.exit).signal).toBe('SIGKILL');
}

async function olderAfterNewer(src: CdcSource): Promise<void> {
  const holds = (id: number, v: string) =>
    until(`document ${id} holding '${v}'`, async () => ((await doc(src.index, id))._source?.v === v ? true : undefined), 90_000);
  // Job x streams from a checkpoint taken before any change: kept aside, then stopped.
  const x = job(src, 'x', 1);
  let cliX = await x.start();
  await x.checkpointsCompleted(cliX, 2, 90_000);
  await killed(cliX);
  const early = join(dirs.make('tideway-es-cdc-early-'), 'checkpoints');
  cpSync(x.checkpoints, early, { recursive: true });

  const y = job(src, 'y', 2);
  const cliY = await y.start();
  await y.checkpointsCompleted(cliY, 2, 90_000);

  const before = await src.positionNow();
  await src.run("INSERT INTO x VALUES (1, 'older')"); // earlier in the log
  await src.run("INSERT INTO y VALUES (1, 'newer')");
  await holds(1, 'newer');
  const newer = (await doc(src.index, 1))._version!;
  expect(newer).toBeGreaterThan(before); // the log position, not the index's own count

  // Job x, restored from before its change, writes the older change of document 1 now.
  cliX = await x.restore();
  await src.run("INSERT INTO x VALUES (2, 'marker')");
  await holds(2, 'marker'); // job x wrote its earlier change before this one
  expect(await doc(src.index, 1)).toMatchObject({ _version: newer, _source: { id: 1, v: 'newer' } });
  const marker = (await doc(src.index, 2))._version!;
  expect(marker).toBeGreaterThan(newer);

  // Restored again from the same early checkpoint: both changes of x are written a second time.
  await killed(cliX);
  rmSync(x.checkpoints, { recursive: true, force: true });
  cpSync(early, x.checkpoints, { recursive: true });
  cliX = await x.restore();
  await src.run("UPDATE x SET v = 'after' WHERE id = 2");
  await holds(2, 'after');
  expect(await doc(src.index, 1)).toMatchObject({ _version: newer, _source: { id: 1, v: 'newer' } });
  expect((await doc(src.index, 2))._version).toBeGreaterThan(marker);
  expect(cliX.child.exitCode, cliX.stderrTail()).toBeNull();
  expect(cliY.child.exitCode, cliY.stderrTail()).toBeNull();
  await killed(cliX);
  await killed(cliY);
}

/** The tests, against the node `nodeOf()` returns once its file's beforeAll has started it. */
export function describeCdcVersions(nodeOf: () => OpenSearchNode): void {
  describe('CDC -> Elasticsearch with external versions', () => {
    let maria: TestDatabaseServer;
    let postgres: TestDatabaseServer;
    let my: mysql.Connection;
    let pc: pg.Client;

    beforeAll(async () => {
      node = nodeOf();
      [maria, postgres] = await Promise.all([startMariaDb(), startPostgres({ logical: true })]);
      my = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password });
      await my.query('CREATE DATABASE esv');
      await my.query('USE esv');
      pc = new pg.Client({ connectionString: postgres.url });
      await pc.connect();
      for (const t of ['x', 'y']) {
        await my.query(`CREATE TABLE ${t} (id int NOT NULL PRIMARY KEY, v varchar(32))`);
        await pc.query(`CREATE TABLE ${t} (id int PRIMARY KEY, v varchar(32))`);
      }
    }, 240_000);

    afterAll(async () => {
      killStartedJobs();
      await my?.end().catch(() => undefined);
      await pc?.end().catch(() => undefined);
      await Promise.all([maria?.stop(), postgres?.stop()]);
      dirs.cleanup();
    });

    it('MySQL-CDC (MariaDB): an older change written after a newer one leaves the newer document; the same changes written twice change nothing', async () => {
      await olderAfterNewer({
        index: 'merged_mariadb',
        run: async (sql) => void (await my.query(sql)),
        block: (table, n) => `MySQL-CDC {
    base-url = "jdbc:mysql://${maria.host}:${maria.port}/esv"
    username = "${maria.user}"
    password = "${maria.password}"
    table-names = ["esv.${table}"]
    server-id = "${5400 + n}"
  }`,
        // A binlog version is file sequence (>= 1) * 2^32 + offset.
        positionNow: () => Promise.resolve(2 ** 32),
      });
    }, 300_000);

    it('Postgres-CDC (pgoutput): the same, with commit LSNs as versions', async () => {
      const db = postgres.database;
      await olderAfterNewer({
        index: 'merged_postgres',
        run: async (sql) => void (await pc.query(sql)),
        block: (table, n) => `Postgres-CDC {
    base-url = "jdbc:postgresql://${postgres.host}:${postgres.port}/${db}"
    username = "${postgres.user}"
    password = "${postgres.password}"
    table-names = ["${db}.public.${table}"]
    slot.name = "esv_${table}_${n}"
  }`,
        positionNow: async () => {
          const r = await pc.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
          const [hi, lo] = r.rows[0].lsn.split('/').map((h) => parseInt(h, 16));
          return hi * 2 ** 32 + lo;
        },
      });
    }, 300_000);
  });
}
