/**
 * The two CDC proofs, for any source database, into a PostgreSQL target whose triggers log
 * every write (write-log.ts):
 * - killMidStream: a stream of changes on accounts, items and audit; the CLI is SIGKILLed after
 *   two checkpoints and restored with `run -r` while the writer goes on, killed again after the
 *   restored run's first checkpoint and restored again;
 * - killMidSnapshot: the CLI is SIGKILLed after the first checkpoint of a 50,000-row snapshot
 *   read in 1,000-row chunks, with updates running meanwhile, and restored.
 * Both then wait until the target equals the source, check that no change was applied twice,
 * that `tideway verify` reports the tables equal, and that SIGINT ends the restored job with
 * exit code 130.
 */
import { expect } from 'vitest';
import type pg from 'pg';
import type { TestDatabaseServer } from '@tideway/testing';
import { ChangeWriter, SOURCE_TABLES, type RunTransaction } from './change-writer.js';
import { cdcJobConfig } from './cdc-job-config.js';
import { CliJob, until, type RunningCli, type TempDirs } from './cli-job.js';
import { checkWriteLog, createLoggedTargets, tableLines } from './write-log.js';

/** Rows of a query, as objects. */
export type QueryRows = (sql: string) => Promise<Record<string, unknown>[]>;

/** What a scenario needs of the source database. */
export interface CdcSource {
  readonly plugin: 'Postgres-CDC' | 'MySQL-CDC';
  readonly server: TestDatabaseServer;
  /** Qualifies a table name as table-names wants it (`db.schema.t`, `db.t`). */
  readonly tableName: (table: string) => string;
  /** Source options every job of this database gets (slot name, server id), besides `extra`. */
  readonly options: (job: string) => string;
  /** Runs statements in one transaction (on a connection of its own). */
  readonly transactions: RunTransaction;
  readonly rows: QueryRows;
  /** Statements that create `bulk (id, payload, version)` and fill ids 1..n. */
  readonly bulkSql: (n: number) => string[];
}

/** The PostgreSQL target: a database of the target server, a client on it. */
export interface CdcTarget {
  readonly server: TestDatabaseServer;
  readonly database: string;
  readonly client: pg.Client;
}

const rowsOf =
  (c: pg.Client): QueryRows =>
  async (sql) =>
    (await c.query(sql)).rows as Record<string, unknown>[];

async function sigintEnds(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGINT');
  const ended = await cli.exit;
  expect(ended.code, ended.stderr).toBe(130);
}

async function killed(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGKILL');
  expect((await cli.exit).signal).toBe('SIGKILL');
}

export async function killMidStream(dirs: TempDirs, source: CdcSource, target: CdcTarget, writers: ChangeWriter[]): Promise<void> {
  for (const ddl of Object.values(SOURCE_TABLES)) await source.transactions([ddl]);
  await createLoggedTargets(target.client);
  const writer = new ChangeWriter(source.transactions);
  writers.push(writer);
  await writer.seed();

  const tables = ['accounts', 'items', 'audit'].map(source.tableName);
  const job = new CliJob(
    dirs.make(),
    cdcJobConfig({
      plugin: source.plugin,
      source: source.server,
      tables,
      sourceExtra: source.options('stream'),
      target: target.server,
      targetDatabase: target.database,
    }),
  );
  const first = await job.start();
  writer.start(20);
  await job.checkpointsCompleted(first, 2);
  await until('changes committed to the target', async () =>
    (await target.client.query<{ n: number }>('SELECT count(*)::int AS n FROM write_log')).rows[0].n > 40 ? true : undefined,
  );
  await killed(first);
  const atKill = writer.transactions;

  // Killed again soon after its first checkpoint: the next restore starts from the restored run's checkpoint.
  const second = await job.restore();
  await job.checkpointsCompleted(second, 1);
  await killed(second);
  const third = await job.restore();
  try {
    await job.checkpointsCompleted(third, 2);
    await writer.stop();
    expect(writer.transactions - atKill, 'transactions while the job was down or restored').toBeGreaterThan(10);
    for (const t of ['accounts', 'items', 'audit'] as const) {
      const want = await tableLines(source.rows, t);
      await until(
        `target ${t} equal to the source`,
        async () => ((await tableLines(rowsOf(target.client), t)).join('\n') === want.join('\n') ? true : undefined),
        60_000,
      ).catch(() => undefined);
      const got = await tableLines(rowsOf(target.client), t);
      if (got.join('\n') !== want.join('\n')) console.log(await explainDifference(target.client, writer, t, got, want));
      expect(got, `target ${t}`).toEqual(want);
    }
    const log = await checkWriteLog(target.client);
    console.log(
      `${source.plugin} stream: ${writer.transactions} transactions, ${writer.changes} changes, ${log.writes} target writes, ${log.repeated.length} repeated`,
    );
    expect(log.repeated).toEqual([]);
    expect(log.auditRewrites).toEqual([]);

    await job.verifyEqual();

    const metrics = await job.metrics(third);
    const received = metrics?.TableSourceReceivedCount as Record<string, number>;
    const written = metrics?.TableSinkWriteCount as Record<string, number>;
    for (const t of tables) {
      expect(received[t], `TableSourceReceivedCount of ${t}: ${JSON.stringify(metrics)}`).toBeGreaterThan(0);
      expect(written[t], `TableSinkWriteCount of ${t}: ${JSON.stringify(metrics)}`).toBeGreaterThan(0);
    }
  } finally {
    await sigintEnds(third);
  }
}

