/**
 * A Postgres-CDC job with decoding.plugin.name = "decoderbufs" in the shape of SeaTunnel's
 * PostgresCDCIT config (postgrescdc_to_postgres.conf: the same options, written here; SeaTunnel's
 * file is not in ../shared and third-party files stay out of the repository) through `tideway run`, against a private PostgreSQL with logical replication and the
 * decoderbufs output plugin: the snapshot, then inserts (several in one transaction), updates
 * (one leaving a TOASTed value unchanged) and deletes streamed through decoderbufs; the job is
 * SIGKILLed and restored with `run -r` in between. After each step the sink table holds the
 * source's rows (every column compared as text).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { CliJob, killStartedJobs, TempDirs, until, type RunningCli } from './cli-job.js';

const dirs = new TempDirs();
let server: TestDatabaseServer;
let db: pg.Client;

const COLUMNS = ['id', 'small', 'big', 'amount', 'ratio', 'score', 'ok', 'name', 'note', 'day', 'at', 'zoned', 'clock', 'raw'];
const rows = async (table: string): Promise<string[]> =>
  (
    await db.query({
      text: `SELECT ${COLUMNS.map((c) => `${c}::text`).join(', ')} FROM inventory.${table} ORDER BY id`,
      rowMode: 'array',
    })
  ).rows.map((r: unknown[]) => JSON.stringify(r));

async function sameRows(cli: RunningCli): Promise<void> {
  await until(
    'inventory.sink_postgres_cdc_table_1 to hold the rows of inventory.postgres_cdc_table_1',
    async () => {
      const [a, b] = await Promise.all([rows('postgres_cdc_table_1'), rows('sink_postgres_cdc_table_1').catch(() => [])]);
      return JSON.stringify(a) === JSON.stringify(b) ? true : undefined;
    },
    60_000,
    250,
  ).catch(async (err: Error) => {
    const sink = await rows('sink_postgres_cdc_table_1').catch((e: Error) => [e.message]);
    throw new Error(
      `${err.message}\nsource: ${(await rows('postgres_cdc_table_1')).join('\n')}\nsink: ${sink.join('\n')}\n${cli.stderrTail()}`,
    );
  });
}

const values = (from: number, n: number) =>
  Array.from(
    { length: n },
    (_, k) =>
      `(${from + k}, ${k - 3}, ${2 ** 53 + from + k}, ${from + k}.125, 0.${from + k}, ${(from + k) / 7}, ${k % 2 === 0}, 'name ${from + k}', ${k % 3 === 0 ? 'NULL' : `'note ${from + k}'`}, '2024-02-29'::date + ${k}, '2024-01-02 03:04:05.123456'::timestamp + interval '${k} hour', '2024-01-02 03:04:05.5+08'::timestamptz + interval '${k} minute', '12:34:56.789', '\\x00ff${(from + k) % 10}0')`,
  ).join(', ');

beforeAll(async () => {
  server = await startPostgres({ logical: true, password: 'postgres', database: 'postgres_cdc' });
  db = new pg.Client({ connectionString: server.url });
  await db.connect();
  await db.query(`CREATE SCHEMA inventory`);
  await db.query(
    `CREATE TABLE inventory.postgres_cdc_table_1 (id int PRIMARY KEY, small smallint, big bigint, amount numeric(20,3), ratio real, score double precision, ok boolean, name varchar(64), note text, day date, at timestamp(6), zoned timestamptz, clock time(3), raw bytea)`,
  );
  await db.query(`ALTER TABLE inventory.postgres_cdc_table_1 REPLICA IDENTITY FULL`);
  await db.query(`INSERT INTO inventory.postgres_cdc_table_1 VALUES ${values(1, 10)}`);
}, 60_000);

afterAll(async () => {
  killStartedJobs();
  await db?.end().catch(() => undefined);
  await server?.stop();
  dirs.cleanup();
});

/** The options of SeaTunnel's postgrescdc_to_postgres.conf (PostgresCDCIT), against `address`. */
function decoderbufsJob(address: string): string {
  const url = `jdbc:postgresql://${address}/postgres_cdc?loggerLevel=OFF`;
  return `env {
  execution.parallelism = 1
  job.mode = "STREAMING"
  checkpoint.interval = 5000
  read_limit.bytes_per_second = 7000000
  read_limit.rows_per_second = 400
}
source {
  Postgres-CDC {
    result_table_name = "customers_postgres_cdc"
    username = "postgres"
    password = "postgres"
    database-names = ["postgres_cdc"]
    schema-names = ["inventory"]
    table-names = ["postgres_cdc.inventory.postgres_cdc_table_1"]
    base-url = "${url}"
    decoding.plugin.name = "decoderbufs"
  }
}
sink {
  jdbc {
    source_table_name = "customers_postgres_cdc"
    url = "${url}"
    driver = "org.postgresql.Driver"
    user = "postgres"
    password = "postgres"
    generate_sink_sql = true
    database = postgres_cdc
    table = inventory.sink_postgres_cdc_table_1
    primary_keys = ["id"]
  }
}
`;
}

describe("SeaTunnel's Postgres-CDC config with decoderbufs", () => {
  it('postgrescdc_to_postgres.conf: snapshot, then changes through decoderbufs, killed and restored', async () => {
    const conf = decoderbufsJob(`127.0.0.1:${server.port}`);
    const job = new CliJob(dirs.make(), conf);
    let cli = await job.start();
    await sameRows(cli);
    const big = `(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g)`;
    await db.query(
      `BEGIN; INSERT INTO inventory.postgres_cdc_table_1 VALUES ${values(11, 5)}; UPDATE inventory.postgres_cdc_table_1 SET note = ${big} WHERE id = 2; COMMIT`,
    );
    await db.query(`UPDATE inventory.postgres_cdc_table_1 SET name = 'renamed', small = NULL WHERE id <= 3`);
    await db.query(`DELETE FROM inventory.postgres_cdc_table_1 WHERE id IN (4, 12)`);
    await sameRows(cli);
    await job.checkpointsCompleted(cli, 1);
    await db.query(`INSERT INTO inventory.postgres_cdc_table_1 VALUES ${values(21, 3)}`);
    cli.child.kill('SIGKILL');
    expect((await cli.exit).signal).toBe('SIGKILL');
    await db.query(`UPDATE inventory.postgres_cdc_table_1 SET score = -1 WHERE id > 10`);
    await db.query(`DELETE FROM inventory.postgres_cdc_table_1 WHERE id = 5`);
    cli = await job.restore();
    await sameRows(cli);
    cli.child.kill('SIGINT');
    const ended = await cli.exit;
    expect(ended.code, ended.stderr).toBe(130);
  }, 120_000);
});
