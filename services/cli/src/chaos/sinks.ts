import { mkdirSync } from 'node:fs';
import { Admin, Consumer, MessagesStreamModes, Producer, stringSerializers } from '@platformatic/kafka';
import { join } from 'node:path';
import { currentSnapshotRows, HadoopCatalog } from '@tideway/connector-iceberg';
import { parseJdbcUrl } from '@tideway/connector-jdbc';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  checkSequenceOutput,
  checkSequenceTable,
  createSequenceTable,
  pgSinkConnection,
  sequenceRecords,
  startPostgres,
  type PgTarget,
  type SequenceReport,
  type SequenceSink,
  SequenceTally,
} from '@tideway/launchers';

/** The exactly-once sinks a chaos run can write into. */
export type ChaosSinkKind = 'localfile' | 'jdbc' | 'kafka' | 'iceberg';

/** Where a chaos run's rows come from: the Sequence source, or a Kafka topic holding the same rows. */
export type ChaosSourceKind = 'sequence' | 'kafka';

/** A PostgreSQL given on the command line (`--jdbc-url` and its login). */
export interface JdbcLogin {
  url: string;
  user: string;
  password: string;
}

/** A sink made ready for one run: the job's sink, and how to check what it committed. */
export interface ChaosSink {
  kind: ChaosSinkKind;
  spec: SequenceSink;
  /** Where the rows go, for the report. */
  where: string;
  check(keys: number, rowsPerKey: number): Promise<SequenceReport>;
  close(): Promise<void>;
}

/** Takes a `--jdbc-url` apart; only PostgreSQL has the XA sink the run checks. */
export function pgTargetOf(login: JdbcLogin): PgTarget {
  const t = parseJdbcUrl(login.url, { option: '--jdbc-url' });
  if (t.dialect !== 'postgresql' || !t.database) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${login.url} is not a PostgreSQL URL with a database: expected jdbc:postgresql://host[:port]/database (the chaos run checks PostgreSQL's XA sink)`,
      { place: { option: '--jdbc-url' } },
    );
  }
  return { host: t.host, port: t.port, database: t.database, user: login.user, password: login.password };
}

/** The transactional LocalFile sink, writing into `<dir>/out`. */
export function localFileSink(dir: string): ChaosSink {
  const path = join(dir, 'out');
  mkdirSync(path, { recursive: true });
  return {
    kind: 'localfile',
    spec: { kind: 'localfile', path },
    where: path,
    check: async (keys, rowsPerKey) => checkSequenceOutput(path, keys, rowsPerKey),
    close: async () => undefined,
  };
}

/**
 * The Jdbc XA sink into a new table `table` of the PostgreSQL at `login`, or of a private
 * PostgreSQL started here (libs/launchers, on a free port) when no login is given.
 */
export async function jdbcSink(table: string, login?: JdbcLogin): Promise<ChaosSink> {
  const server = login ? undefined : await startPostgres();
  try {
    const given = login ?? { url: server!.jdbcUrl, user: server!.user, password: server!.password };
    const target = pgTargetOf(given);
    await createSequenceTable(target, table);
    return {
      kind: 'jdbc',
      spec: { kind: 'jdbc', ...pgSinkConnection(given.url, given.user, given.password), table },
      where: `${given.url} table ${table}${server ? ' (a private PostgreSQL)' : ''}`,
      check: (keys, rowsPerKey) => checkSequenceTable(target, table, keys, rowsPerKey),
      close: async () => server?.stop(),
    };
  } catch (err) {
    await server?.stop();
    throw err;
  }
}

/** Partitions of the topics a Kafka chaos run reads and writes (the job's two readers and writers share them). */
const KAFKA_PARTITIONS = 4;

/** Creates `topic` with KAFKA_PARTITIONS partitions on the broker at `bootstrap`; one sentence when it cannot. */
async function createTopic(bootstrap: string, topic: string): Promise<void> {
  const admin = new Admin({ clientId: 'tideway-chaos', bootstrapBrokers: [bootstrap], timeout: 10_000, retries: 2 });
  try {
    await admin.createTopics({ topics: [topic], partitions: KAFKA_PARTITIONS, replicas: -1 });
  } catch (err) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `could not create topic ${topic} on the Kafka broker at ${bootstrap}: ${(err as Error).message}`,
      {
        place: { option: '--kafka-bootstrap' },
      },
    );
  } finally {
    await admin.close().catch(() => undefined);
  }
}

/**
 * The source of `--source kafka`: a new topic filled here with the Sequence source's rows (every
 * key's seq 0..rowsPerKey-1 as JSON, keyed by key so each key's rows keep their order in one
 * partition), read by the job's Kafka source from the earliest offset up to the end it finds at
 * the start (BATCH), paced by `read_limit.rows_per_second`, its offsets in the checkpoints.
 * Returns the source block (output `seq`).
 */
