/**
 * The Kafka sink against a real broker (the run's shared one): keys and partitions as Kafka's
 * Java producer picks them, fixed and content-assigned partitions, text and json.
 */
import { murmur2 } from '@platformatic/kafka';
import { kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { consumeAll, createTopic, TempDirs, uniqueTopic, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

function sequenceToKafka(opts: { bootstrap: string; topic: string; keys: number; rowsPerKey: number; sink: string }): string {
  return `env {
  parallelism = 2
  job.mode = "BATCH"
}
source {
  Sequence {
    plugin_output = "seq"
    keys = ${opts.keys}
    rows.per.key = ${opts.rowsPerKey}
  }
}
sink {
  Kafka {
    plugin_input = "seq"
    bootstrap.servers = "${opts.bootstrap}"
    topic = "${opts.topic}"
    ${opts.sink}
  }
}
`;
}

describe.skipIf(kafkaSkipped())('Kafka sink', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('AT_LEAST_ONCE with partition_key_fields: every row once, each key in the partition Java would pick', async () => {
    const topic = uniqueTopic('sink-keyed');
    await createTopic(bootstrap, topic, 3);
    const dir = dirs.make();
    const conf = writeJob(
      dir,
      sequenceToKafka({
        bootstrap,
        topic,
        keys: 6,
        rowsPerKey: 300,
        sink: 'semantics = AT_LEAST_ONCE\n    partition_key_fields = ["key"]',
      }),
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const got = await consumeAll(bootstrap, topic, 1800);
    expect(got).toHaveLength(1800);
    const seen = new Set<string>();
    for (const m of got) {
      const row = JSON.parse(m.value) as { key: number; seq: number; payload: string };
      expect(m.key).toBe(JSON.stringify({ key: row.key }));
      // Java's partitioner: toPositive(murmur2(keyBytes)) % partitions
      expect(m.partition).toBe((murmur2(Buffer.from(m.key ?? '')) & 0x7fffffff) % 3);
      seen.add(`${row.key}/${row.seq}`);
    }
    expect(seen.size).toBe(1800);
  }, 150_000);

  it('writes text to one fixed partition, and spreads rows by content with assign_partitions', async () => {
    const fixed = uniqueTopic('sink-fixed');
    const assigned = uniqueTopic('sink-assigned');
    await createTopic(bootstrap, fixed, 3);
    await createTopic(bootstrap, assigned, 4);
    const dir = dirs.make();
    const a = await runCli(
      [
        'run',
        '-c',
        writeJob(
          dir,
          sequenceToKafka({
            bootstrap,
            topic: fixed,
            keys: 2,
            rowsPerKey: 50,
            sink: 'format = text\n    field_delimiter = "|"\n    partition = 2',
          }),
        ),
      ],
      120_000,
    );
    expect(a.code, a.stderr).toBe(0);
    const fixedRows = await consumeAll(bootstrap, fixed, 100);
    expect(fixedRows.every((m) => m.partition === 2)).toBe(true);
    expect(fixedRows.map((m) => m.value)).toContain('1|49|k1-s49');
    const b = await runCli(
      [
        'run',
        '-c',
        writeJob(dir, sequenceToKafka({ bootstrap, topic: assigned, keys: 3, rowsPerKey: 40, sink: 'assign_partitions = ["k0-", "k1-"]' })),
      ],
      120_000,
    );
    expect(b.code, b.stderr).toBe(0);
    const rows = await consumeAll(bootstrap, assigned, 120);
    for (const m of rows) {
      const key = (JSON.parse(m.value) as { key: number }).key;
      if (key === 0) expect(m.partition).toBe(0);
      else if (key === 1) expect(m.partition).toBe(1);
      else expect(m.partition).toBeGreaterThanOrEqual(2);
    }
  }, 200_000);

  it('kafka.config buffer.memory bounds the bytes of one send: small buffers still deliver every row; a record larger than the buffer fails the job', async () => {
    const topic = uniqueTopic('sink-buffer');
    await createTopic(bootstrap, topic, 1);
    const dir = dirs.make();
    const ok = await runCli(
      [
        'run',
        '-c',
        writeJob(dir, sequenceToKafka({ bootstrap, topic, keys: 2, rowsPerKey: 150, sink: 'kafka.config = { buffer.memory = 256 }' })),
      ],
      120_000,
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(new Set((await consumeAll(bootstrap, topic, 300)).map((m) => m.value)).size).toBe(300);
    const tooSmall = await runCli(
      [
        'run',
        '-c',
        writeJob(
          dirs.make(),
          sequenceToKafka({ bootstrap, topic, keys: 1, rowsPerKey: 5, sink: 'kafka.config = { buffer.memory = 10 }' }).replace(
            'job.mode = "BATCH"',
            'job.mode = "BATCH"\n  job.retry.times = 0',
          ),
        ),
      ],
      120_000,
    );
    expect(tooSmall.code).not.toBe(0);
    expect(tooSmall.stderr).toMatch(/a record of \d+ bytes for topic \S+ is larger than kafka\.config buffer\.memory \(10 bytes\)/);
  }, 200_000);

  it("a multi-table sink writes each table to its ${table_name} topic, and ${column} takes each row's topic from that column", async () => {
    const prefix = uniqueTopic('mt');
    const orders = `{
        schema = { table = "shop.orders", fields { id = bigint, topic = string } }
        rows = [
          { kind = INSERT, fields = [1, "${prefix}-a"] },
          { kind = INSERT, fields = [2, "${prefix}-b"] },
          { kind = INSERT, fields = [3, "${prefix}-a"] }
        ]
      }`;
    const customers = `{
        schema = { table = "shop.customers", fields { name = string } }
        rows = [{ kind = INSERT, fields = ["ann"] }, { kind = INSERT, fields = ["bob"] }]
      }`;
    const job = (topic: string, tables: string[]) =>
      writeJob(
        dirs.make(),
        `env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  FakeSource {
    plugin_output = "fake"
    tables_configs = [
      ${tables.join(',\n      ')}
    ]
  }
}
sink {
  Kafka {
    plugin_input = "fake"
    bootstrap.servers = "${bootstrap}"
    topic = "${topic}"
    format = json
  }
}
`,
      );
    const res = await runCli(['run', '-c', job(`${prefix}-\${database_name}-\${table_name}`, [orders, customers])], 120_000);
    expect(res.code, res.stderr).toBe(0);
    expect((await consumeAll(bootstrap, `${prefix}-shop-orders`, 3)).map((m) => m.value).sort()).toEqual([
      `{"id":1,"topic":"${prefix}-a"}`,
      `{"id":2,"topic":"${prefix}-b"}`,
      `{"id":3,"topic":"${prefix}-a"}`,
    ]);
    expect((await consumeAll(bootstrap, `${prefix}-shop-customers`, 2)).map((m) => m.value).sort()).toEqual([
      '{"name":"ann"}',
      '{"name":"bob"}',
    ]);

    // Routed by the topic column; a table without that column is refused at planning.
    const refused = await runCli(['run', '-c', job('${topic}', [orders, customers])], 120_000);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /option 'topic': topic '\$\{topic\}' takes each row's topic from column 'topic', which table shop\.customers does not have/,
    );
    const routed = await runCli(['run', '-c', job('${topic}', [orders])], 120_000);
    expect(routed.code, routed.stderr).toBe(0);
    expect((await consumeAll(bootstrap, `${prefix}-a`, 2)).map((m) => m.value).sort()).toEqual([
      `{"id":1,"topic":"${prefix}-a"}`,
      `{"id":3,"topic":"${prefix}-a"}`,
    ]);
    expect((await consumeAll(bootstrap, `${prefix}-b`, 1)).map((m) => m.value)).toEqual([`{"id":2,"topic":"${prefix}-b"}`]);
  }, 200_000);
});
