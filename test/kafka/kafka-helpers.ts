import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Admin, Consumer, MessagesStreamModes, Producer } from '@platformatic/kafka';
import { kafkaLibsDir, SequenceTally } from '@tideway/testing';

const run = promisify(execFile);

/** Folders of one test file, removed by cleanup(). */
export class TempDirs {
  private readonly dirs: string[] = [];
  make(): string {
    const d = mkdtempSync(join(tmpdir(), 'tideway-kafka-test-'));
    this.dirs.push(d);
    return d;
  }
  cleanup(): void {
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

let counter = 0;
/** A topic name no other test of this run uses (the broker is shared). */
export function uniqueTopic(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now()}-${counter++}`;
}

export async function createTopic(bootstrap: string, topic: string, partitions: number): Promise<void> {
  const admin = new Admin({ clientId: 'kafka-test', bootstrapBrokers: [bootstrap] });
  try {
    await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
  } finally {
    await admin.close();
  }
}

/**
 * Grows a topic to `count` partitions with Kafka's own kafka-topics tool (the Node client's
 * CreatePartitions request is refused by the broker).
 */
export async function addPartitions(bootstrap: string, topic: string, count: number): Promise<void> {
  await run('java', [
    '-Xmx256m',
    '-cp',
    `${kafkaLibsDir()}/*`,
    'org.apache.kafka.tools.TopicCommand',
    '--bootstrap-server',
    bootstrap,
    '--alter',
    '--topic',
    topic,
    '--partitions',
    String(count),
  ]);
}

export interface Message {
  readonly value: string | Buffer | null;
  readonly key?: string;
  readonly partition?: number;
}

/** Sends messages, one send (idempotent, acks=all). */
export async function produce(bootstrap: string, topic: string, messages: readonly Message[]): Promise<void> {
  // Idempotent: a produce request retried on a loaded machine (its first try timed out after the
  // broker wrote it) must not write the records twice, which a test would take for a double read.
  const producer = new Producer({ clientId: 'kafka-test', bootstrapBrokers: [bootstrap], acks: -1, idempotent: true });
  try {
    await producer.send({
      messages: messages.map((m) => ({
        topic,
        value: m.value === null ? undefined : Buffer.from(m.value),
        key: m.key === undefined ? undefined : Buffer.from(m.key),
        partition: m.partition ?? 0,
      })),
    });
  } finally {
    await producer.close();
  }
}

/** Sends messages in one transaction, then commits or aborts it. */
export async function produceInTransaction(
  bootstrap: string,
  topic: string,
  messages: readonly Message[],
  outcome: 'commit' | 'abort',
): Promise<void> {
  const producer = new Producer({
    clientId: 'kafka-test',
    bootstrapBrokers: [bootstrap],
    idempotent: true,
    acks: -1,
    transactionalId: `test-${topic}-${outcome}-${counter++}`,
  });
  try {
    const tx = await producer.beginTransaction();
    await tx.send({
      messages: messages.map((m) => ({ topic, value: m.value === null ? undefined : Buffer.from(m.value), partition: m.partition ?? 0 })),
    });
    if (outcome === 'commit') await tx.commit();
    else await tx.abort();
  } finally {
    await producer.close();
  }
}

export interface Consumed {
  readonly key: string | null;
  readonly value: string;
  readonly partition: number;
}

/** Reads `count` records of a topic from the beginning (read_committed); fails after `timeoutMs`. */
export async function consumeAll(bootstrap: string, topic: string, count: number, timeoutMs = 30_000): Promise<Consumed[]> {
  return (await consumeRaw(bootstrap, topic, count, timeoutMs)).map((m) => ({
    key: m.key?.length ? m.key.toString() : null,
    value: m.value.toString(),
    partition: m.partition,
  }));
}

/** As consumeAll, the keys and values as bytes (binary formats). */
export async function consumeRaw(
  bootstrap: string,
  topic: string,
  count: number,
  timeoutMs = 30_000,
): Promise<{ key: Buffer | null; value: Buffer; partition: number }[]> {
  const consumer = new Consumer({
    clientId: 'kafka-test',
    groupId: `read-${topic}-${counter++}`,
    bootstrapBrokers: [bootstrap],
    isolationLevel: 1,
  });
  const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
  const out: { key: Buffer | null; value: Buffer; partition: number }[] = [];
  // A close that fails after the timeout ends the loop below all the same (the stream errors).
  const timer = setTimeout(() => {
    stream.close().catch(() => undefined);
  }, timeoutMs);
  try {
    for await (const m of stream) {
      out.push({ key: m.key ? Buffer.from(m.key) : null, value: Buffer.from(m.value), partition: m.partition });
      if (out.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await stream.close();
    await consumer.close();
  }
  return out;
}

/** The end offset of a topic's partition (how many records it holds, with no transaction markers). */
export async function endOffset(bootstrap: string, topic: string, partition = 0): Promise<number> {
  const admin = new Admin({ clientId: 'kafka-test', bootstrapBrokers: [bootstrap] });
  try {
    const [t] = await admin.listOffsets({ topics: [{ name: topic, partitions: [{ partitionIndex: partition, timestamp: -1n }] }] });
    return Number(t.partitions[0].offset);
  } finally {
    await admin.close();
  }
}

/** The lines of every file under `dir` (a LocalFile sink's output), sorted. */
export function outputLines(dir: string): string[] {
  const lines: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else
        lines.push(
          ...readFileSync(p, 'utf8')
            .split('\n')
            .filter((l) => l !== ''),
        );
    }
  };
  walk(dir);
  return lines.sort();
}

export function writeJob(dir: string, text: string): string {
  const conf = join(dir, 'job.conf');
  writeFileSync(conf, text);
  return conf;
}

/**
 * Every committed value of a topic, read by Kafka's own console consumer with isolation.level
 * read_committed (it skips aborted transactions, which the Node client's stream does not): one
 * consumer per partition, assigned to it (no group to join), until no record came for `idleMs`
 * (generous: a JVM on a loaded machine may take seconds before its first fetch).
 */
export async function readCommitted(bootstrap: string, topic: string, partitions = 1, idleMs = 10_000): Promise<string[]> {
  const read = async (partition: number) => {
    const { stdout } = await run(
      'java',
      [
        '-Xmx256m',
        // Its log (the TimeoutException that ends it after --timeout-ms) would go to stdout.
        '-Dlog4j2.level=OFF',
        '-cp',
        `${kafkaLibsDir()}/*`,
        'org.apache.kafka.tools.consumer.ConsoleConsumer',
        '--bootstrap-server',
        bootstrap,
        '--topic',
        topic,
        '--partition',
        String(partition),
        '--offset',
        'earliest',
        '--isolation-level',
        'read_committed',
        '--timeout-ms',
        String(idleMs),
      ],
      { maxBuffer: 256 * 1024 * 1024 },
    );
    return stdout.split('\n').filter((l) => l !== '');
  };
  return (await Promise.all(Array.from({ length: partitions }, (_, p) => read(p)))).flat();
}

/** A BATCH Sequence -> Kafka EXACTLY_ONCE job (text records), optionally with injected reader and chain faults. */
export function exactlyOnceJob(o: {
  bootstrap: string;
  topic: string;
  keys: number;
  rowsPerKey: number;
  rowsPerSecond: number;
  faultDir?: string;
}): string {
  const faults = o.faultDir
    ? {
        source: `fault.probability = 0.05\n    fault.max = 2\n    fault.dir = "${join(o.faultDir, 'reader')}"`,
        chain: `probability = 0.1\n    max = 3\n    dir = "${join(o.faultDir, 'chain')}"`,
      }
    : { source: '', chain: `max = 0\n    dir = "${join(tmpdir(), `${o.topic}-budget`)}"` };
  return `env {
  job.mode = "BATCH"
  parallelism = 2
  checkpoint.interval = 500
  job.retry.times = 20
  job.retry.interval.seconds = 0
}
source {
  Sequence {
    plugin_output = "seq"
    keys = ${o.keys}
    rows.per.key = ${o.rowsPerKey}
    rows.per.second = ${o.rowsPerSecond}
    ${faults.source}
  }
}
transform {
  FaultInjector {
    plugin_input = "seq"
    plugin_output = "out"
    ${faults.chain}
  }
}
sink {
  Kafka {
    plugin_input = "out"
    bootstrap.servers = "${o.bootstrap}"
    topic = "${o.topic}"
    semantics = EXACTLY_ONCE
    format = text
    field_delimiter = ","
    kafka.config = { "transaction.timeout.ms" = "60000" }
  }
}
`;
}

/** The rows of a topic as a read_committed consumer sees them, tallied against a Sequence source's keys and rows. */
export async function committedTally(bootstrap: string, topic: string, partitions: number, keys: number, rowsPerKey: number) {
  const tally = new SequenceTally();
  tally.addText((await readCommitted(bootstrap, topic, partitions)).join('\n'));
  return tally.report(keys, rowsPerKey);
}