export async function kafkaSequenceSource(
  bootstrap: string,
  topic: string,
  keys: number,
  rowsPerKey: number,
  progress: (line: string) => void,
): Promise<string> {
  await createTopic(bootstrap, topic);
  const producer = new Producer({
    clientId: 'tideway-chaos-input',
    bootstrapBrokers: [bootstrap],
    serializers: stringSerializers,
    acks: -1,
    idempotent: true,
  });
  try {
    const total = keys * rowsPerKey;
    let batch: { topic: string; key: string; value: string }[] = [];
    let sent = 0;
    for (const r of sequenceRecords(keys, rowsPerKey)) {
      batch.push({ topic, key: String(r.key), value: r.value });
      if (batch.length === 5000) {
        await producer.send({ messages: batch });
        sent += batch.length;
        batch = [];
        if (sent % 50_000 === 0) progress(`chaos: ${sent} of ${total} input records in topic ${topic}`);
      }
    }
    if (batch.length > 0) await producer.send({ messages: batch });
  } finally {
    await producer.close().catch(() => undefined);
  }
  return `  Kafka {
    plugin_output = "seq"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    consumer.group = "${topic}-job"
    start_mode = "earliest"
    format = "json"
    schema = { fields { key = int, seq = bigint, payload = string } }
  }`;
}
/** How long the check keeps reading after the expected rows arrived, for duplicates behind them. */
const KAFKA_TAIL_MS = 3000;

/**
 * The Kafka sink with EXACTLY_ONCE (transactions bound to checkpoints) into a new topic of the
 * broker at `bootstrap` (the user's: the chaos command starts no JVM). The check reads the topic
 * from its start as a read_committed consumer, as a downstream reader would: rows of aborted or
 * open transactions are not seen.
 */
export async function kafkaSink(bootstrap: string, topic: string): Promise<ChaosSink> {
  await createTopic(bootstrap, topic);
  return {
    kind: 'kafka',
    spec: { kind: 'kafka', bootstrap, topic, transactionPrefix: `${topic}-tx` },
    where: `topic ${topic} on ${bootstrap}`,
    check: async (keys, rowsPerKey) => readCommitted(bootstrap, topic, keys * rowsPerKey, keys, rowsPerKey),
    close: async () => undefined,
  };
}

async function readCommitted(
  bootstrap: string,
  topic: string,
  expected: number,
  keys: number,
  rowsPerKey: number,
): Promise<SequenceReport> {
  const consumer = new Consumer({
    clientId: 'tideway-chaos-check',
    groupId: `${topic}-check-${Date.now()}`,
    bootstrapBrokers: [bootstrap],
    isolationLevel: 1, // READ_COMMITTED
    maxWaitTime: 500,
  });
  const tally = new SequenceTally();
  const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
  let seen = 0;
  let last = Date.now();
  // Ends the read: the expected rows and a quiet tail after them, or 30 s without a record.
  const timer = setInterval(() => {
    const quiet = Date.now() - last;
    if ((seen >= expected && quiet > KAFKA_TAIL_MS) || quiet > 30_000) stream.close().catch(() => undefined);
  }, 250);
  try {
    for await (const m of stream) {
      const row = JSON.parse(m.value.toString()) as { key: number | string; seq: number | string };
      tally.add(`${row.key},${row.seq}`);
      seen++;
      last = Date.now();
    }
  } finally {
    clearInterval(timer);
    await stream.close().catch(() => undefined);
    await consumer.close().catch(() => undefined);
  }
  return tally.report(keys, rowsPerKey);
}

/** The namespace of the tables an Iceberg chaos run creates. */
export const ICEBERG_CHAOS_NAMESPACE = 'chaos';

/**
 * The Iceberg sink (a snapshot per checkpoint, exactly once) into a new table
 * `chaos.<table>` of the hadoop catalog on the local folder `warehouse` (the user's
 * `--iceberg-warehouse`, else a folder of the run), created by the job. The check reads the
 * table's current snapshot with Tideway's own Iceberg reader (the source's scan planning and data
 * file reader, delete files applied: what any Iceberg reader of the table sees) and tallies every
 * (key, seq).
 */
export function icebergSink(warehouse: string, table: string): ChaosSink {
  mkdirSync(warehouse, { recursive: true });
  const catalog = new HadoopCatalog(`file://${warehouse}`);
  const ident = { namespace: [ICEBERG_CHAOS_NAMESPACE], name: table };
  return {
    kind: 'iceberg',
    spec: { kind: 'iceberg', warehouse, namespace: ICEBERG_CHAOS_NAMESPACE, table },
    where: `table ${ICEBERG_CHAOS_NAMESPACE}.${table} of the ${catalog.description}`,
    check: async (keys, rowsPerKey) => {
      const tally = new SequenceTally();
      // A job that committed nothing has no table: every row is lost.
      if (await catalog.load(ident))
        for await (const rows of currentSnapshotRows(catalog, ident, ['key', 'seq']))
          for (const [k, seq] of rows) tally.add(`${String(k)},${String(seq)}`);
      return tally.report(keys, rowsPerKey);
    },
    close: () => catalog.close(),
  };
}
