/**
 * CDC -> Kafka -> PostgreSQL end to end (issue 34), through the real CLI against a private
 * PostgreSQL with logical replication, a private MariaDB and the run's shared broker. One job
 * captures three tables into Kafka, EXACTLY_ONCE: a PostgreSQL and a MariaDB table as Debezium's
 * own records (format compatible_debezium_json on both ends), a PostgreSQL table as typed rows
 * the sink writes as debezium_json and as canal_json. A second job reads the topics in their
 * formats into PostgreSQL target tables with upserts and deletes. Inserts, updates and deletes go
 * on while the first job is SIGKILLed and restored from its checkpoint; every target ends equal
 * to its source.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { LocalFileCheckpointStorage } from '@tideway/checkpoint';
import { kafkaSkipped, sharedKafka, startMariaDb, startPostgres, type TestDatabaseServer } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliJob, killStartedJobs, TempDirs, until } from '../cdc/cli-job.js';
import { runCli } from '../conformance/cli-process.js';
import { createTopic, uniqueTopic } from './kafka-helpers.js';

const dirs = new TempDirs();
let server: TestDatabaseServer | undefined;
let maria: TestDatabaseServer | undefined;
const clients: { end(): Promise<void> }[] = [];

async function connect(database: string): Promise<pg.Client> {
  const s = server as TestDatabaseServer;
  const c = new pg.Client({ host: s.host, port: s.port, user: s.user, password: s.password, database });
  await c.connect();
  clients.push(c);
  return c;
}

const TABLE = (name: string) =>
  `CREATE TABLE ${name} (id int PRIMARY KEY, name varchar(40), price numeric(10,2), born date, seen timestamp(6), flag boolean, n bigint)`;

/** The id of a job's latest stored checkpoint (0 before the first), read from its checkpoint folder. */
async function latestCheckpoint(job: CliJob): Promise<number> {
  const storage = new LocalFileCheckpointStorage({ directory: job.checkpoints });
  try {
    return Math.max(0, ...(await storage.listCheckpoints(job.jobId)).map((c) => c.checkpointId));
  } finally {
    await storage.close();
  }
}

/** Waits until the job stores a checkpoint after the one stored now (so it holds what was done before the call). */
async function nextCheckpoint(job: CliJob): Promise<void> {
  const now = await latestCheckpoint(job);
  await until(
    `a checkpoint of job ${job.jobId} after ${now}`,
    async () => ((await latestCheckpoint(job)) > now + 1 ? true : undefined),
    90_000,
    100,
  );
}

/** A table's rows as text lines, ordered by id. */
async function lines(client: pg.Client, table: string): Promise<string[]> {
  const res = await client.query<{ line: string }>(`SELECT (t.*)::text AS line FROM ${table} t ORDER BY id`);
  return res.rows.map((r) => r.line);
}

afterAll(async () => {
  killStartedJobs();
  for (const c of clients) await c.end().catch(() => undefined);
  await Promise.all([server?.stop(), maria?.stop()]);
  dirs.cleanup();
});

