/**
 * The record formats against the run's shared broker: `native` (Kafka -> Kafka copies every
 * record with its key, value, headers, partition and timestamp, tombstones too) and the sink's
 * `compatible_debezium_json` (rows of topic, key and value written unchanged to their topics).
 */
import { Consumer, MessagesStreamModes, Producer } from '@platformatic/kafka';
import { kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { createTopic, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

interface Rec {
  readonly partition: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: [string, string][];
  readonly timestamp: string;
}

/** Every record of a topic in partition then offset order, bytes as hex. */
async function readRecords(bootstrap: string, topic: string, count: number): Promise<Rec[]> {
  const consumer = new Consumer({ clientId: 'kafka-test', groupId: uniqueTopic('read'), bootstrapBrokers: [bootstrap], isolationLevel: 1 });
  const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
  const out: (Rec & { offset: bigint })[] = [];
  const timer = setTimeout(() => void stream.close().catch(() => undefined), 30_000);
  const hex = (b: Buffer | undefined | null) => (b && b.length > 0 ? b.toString('hex') : null);
  try {
    for await (const m of stream) {
      out.push({
        partition: m.partition,
        offset: m.offset,
        key: hex(m.key),
        value: hex(m.value),
        headers: [...m.headers].map(([k, v]) => [Buffer.from(k).toString(), Buffer.from(v).toString()] as [string, string]),
        timestamp: String(m.timestamp),
      });
      if (out.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await stream.close();
    await consumer.close();
  }
  out.sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : 1));
  return out.map(({ offset: _offset, ...r }) => r);
}

describe.skipIf(kafkaSkipped())('Kafka record formats', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('native: a Kafka -> Kafka job copies keys, binary values, headers, partitions, timestamps and tombstones exactly', async () => {
    const from = uniqueTopic('native-in');
    const to = uniqueTopic('native-out');
    await createTopic(bootstrap, from, 2);
    await createTopic(bootstrap, to, 2);
    const producer = new Producer({ clientId: 'kafka-test', bootstrapBrokers: [bootstrap], acks: -1 });
    const messages = Array.from({ length: 40 }, (_, i) => ({
      topic: from,
      partition: i % 2,
      key: i % 5 === 0 ? undefined : Buffer.from(`key-${i}`),
      // Bytes that are not UTF-8, and every fifth record a tombstone.
      value: i % 5 === 3 ? undefined : Buffer.from([0xff, 0x00, i, 0xfe, 0x80]),
      headers:
        i % 3 === 0
          ? new Map([
              [Buffer.from('trace'), Buffer.from(`t-${i}`)],
              [Buffer.from('kind'), Buffer.from('x')],
            ])
          : undefined,
      timestamp: 1_700_000_000_000n + BigInt(i * 1000),
    }));
    try {
      await producer.send({ messages });
    } finally {
      await producer.close();
    }
    const conf = writeJob(
      dirs.make(),
      `env {
  job.mode = "BATCH"
  parallelism = 2
}
source {
  Kafka {
    plugin_output = "raw"
    bootstrap.servers = "${bootstrap}"
    topic = "${from}"
    start_mode = earliest
    format = native
  }
}
sink {
  Kafka {
    plugin_input = "raw"
    bootstrap.servers = "${bootstrap}"
    topic = "${to}"
    format = native
    semantics = AT_LEAST_ONCE
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const [src, dst] = [await readRecords(bootstrap, from, 40), await readRecords(bootstrap, to, 40)];
    expect(src).toHaveLength(40);
    expect(src.filter((r) => r.value === null)).toHaveLength(8);
    expect(src.filter((r) => r.headers.length === 2)).toHaveLength(14);
    expect(dst).toEqual(src);
  }, 150_000);

  it('compatible_debezium_json: each row goes unchanged to its own topic, its key as the record key', async () => {
    const [a, b] = [uniqueTopic('compat-a'), uniqueTopic('compat-b')];
    await createTopic(bootstrap, a, 1);
    await createTopic(bootstrap, b, 1);
    const value = (id: number) =>
      JSON.stringify({
        schema: { type: 'struct', fields: [], optional: false },
        payload: { before: null, after: { id }, op: 'c' },
      }).replace(/"/g, '\\"');
    const conf = writeJob(
      dirs.make(),
      `env {
  job.mode = "BATCH"
  parallelism = 1
}
source {
  FakeSource {
    plugin_output = "cdc"
    schema = { fields { topic = string, key = string, value = string } }
    rows = [
      { kind = INSERT, fields = ["${a}", "{\\"id\\":1}", "${value(1)}"] },
      { kind = INSERT, fields = ["${b}", null, "${value(2)}"] },
      { kind = INSERT, fields = ["${a}", "{\\"id\\":3}", "${value(3)}"] }
    ]
  }
}
sink {
  Kafka {
    plugin_input = "cdc"
    bootstrap.servers = "${bootstrap}"
    format = compatible_debezium_json
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const text = (h: string | null) => (h === null ? null : Buffer.from(h, 'hex').toString());
    const got = async (topic: string, n: number) =>
      (await readRecords(bootstrap, topic, n)).map((r): unknown[] => [text(r.key), JSON.parse(text(r.value) ?? 'null') as unknown]);
    const envelope = (id: number) => ({
      schema: { type: 'struct', fields: [], optional: false },
      payload: { before: null, after: { id }, op: 'c' },
    });
    expect(await got(a, 2)).toEqual([
      ['{"id":1}', envelope(1)],
      ['{"id":3}', envelope(3)],
    ]);
    expect(await got(b, 1)).toEqual([[null, envelope(2)]]);
  }, 150_000);
});
