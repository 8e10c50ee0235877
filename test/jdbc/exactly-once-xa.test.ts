/**
 * The XA sink (is_exactly_once = true) through the real engine, on PostgreSQL (PREPARE
 * TRANSACTION) and MariaDB (XA PREPARE). Rows come from the Sequence source, keyed by
 * (key, seq), into target tables without a key, so that a duplicate shows:
 * - injected faults (exceptions and worker-thread crashes) with job.retry.times: the job ends
 *   with every row exactly once;
 * - the whole process killed while a transaction is prepared but not committed (checked: the
 *   database still lists it after the kill), then `run -r`: every row exactly once, nothing
 *   left prepared;
 * - a job that fails for good (job.retry.times = 0) and is restored with `run -r`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { sequenceJobConfig, startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { JobFolder, dbExec, jdbcConnection, myExec, pgExec, type DbKind } from './databases.js';

let servers: Record<DbKind, TestDatabaseServer>;
const jobs = new JobFolder();

beforeAll(async () => {
  const [p, m] = await Promise.all([startPostgres(), startMariaDb()]);
  servers = { pg: p, maria: m };
}, 120_000);

afterAll(async () => {
  jobs.cleanup();
  await Promise.all([servers?.pg.stop(), servers?.maria.stop()]);
});

const XA_CLASS: Record<DbKind, string> = { pg: 'org.postgresql.xa.PGXADataSource', maria: 'org.mariadb.jdbc.MariaDbDataSource' };

/** A fresh target table without a key: duplicates stay visible. */
async function freshTable(kind: DbKind, table: string): Promise<void> {
  const ddl =
    kind === 'pg'
      ? `CREATE TABLE ${table} (k integer, seq bigint, payload text)`
      : `CREATE TABLE ${table} (k INT, seq BIGINT, payload TEXT)`;
  await dbExec(kind, servers[kind], ddl);
}

interface XaJob {
  kind: DbKind;
  table: string;
  keys: number;
  rowsPerKey: number;
  rowsPerSecond: number;
  env?: string;
  faults?: string;
}

function xaJob(j: XaJob): string {
  return sequenceJobConfig({
    mode: 'BATCH',
    keys: j.keys,
    rowsPerKey: j.rowsPerKey,
    rowsPerSecond: j.rowsPerSecond,
    checkpointIntervalMs: 400,
    env: j.env,
    transform: `FaultInjector {
    plugin_input = "seq"
    plugin_output = "out"
    ${j.faults ?? `max = 0\n    dir = "${join(jobs.dir, `${j.table}-no-faults`)}"`}
  }`,
    sink: { kind: 'jdbc', connection: jdbcConnection(j.kind, servers[j.kind]), xaDataSource: XA_CLASS[j.kind], table: j.table },
  });
}

interface TableReport {
  rows: number;
  distinct: number;
  /** (key, seq) pairs missing from 0..rowsPerKey-1 of every key. */
  lost: number;
  duplicated: number;
}

async function checkTable(kind: DbKind, table: string, keys: number, rowsPerKey: number): Promise<TableReport> {
  const rows = await dbExec(
    kind,
    servers[kind],
    `SELECT k, COUNT(*) AS n, COUNT(DISTINCT seq) AS d, MIN(seq) AS lo, MAX(seq) AS hi FROM ${table} GROUP BY k ORDER BY k`,
  );
  let total = 0;
  let distinct = 0;
  let lost = 0;
  const byKey = new Map(rows.map((r) => [Number(r.k), r]));
  for (let k = 0; k < keys; k++) {
    const r = byKey.get(k);
    const n = Number(r?.n ?? 0);
    const d = Number(r?.d ?? 0);
    total += n;
    distinct += d;
    // Distinct sequence numbers all inside 0..rowsPerKey-1: the missing ones are rowsPerKey - d.
    if (r && (Number(r.lo) < 0 || Number(r.hi) >= rowsPerKey)) throw new Error(`key ${k} has seq outside 0..${rowsPerKey - 1}`);
    lost += rowsPerKey - d;
  }
  return { rows: total, distinct, lost, duplicated: total - distinct };
}

/** Transactions the database holds prepared (PostgreSQL pg_prepared_xacts, MariaDB XA RECOVER). */
async function preparedCount(kind: DbKind): Promise<number> {
  const rows = kind === 'pg' ? await pgExec(servers.pg, 'SELECT gid FROM pg_prepared_xacts') : await myExec(servers.maria, 'XA RECOVER');
  return rows.length;
}

