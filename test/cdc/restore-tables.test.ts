/**
 * A CDC job restored from a savepoint with a config that captures other tables (issue 32 item 6,
 * SeaTunnel's MysqlCDCIT / PostgresCDCIT testMultiTableWithRestore): MySQL-CDC (MariaDB) and
 * Postgres-CDC into the exactly-once Jdbc sink (PostgreSQL, target tables created by
 * schema_save_mode), through the real CLI. The job first captures `orders` and `notes`; it is
 * stopped with a savepoint, all three source tables change while it is down, and it is restored
 * (same job id) with a config listing `orders` and `items`. The added `items` is
 * snapshotted and then streamed, `orders` goes on from its offset (its changes while down
 * arrive once), and the removed `notes` is no longer read. Then the job is savepointed and
 * restored once more with the same config, as SeaTunnel's IT does, and streams on. MySQL-CDC runs
 * in local mode (`run`, `run -r`), Postgres-CDC in a cluster (`submit`, `savepoint`, `restore`).
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { cdcJobConfig } from './cdc-job-config.js';
import { CliJob, TempDirs, until, type RunningCli } from './cli-job.js';
import { describeBothSources, idAndV, type BothSourcesContext, type SourceDatabase } from './source-databases.js';

const dirs = new TempDirs();

const values = (from: number, n: number, v = 'v') => Array.from({ length: n }, (_, k) => `(${from + k}, '${v}${from + k}')`).join(', ');

async function restoreWithTables(src: SourceDatabase, { servers, target, targetDatabase: targetDb }: BothSourcesContext): Promise<void> {
  const pk = src.plugin === 'MySQL-CDC' ? 'int NOT NULL PRIMARY KEY' : 'int PRIMARY KEY';
  for (const t of ['orders', 'notes', 'items']) await src.run(`CREATE TABLE ${t} (id ${pk}, v varchar(32))`);
  await src.run(`INSERT INTO orders VALUES ${values(1, 20)}`);
  await src.run(`INSERT INTO notes VALUES ${values(1, 10)}`);
  await src.run(`INSERT INTO items VALUES ${values(1, 3000)}`);
  const config = (tables: string[]) =>
    cdcJobConfig({
      plugin: src.plugin,
      source: src.server,
      tables: tables.map((t) => src.name(t)),
      // Small chunks: the added table's snapshot is several chunks, each with its own watermark.
      sourceExtra: `${src.extra}\n    snapshot.split.size = 700`,
      target: servers.postgres,
      targetDatabase: targetDb,
      schemaSaveMode: 'CREATE_SCHEMA_WHEN_NOT_EXIST',
    });
  const job = new CliJob(dirs.make(), config(['orders', 'notes']));
  const targetRows = async (t: string) =>
    idAndV((await target.query(`SELECT id, v FROM ${t} ORDER BY id`).catch(() => ({ rows: [] as Array<Record<string, unknown>> }))).rows);
  const same = (cli: RunningCli, t: string) =>
    until(
      `${targetDb}.${t} equal to the source table`,
      async () => {
        const want = await src.rows(t);
        return JSON.stringify(await targetRows(t)) === JSON.stringify(want) ? true : undefined;
      },
      90_000,
      300,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message} (target has ${(await targetRows(t)).length} rows):\n${cli.stderrTail()}`);
    });
  const driver = src.plugin === 'MySQL-CDC' ? localRun(job) : await cluster(job);

  let cli = await driver.start();
  await same(cli, 'orders');
  await same(cli, 'notes');
  await job.checkpointsCompleted(cli, 2);
  await src.run(`UPDATE orders SET v = 'streamed' WHERE id <= 5`);
  await src.run(`INSERT INTO notes VALUES ${values(11, 2)}`);
  await same(cli, 'orders');
  await same(cli, 'notes');
  await driver.savepoint(cli);
  const notesAtSavepoint = await targetRows('notes');
  expect(notesAtSavepoint).toHaveLength(12);

  // While the job is down, every table changes.
  // Deleted rows show that `orders` streams on from its offset: a new snapshot would leave them in the upserting sink.
  await src.run(`DELETE FROM orders WHERE id > 18`);
  await src.run(`INSERT INTO orders VALUES ${values(21, 4)}`);
  await src.run(`UPDATE items SET v = 'down' WHERE id BETWEEN 100 AND 110`);
  await src.run(`DELETE FROM items WHERE id > 2990`);
  await src.run(`INSERT INTO notes VALUES ${values(13, 3)}`);

  writeFileSync(job.conf, config(['orders', 'items']));
  cli = await driver.restore();
  await same(cli, 'orders');
  await same(cli, 'items');
  // After the restore: the added table streams, the kept one goes on, the removed one is not read.
  await src.run(`UPDATE items SET v = 'after' WHERE id BETWEEN 1 AND 10 OR id BETWEEN 1400 AND 1410`);
  await src.run(`DELETE FROM items WHERE id BETWEEN 2000 AND 2100`);
  await src.run(`INSERT INTO items VALUES ${values(5000, 5)}`);
  await src.run(`UPDATE orders SET v = 'after' WHERE id > 15`);
  await src.run(`INSERT INTO notes VALUES ${values(16, 2)}`);
  await same(cli, 'items');
  await same(cli, 'orders');
  expect(await targetRows('notes')).toEqual(notesAtSavepoint);

  // Savepointed and restored again with the same config: both tables stream on from their offsets.
  await driver.savepoint(cli);
  await src.run(`INSERT INTO items VALUES ${values(6000, 3)}`);
  await src.run(`DELETE FROM orders WHERE id = 1`);
  cli = await driver.restore();
  await src.run(`UPDATE items SET v = 'third' WHERE id >= 6000`);
  await same(cli, 'items');
  await same(cli, 'orders');
  expect(await targetRows('notes')).toEqual(notesAtSavepoint);
  await driver.stop(cli);
}

/** How the job runs: started, stopped with a savepoint, restored from it (same job id), ended. */
interface Driver {
  start(): Promise<RunningCli>;
  restore(): Promise<RunningCli>;
  savepoint(cli: RunningCli): Promise<void>;
  stop(cli: RunningCli): Promise<void>;
}

