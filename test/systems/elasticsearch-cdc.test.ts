/**
 * External versions from the source position: MySQL-CDC (MariaDB) jobs into the Elasticsearch
 * sink (OpenSearch 2.19), keyed by id, through the real CLI. Two jobs capture two tables of one
 * server into one index, so their changes carry positions of one binlog: the job of table y
 * writes the newer change of document 1, then the job of table x, restored from a checkpoint
 * taken before its older change of document 1, writes that change late; the document keeps the
 * newer value. Restored again from that same checkpoint, the job writes its changes a second
 * time without error, and the documents stay as they were.
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchSkipped, startMariaDb, startOpenSearch, type OpenSearchNode, type TestDatabaseServer } from '@tideway/testing';
import { CliJob, killStartedJobs, TempDirs, until, type RunningCli } from '../cdc/cli-job.js';

const dirs = new TempDirs();
let node: OpenSearchNode;
let maria: TestDatabaseServer;
let db: mysql.Connection;

interface Hit {
  found: boolean;
  _version?: number;
  _source?: { id: number; v: string };
}

async function doc(id: number): Promise<Hit> {
  const res = await fetch(`${node.url}/merged/_doc/${id}`);
  if (res.status !== 200 && res.status !== 404) throw new Error(`GET /merged/_doc/${id}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Hit;
}

function job(table: string, serverId: number): CliJob {
  return new CliJob(
    dirs.make('tideway-es-cdc-'),
    `env {
  job.mode = "STREAMING"
  checkpoint.interval = 500
}
source {
  MySQL-CDC {
    base-url = "jdbc:mysql://${maria.host}:${maria.port}/esv"
    username = "${maria.user}"
    password = "${maria.password}"
    table-names = ["esv.${table}"]
    server-id = "${serverId}"
  }
}
sink {
  Elasticsearch {
    hosts = ["${node.url}"]
    index = "merged"
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

/** Waits until document `id` holds `v`. */
const holds = (id: number, v: string) =>
  until(`document ${id} holding '${v}'`, async () => ((await doc(id))._source?.v === v ? true : undefined), 90_000);

describe.skipIf(openSearchSkipped())('MySQL-CDC -> Elasticsearch with external versions (MariaDB, OpenSearch)', () => {
  beforeAll(async () => {
    [node, maria] = await Promise.all([startOpenSearch(), startMariaDb()]);
    db = await mysql.createConnection({ host: maria.host, port: maria.port, user: maria.user, password: maria.password });
    await db.query('CREATE DATABASE esv');
    await db.query('CREATE TABLE esv.x (id int NOT NULL PRIMARY KEY, v varchar(32))');
    await db.query('CREATE TABLE esv.y (id int NOT NULL PRIMARY KEY, v varchar(32))');
  }, 240_000);

  afterAll(async () => {
    killStartedJobs();
    await db?.end().catch(() => undefined);
    await Promise.all([node?.stop(), maria?.stop()]);
    dirs.cleanup();
  });

  it('an older change written after a newer one leaves the newer document; the same changes written twice change nothing', async () => {
    // Job x streams from a checkpoint taken before any change: kept aside, then stopped.
    const x = job('x', 5401);
    let cliX = await x.start();
    await x.checkpointsCompleted(cliX, 2, 90_000);
    await killed(cliX);
    const early = join(dirs.make('tideway-es-cdc-early-'), 'checkpoints');
    cpSync(x.checkpoints, early, { recursive: true });

    const y = job('y', 5402);
    const cliY = await y.start();
    await y.checkpointsCompleted(cliY, 2, 90_000);

    await db.query("INSERT INTO esv.x VALUES (1, 'older')"); // earlier in the binlog
    await db.query("INSERT INTO esv.y VALUES (1, 'newer')");
    await holds(1, 'newer');
    const newer = (await doc(1))._version!;
    // The version is the binlog position: file sequence (>= 1) * 2^32 + offset.
    expect(newer).toBeGreaterThan(2 ** 32);

    // Job x, restored from before its change, writes the older change of document 1 now.
    cliX = await x.restore();
    await db.query("INSERT INTO esv.x VALUES (2, 'marker')");
    await holds(2, 'marker'); // job x wrote its earlier change before this one
    expect(await doc(1)).toMatchObject({ _version: newer, _source: { id: 1, v: 'newer' } });
    const marker = (await doc(2))._version!;
    expect(marker).toBeGreaterThan(newer);

    // Restored again from the same early checkpoint: both changes of x are written a second time.
    await killed(cliX);
    rmSync(x.checkpoints, { recursive: true, force: true });
    cpSync(early, x.checkpoints, { recursive: true });
    cliX = await x.restore();
    await db.query("UPDATE esv.x SET v = 'after' WHERE id = 2");
    await holds(2, 'after');
    expect(await doc(1)).toMatchObject({ _version: newer, _source: { id: 1, v: 'newer' } });
    expect((await doc(2))._version).toBeGreaterThan(marker);
    expect(cliX.child.exitCode, cliX.stderrTail()).toBeNull();
    expect(cliY.child.exitCode, cliY.stderrTail()).toBeNull();
  }, 300_000);
});