/** A held connection that asks, fast and often, whether a transaction is prepared. */
async function preparedProbe(kind: DbKind): Promise<{ count(): Promise<number>; close(): Promise<void> }> {
  const s = servers[kind];
  if (kind === 'pg') {
    const c = new pg.Client({ connectionString: s.url });
    await c.connect();
    return {
      count: async () => (await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_xacts')).rows[0].n,
      close: () => c.end(),
    };
  }
  const c = await mysql.createConnection({ host: s.host, port: s.port, user: s.user, password: s.password });
  return { count: async () => ((await c.query('XA RECOVER'))[0] as unknown[]).length, close: () => c.end() };
}

function engineConfig(name: string): string {
  return jobs.write(
    [
      'seatunnel:',
      '  engine:',
      '    checkpoint:',
      '      storage:',
      '        type: localfile',
      '        plugin-config:',
      `          namespace: ${join(jobs.dir, name)}`,
      '',
    ].join('\n'),
    `${name}.yaml`,
  );
}

describe.each<DbKind>(['pg', 'maria'])('XA sink on %s', (kind) => {
  it('survives injected faults with every row exactly once', async () => {
    const table = `xa_faults_${kind}`;
    await freshTable(kind, table);
    const faultDir = join(jobs.dir, `${table}-faults`);
    const conf = jobs.write(
      xaJob({
        kind,
        table,
        keys: 4,
        rowsPerKey: 2000,
        rowsPerSecond: 2000,
        env: 'job.retry.times = 20\n  job.retry.interval.seconds = 0',
        faults: `probability = 0.2\n    max = 4\n    min.rows = 500\n    dir = "${faultDir}"`,
      }),
    );
    const res = await runCli(['run', '-c', conf], 150_000);
    expect(res.code, res.stderr).toBe(0);
    const faults = readdirSync(faultDir).length;
    const report = await checkTable(kind, table, 4, 2000);
    console.log(`XA ${kind}, ${faults} injected faults: ${JSON.stringify(report)}`);
    expect(faults).toBeGreaterThanOrEqual(3);
    expect(report).toEqual({ rows: 8000, distinct: 8000, lost: 0, duplicated: 0 });
    expect(await preparedCount(kind)).toBe(0);
  }, 160_000);

  it('is killed between prepare and commit, restored with run -r: every row exactly once', async () => {
    const table = `xa_kill_${kind}`;
    await freshTable(kind, table);
    const conf = jobs.write(xaJob({ kind, table, keys: 4, rowsPerKey: 3000, rowsPerSecond: 2000 }));
    const engine = engineConfig(`${table}-checkpoints`);
    const jobId = String(Date.now());
    const probe = await preparedProbe(kind);
    const child = spawnCli(['run', '-c', conf, '--engine-config', engine, '--set-job-id', jobId]);
    const exit = waitForExit(child);
    let killedWithPrepared = false;
    try {
      const end = Date.now() + 60_000;
      let committedBefore = 0;
      while (!killedWithPrepared && Date.now() < end && child.exitCode === null) {
        if ((await probe.count()) > 0) {
          // Freeze the whole process (worker threads included) and look again: only a
          // transaction still prepared while nothing runs proves the kill lands between
          // prepare and commit. A COMMIT the process sent just before it froze may still be
          // running in the server: give it time to land before looking.
          child.kill('SIGSTOP');
          await new Promise((r) => setTimeout(r, 300));
          if ((await probe.count()) > 0 && committedBefore > 0) {
            child.kill('SIGKILL');
            killedWithPrepared = true;
          } else {
            child.kill('SIGCONT');
          }
        }
        committedBefore = (await checkTable(kind, table, 4, 3000)).rows;
      }
    } finally {
      await probe.close();
      if (!killedWithPrepared) child.kill('SIGKILL');
    }
    await exit;
    expect(killedWithPrepared, 'the job ended before a transaction was caught prepared').toBe(true);
    const stillPrepared = await preparedCount(kind);
    const before = await checkTable(kind, table, 4, 3000);
    expect(stillPrepared).toBeGreaterThan(0);
    expect(before.rows).toBeLessThan(12000);

    const restored = await runCli(['run', '-r', jobId, '-c', conf, '--engine-config', engine], 120_000);
    expect(restored.code, restored.stderr).toBe(0);
    const report = await checkTable(kind, table, 4, 3000);
    console.log(
      `XA ${kind}, killed with ${stillPrepared} prepared and ${before.rows} rows committed, then restored: ${JSON.stringify(report)}`,
    );
    expect(report).toEqual({ rows: 12000, distinct: 12000, lost: 0, duplicated: 0 });
    expect(await preparedCount(kind)).toBe(0);
  }, 180_000);
});

describe('a job that fails for good', () => {
  it('is restored with run -r from its last checkpoint: every row exactly once (PostgreSQL XA)', async () => {
    const table = 'xa_failed_pg';
    await freshTable('pg', table);
    const faultDir = join(jobs.dir, `${table}-faults`);
    const conf = jobs.write(
      xaJob({
        kind: 'pg',
        table,
        keys: 4,
        rowsPerKey: 3000,
        rowsPerSecond: 2000,
        env: 'job.retry.times = 0',
        faults: `probability = 1\n    max = 1\n    min.rows = 4000\n    kinds = ["exception"]\n    dir = "${faultDir}"`,
      }),
    );
    const engine = engineConfig(`${table}-checkpoints`);
    const jobId = String(Date.now());
    const failed = await runCli(['run', '-c', conf, '--engine-config', engine, '--set-job-id', jobId]);
    expect(failed.code, failed.stderr).not.toBe(0);
    expect(failed.stderr).toContain('injected fault');
    const partial = await checkTable('pg', table, 4, 3000);
    expect(partial.rows).toBeLessThan(12000);
    expect(partial.duplicated).toBe(0);
    const restored = await runCli(['run', '-r', jobId, '-c', conf, '--engine-config', engine]);
    expect(restored.code, restored.stderr).toBe(0);
    const report = await checkTable('pg', table, 4, 3000);
    console.log(`XA pg, failed with ${partial.rows} rows committed, then restored: ${JSON.stringify(report)}`);
    expect(report).toEqual({ rows: 12000, distinct: 12000, lost: 0, duplicated: 0 });
    expect(await preparedCount('pg')).toBe(0);
  }, 150_000);
});