/** How killMidSnapshot runs: rows in the table, the job's parallelism (chunks spread over its readers). */
export interface SnapshotRun {
  readonly rows: number;
  readonly parallelism: number;
}

export async function killMidSnapshot(
  dirs: TempDirs,
  source: CdcSource,
  target: CdcTarget,
  run: SnapshotRun = { rows: 50_000, parallelism: 1 },
): Promise<void> {
  const { rows } = run;
  await source.transactions(source.bulkSql(rows));
  await createLoggedTargets(target.client, []);
  await target.client.query('CREATE TABLE bulk (id bigint PRIMARY KEY, payload varchar(100) NOT NULL, version bigint NOT NULL)');
  await target.client.query(
    `CREATE TRIGGER bulk_log AFTER INSERT OR UPDATE OR DELETE ON bulk FOR EACH ROW EXECUTE FUNCTION log_write('id')`,
  );
  const job = new CliJob(
    dirs.make(),
    cdcJobConfig({
      plugin: source.plugin,
      source: source.server,
      tables: [source.tableName('bulk')],
      sourceExtra: `${source.options(`snapshot${run.parallelism}`)}\n    snapshot.split.size = 1000`,
      target: target.server,
      targetDatabase: target.database,
      parallelism: run.parallelism,
      // Paced, so that the snapshot spans several 500 ms checkpoints on any machine: unpaced, a
      // fast one read all the rows before the first checkpoint committed any, and there was no
      // "mid-snapshot" left to kill in.
      envExtra: 'read_limit.rows_per_second = 10000',
    }),
  );
  // Updates while the snapshot runs: some hit chunks already read, some chunks still to come.
  let version = rows;
  let updating = true;
  const updater = (async () => {
    while (updating) {
      const id = 1 + ((version * 7919) % rows);
      await source.transactions([`UPDATE bulk SET payload = 'changed', version = ${++version} WHERE id = ${id}`]);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();

  let second: RunningCli | undefined;
  try {
    const first = await job.start();
    await job.checkpointStored();
    const atKill = await until(
      'the first snapshot rows committed',
      async () => {
        const n = (await target.client.query<{ n: number }>('SELECT count(*)::int AS n FROM bulk')).rows[0].n;
        return n > 0 ? n : undefined;
      },
      30_000,
      20,
    );
    await killed(first);
    console.log(`${source.plugin} snapshot at parallelism ${run.parallelism}: killed with ${atKill} of ${rows} rows in the target`);
    expect(atKill, 'the kill came after the snapshot ended').toBeLessThan(rows);

    second = await job.restore();
    await job.checkpointsCompleted(second, 1);
  } finally {
    updating = false;
    await updater;
  }
  try {
    const want = await bulkLines(source.rows);
    await until(
      'target bulk equal to the source',
      async () => ((await bulkLines(rowsOf(target.client))) === want ? true : undefined),
      60_000,
    ).catch(() => undefined);
    expect(await bulkLines(rowsOf(target.client))).toBe(want);
    await job.verifyEqual();
    // The enumerator records which readers read chunks: with two readers, both did.
    const readBy = ((await job.latestEnumeratorStates())?.[0] as { readBy?: number[] } | undefined)?.readBy ?? [];
    expect([...readBy].sort(), 'readers that read snapshot chunks').toEqual([...Array(run.parallelism).keys()]);
    const log = await checkWriteLog(target.client);
    console.log(
      `${source.plugin} snapshot: ${version - rows} updates during the run, ${log.writes} target writes, ${log.repeated.length} repeated`,
    );
    expect(log.repeated).toEqual([]);
  } finally {
    await sigintEnds(second);
  }
}

/** The bulk table as one text (ids ascending), for an exact comparison. */
async function bulkLines(rows: QueryRows): Promise<string> {
  const all = await rows('SELECT id, payload, version FROM bulk');
  return all
    .map((r) => [Number(r.id), `${String(r.id)}|${String(r.payload)}|${String(r.version)}`] as const)
    .sort((a, b) => a[0] - b[0])
    .map((e) => e[1])
    .join('\n');
}

/** For a failed comparison: the writer's statements and the target's writes of each differing key. */
async function explainDifference(target: pg.Client, writer: ChangeWriter, table: string, got: string[], want: string[]): Promise<string> {
  const keyOf = (line: string) => /(?:^| )(?:id|sku)=(\S+)/.exec(line)?.[1] ?? line;
  const differing = new Set([...got.filter((l) => !want.includes(l)), ...want.filter((l) => !got.includes(l))].map(keyOf));
  const out: string[] = [`${table} differs at keys ${[...differing].join(', ')}`];
  for (const k of differing) {
    out.push(`-- source statements about ${k}:`, ...writer.statementsAbout(k));
    const log = await target.query<{ seq: string; op: string; version: string | null }>(
      'SELECT seq, op, version FROM write_log WHERE tbl = $1 AND k = $2 ORDER BY seq',
      [table, k],
    );
    out.push(`-- target writes of ${k}:`, ...log.rows.map((r) => `${r.seq} ${r.op} v${r.version}`));
  }
  return out.join('\n');
}