/** `tideway run` in local mode, `run -r` to restore: the process ends with its savepoint. */
function localRun(job: CliJob): Driver {
  return {
    start: () => job.start(),
    restore: () => job.restore(),
    savepoint: async (cli) => {
      const res = await runCli(['savepoint', job.jobId, '--address', cli.address], 60_000);
      expect(res.code, res.stderr).toBe(0);
      const ended = await cli.exit;
      expect(ended.code, ended.stderr).toBe(0);
    },
    stop: async (cli) => {
      cli.child.kill('SIGINT');
      const ended = await cli.exit;
      expect(ended.code, ended.stderr).toBe(130);
    },
  };
}

/** A cluster of the job's own: `submit --async`, `savepoint` (the job ends SAVEPOINT_DONE), `restore --async`. */
async function cluster(job: CliJob): Promise<Driver> {
  const c = await job.startCluster();
  const ok = async (args: string[]) => {
    const res = await runCli([...args, '--address', c.address], 60_000);
    expect(res.code, `tideway ${args.join(' ')}: ${res.stderr}\n${c.stderrTail()}`).toBe(0);
  };
  return {
    start: async () => {
      await ok(['submit', '-c', job.conf, '--set-job-id', job.jobId, '--async']);
      return c;
    },
    restore: async () => {
      await ok(['restore', job.jobId, '-c', job.conf, '--async']);
      return c;
    },
    savepoint: async () => {
      await ok(['savepoint', job.jobId]);
      await until(`job ${job.jobId} SAVEPOINT_DONE`, async () => ((await job.status(c))?.status === 'SAVEPOINT_DONE' ? true : undefined));
    },
    stop: async () => {
      await ok(['cancel', job.jobId]);
      c.child.kill('SIGINT');
      await c.exit;
    },
  };
}

describeBothSources({
  title: 'a CDC job restored from a savepoint with a table added and one removed (testMultiTableWithRestore)',
  prefix: 'rt',
  serverId: 7400,
  dirs,
  timeoutMs: 300_000,
  scenario: restoreWithTables,
});