describe.skipIf(kafkaSkipped())('CDC through Kafka', () => {
  let bootstrap = '';
  beforeAll(async () => {
    [bootstrap, server, maria] = await Promise.all([sharedKafka(), startPostgres({ logical: true }), startMariaDb()]);
  }, 200_000);

  it('Postgres-CDC and MySQL-CDC -> Kafka (compatible_debezium_json, debezium_json, canal_json) -> PostgreSQL: the targets equal the sources across a restore', async () => {
    const s = server as TestDatabaseServer;
    const admin = await connect('tideway');
    await admin.query('CREATE DATABASE target');
    const src = await connect('tideway');
    const dst = await connect('target');
    await dst.query(TABLE('stock_canal'));
    for (const t of ['shop', 'stock']) {
      await src.query(TABLE(t));
      // Debezium's update records carry the old row only with it (SeaTunnel's debezium_json needs it).
      await src.query(`ALTER TABLE ${t} REPLICA IDENTITY FULL`);
      await dst.query(TABLE(t));
    }
    const m = maria as TestDatabaseServer;
    const my = await mysql.createConnection({ host: m.host, port: m.port, user: m.user, password: m.password });
    clients.push(my);
    await my.query('CREATE DATABASE shopdb');
    await my.query(
      'CREATE TABLE shopdb.mshop (id int PRIMARY KEY, name varchar(40), price decimal(10,2), born date, seen datetime(6), n bigint)',
    );
    await dst.query(
      'CREATE TABLE mshop (id int PRIMARY KEY, name varchar(40), price numeric(10,2), born date, seen timestamp(6), n bigint)',
    );
    let next = 1;
    /** One transaction: inserts, an update of an older row, a delete of another, in each table. */
    const change = async () => {
      const id = next;
      await my.query('BEGIN');
      await my.query(
        "INSERT INTO shopdb.mshop VALUES (?, ?, ?, DATE_ADD('2024-01-01', INTERVAL ? DAY), DATE_ADD('2024-05-06 07:08:09.123456', INTERVAL ? SECOND), 9007199254740993 + ?)",
        [id, `m'${id} "q"`, (id * 1.25).toFixed(2), id, id, id],
      );
      await my.query('INSERT INTO shopdb.mshop (id) VALUES (?)', [id + 1]);
      if (id > 4) await my.query("UPDATE shopdb.mshop SET name = CONCAT(name, '+'), price = price + 1 WHERE id = ?", [id - 4]);
      if (id > 6) await my.query('DELETE FROM shopdb.mshop WHERE id = ?', [id - 5]);
      await my.query('COMMIT');
      await src.query('BEGIN');
      for (const t of ['shop', 'stock']) {
        const id = next;
        await src.query(
          `INSERT INTO ${t} VALUES ($1, $2, $3, DATE '2024-01-01' + $1::int, TIMESTAMP '2024-05-06 07:08:09.123456' + make_interval(secs => $1::int), $1 % 2 = 0, 9007199254740993 + $1)`,
          [id, `n'${id} "q"`, (id * 1.25).toFixed(2)],
        );
        await src.query(`INSERT INTO ${t} VALUES ($1, NULL, NULL, NULL, NULL, NULL, NULL)`, [id + 1]);
        if (id > 4) await src.query(`UPDATE ${t} SET name = name || '+', price = price + 1 WHERE id = $1`, [id - 4]);
        if (id > 6) await src.query(`DELETE FROM ${t} WHERE id = $1`, [id - 5]);
      }
      await src.query('COMMIT');
      next += 2;
    };
    for (let i = 0; i < 3; i++) await change();

    const server1 = uniqueTopic('pgcdc').replace(/-/g, '_');
    const compatTopic = `${server1}.public.shop`;
    const mysqlTopic = `${server1}_my.shopdb.mshop`;
    await createTopic(bootstrap, mysqlTopic, 1);
    const typedTopic = uniqueTopic('typed-stock');
    await createTopic(bootstrap, compatTopic, 1);
    await createTopic(bootstrap, typedTopic, 2);
    const canalTopic = uniqueTopic('canal-stock');
    await createTopic(bootstrap, canalTopic, 2);
    const cdc = (table: string, slot: string, extra: string, output: string) => `Postgres-CDC {
    plugin_output = "${output}"
    base-url = "${s.jdbcUrl}"
    username = "${s.user}"
    password = "${s.password}"
    table-names = ["tideway.public.${table}"]
    slot.name = "${slot}"
    ${extra}
  }`;
    const first = new CliJob(
      dirs.make(),
      `env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 1000
}
source {
  ${cdc('shop', `${server1}_a`, `format = compatible_debezium_json\n    debezium = { database.server.name = "${server1}" }`, 'raw')}
  ${cdc('stock', `${server1}_b`, '', 'typed')}
  MySQL-CDC {
    plugin_output = "mraw"
    base-url = "jdbc:mysql://${m.host}:${m.port}/shopdb"
    username = "${m.user}"
    password = "${m.password}"
    table-names = ["shopdb.mshop"]
    format = compatible_debezium_json
    debezium = { database.server.name = "${server1}_my", key.converter.schemas.enable = false }
  }
}
sink {
  Kafka {
    plugin_input = "raw"
    bootstrap.servers = "${bootstrap}"
    format = compatible_debezium_json
    semantics = EXACTLY_ONCE
    kafka.config = { "transaction.timeout.ms" = "60000" }
  }
  Kafka {
    plugin_input = "mraw"
    bootstrap.servers = "${bootstrap}"
    format = compatible_debezium_json
    semantics = EXACTLY_ONCE
    kafka.config = { "transaction.timeout.ms" = "60000" }
  }
  Kafka {
    plugin_input = "typed"
    bootstrap.servers = "${bootstrap}"
    topic = "${typedTopic}"
    format = debezium_json
    partition_key_fields = ["id"]
    semantics = EXACTLY_ONCE
    kafka.config = { "transaction.timeout.ms" = "60000" }
  }
  Kafka {
    plugin_input = "typed"
    bootstrap.servers = "${bootstrap}"
    topic = "${canalTopic}"
    format = canal_json
    partition_key_fields = ["id"]
    semantics = EXACTLY_ONCE
    kafka.config = { "transaction.timeout.ms" = "60000" }
  }
}
`,
    );
    const schema = `schema = { table = "public.TABLE", fields { id = int, name = string, price = "decimal(10, 2)", born = date, seen = timestamp, flag = boolean, n = bigint } }`;
    const kafka = (topic: string, table: string, output: string, fields = schema, format = 'debezium_json') => `Kafka {
    plugin_output = "${output}"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    consumer.group = "${topic}-to-pg"
    start_mode = earliest
    format = ${format}
    ${fields.replace('TABLE', table)}
  }`;
    const mysqlSchema = `schema = { table = "public.TABLE", fields { id = int, name = string, price = "decimal(10, 2)", born = date, seen = timestamp, n = bigint } }`;
    const jdbc = (input: string, table: string) => `Jdbc {
    plugin_input = "${input}"
    url = "jdbc:postgresql://${s.host}:${s.port}/target"
    driver = "org.postgresql.Driver"
    user = "${s.user}"
    password = "${s.password}"
    generate_sink_sql = true
    database = "target"
    table = "public.${table}"
    primary_keys = ["id"]
  }`;
    const second = new CliJob(
      dirs.make(),
      `env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 1000
}
source {
  ${kafka(compatTopic, 'shop', 'shop')}
  ${kafka(typedTopic, 'stock', 'stock')}
  ${kafka(mysqlTopic, 'mshop', 'mshop', mysqlSchema)}
  ${kafka(canalTopic, 'stock_canal', 'stockc', schema, 'canal_json')}
}
sink {
  ${jdbc('shop', 'shop')}
  ${jdbc('stock', 'stock')}
  ${jdbc('mshop', 'mshop')}
  ${jdbc('stockc', 'stock_canal')}
}
`,
    );

    type Line = (string | number | null)[];
    const mariaLines = async (): Promise<Line[]> =>
      (
        await my.query({
          sql: "SELECT id, name, CAST(price AS CHAR), CAST(born AS CHAR), DATE_FORMAT(seen, '%Y-%m-%d %H:%i:%s.%f'), CAST(n AS CHAR) FROM shopdb.mshop ORDER BY id",
          rowsAsArray: true,
        })
      )[0] as unknown as Line[];
    const targetLines = async (): Promise<Line[]> =>
      (
        await dst.query<Line>({
          text: "SELECT id, name, price::text, born::text, to_char(seen, 'YYYY-MM-DD HH24:MI:SS.US'), n::text FROM mshop ORDER BY id",
          rowMode: 'array',
        })
      ).rows;
    const equal = async () => {
      const want = JSON.stringify(await mariaLines());
      await until(
        'target mshop equal to MariaDB',
        async () => (JSON.stringify(await targetLines()) === want ? true : undefined),
        90_000,
        500,
      ).catch(() => undefined);
      const got = JSON.stringify(await targetLines());
      expect(got, `target mshop\n${got}\nMariaDB\n${want}`).toBe(want);
      for (const [t, target] of [
        ['shop', 'shop'],
        ['stock', 'stock'],
        ['stock', 'stock_canal'],
      ]) {
        const want = await lines(src, t);
        await until(
          `target ${target} equal to the source`,
          async () => ((await lines(dst, target)).join('\n') === want.join('\n') ? true : undefined),
          90_000,
          500,
        ).catch(() => undefined);
        expect(await lines(dst, target), `target ${target}`).toEqual(want);
      }
    };

    const run1 = await first.start();
    const reader = await second.start();
    await first.checkpointStored(90_000);
    for (let i = 0; i < 3; i++) await change();
    await nextCheckpoint(first);
    for (let i = 0; i < 2; i++) await change();
    run1.child.kill('SIGKILL');
    expect((await run1.exit).signal).toBe('SIGKILL');
    // Changes while the capture is down, then after its restore from the checkpoint.
    for (let i = 0; i < 3; i++) await change();
    const run2 = await first.restore();
    for (let i = 0; i < 3; i++) await change();
    await equal().catch((err: unknown) => {
      throw new Error(`${String(err)}\ncapture job:\n${run2.stderrTail()}\nreading job:\n${reader.stderrTail()}`);
    });
    expect((await lines(src, 'shop')).length).toBeGreaterThan(15);

    // `tideway verify` through Kafka: one more change, then the capture job's source tables
    // against the Jdbc tables the reading job writes, once both jobs' checkpoints passed it.
    await change();
    const verify = await runCli(
      [
        'verify',
        ...['-c', first.conf, '--engine-config', first.engine, '--job-id', first.jobId],
        ...['--then', second.conf, '--then-job-id', second.jobId, '--then-engine-config', second.engine, '--timeout', '120'],
      ],
      200_000,
    );
    console.log(verify.stdout);
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(verify.stdout).toContain('equal: 4 table(s)');
    expect(verify.stdout).toMatch(/then, pipeline \d+ of the second job: checkpoint \d+ read \S+ to the end/);
    // Without --then the capture job alone has no Jdbc sink to compare: one sentence says what to do.
    const alone = await runCli(['verify', '-c', first.conf, '--no-wait'], 60_000);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('only Jdbc sinks can be compared (a CDC -> Kafka -> Jdbc pipeline: verify this job with --then');

    // The topic holds Debezium's records: the envelope with its Kafka Connect schema, key the primary key.
    const { Consumer, MessagesStreamModes } = await import('@platformatic/kafka');
    const consumer = new Consumer({
      clientId: 'kafka-test',
      groupId: uniqueTopic('peek'),
      bootstrapBrokers: [bootstrap],
      isolationLevel: 1,
    });
    const stream = await consumer.consume({ topics: [compatTopic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
    let firstRecord: { key: string; value: string } | undefined;
    for await (const m of stream) {
      firstRecord = { key: Buffer.from(m.key).toString(), value: Buffer.from(m.value).toString() };
      break;
    }
    await stream.close();
    await consumer.close();
    const key = JSON.parse(firstRecord?.key ?? 'null') as { schema: { name: string }; payload: { id: number } };
    expect(key.schema.name).toBe(`${compatTopic}.Key`);
    const value = JSON.parse(firstRecord?.value ?? 'null') as {
      schema: { name: string; fields: { field: string }[] };
      payload: Record<string, unknown>;
    };
    expect(value.schema.name).toBe(`${compatTopic}.Envelope`);
    expect(value.schema.fields.map((f) => f.field)).toEqual(['before', 'after', 'source', 'op', 'ts_ms', 'transaction']);
    expect(Object.keys(value.payload)).toEqual(['before', 'after', 'source', 'op', 'ts_ms', 'transaction']);
    expect(value.payload.op).toBe('r');
    expect(value.payload.after).toMatchObject({ id: key.payload.id });

    for (const r of [run2, reader]) r.child.kill('SIGKILL');
  }, 300_000);
});
