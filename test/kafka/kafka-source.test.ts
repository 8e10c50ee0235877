/**
 * The Kafka source against a real broker (the run's shared one): formats, start modes,
 * transactions read committed, offsets committed to the group, bad input.
 */
import { join } from 'node:path';
import { Admin } from '@platformatic/kafka';
import { kafkaSkipped, sharedKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import {
  consumeAll,
  createTopic,
  endOffset,
  outputLines,
  produce,
  produceInTransaction,
  TempDirs,
  uniqueTopic,
  writeJob,
} from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

function batchJob(opts: { bootstrap: string; topic: string; source: string; out: string; format?: string }): string {
  return `env {
  parallelism = 2
  job.mode = "BATCH"
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${opts.bootstrap}"
    topic = "${opts.topic}"
    ${opts.source}
  }
}
sink {
  LocalFile {
    plugin_input = "k"
    path = "${opts.out}"
    file_format_type = "${opts.format ?? 'json'}"
  }
}
`;
}

describe.skipIf(kafkaSkipped())('Kafka source', () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('reads json rows of every partition, skipping aborted transactions (read_committed), and commits offsets to the group', async () => {
    const topic = uniqueTopic('src-json');
    await createTopic(bootstrap, topic, 3);
    const rows = (from: number, n: number, partition: number) =>
      Array.from({ length: n }, (_, i) => ({ value: JSON.stringify({ id: from + i, name: `n${from + i}` }), partition }));
    await produce(bootstrap, topic, rows(0, 10, 0));
    await produce(bootstrap, topic, rows(10, 10, 1));
    await produceInTransaction(bootstrap, topic, rows(1000, 5, 2), 'abort');
    await produceInTransaction(bootstrap, topic, rows(20, 5, 2), 'commit');
    await produce(bootstrap, topic, [{ value: null, partition: 2 }]); // a tombstone: no row
    const dir = dirs.make();
    const out = join(dir, 'out');
    const group = `g-${topic}`;
    const conf = writeJob(
      dir,
      batchJob({
        bootstrap,
        topic,
        out,
        source: `start_mode = earliest\n    consumer.group = "${group}"\n    schema = { fields { id = bigint, name = string } }`,
      }),
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const ids = outputLines(out)
      .map((l) => (JSON.parse(l) as { id: number }).id)
      .sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => i));
    const admin = new Admin({ clientId: 't', bootstrapBrokers: [bootstrap] });
    try {
      const groups = await admin.listConsumerGroupOffsets({ groups: [group] });
      const committed = new Map(
        groups[0]?.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, Number(p.committedOffset)] as const)),
      );
      // partition 2: 5 aborted + marker, 5 committed + marker, the tombstone
      expect(Object.fromEntries(committed)).toEqual({ 0: 10, 1: 10, 2: 13 });
    } finally {
      await admin.close();
    }
  }, 150_000);

  it('starts at specific offsets and reads text with a field delimiter; skips or fails on bad records', async () => {
    const topic = uniqueTopic('src-text');
    await createTopic(bootstrap, topic, 1);
    await produce(bootstrap, topic, [
      ...Array.from({ length: 6 }, (_, i) => ({ value: `${i}|name ${i}|${i % 2 === 0}` })),
      { value: 'not-a-number|x|true' },
      { value: '7|seven|false' },
    ]);
    const dir = dirs.make();
    const out = join(dir, 'out');
    const source = (way: string) => `format = text
    field_delimiter = "|"
    format_error_handle_way = ${way}
    start_mode = specific_offsets
    start_mode.offsets = { ${topic}-0 = 3 }
    schema = { fields { id = int, name = string, flag = boolean } }`;
    const ok = await runCli(
      ['run', '-c', writeJob(dir, batchJob({ bootstrap, topic, out, source: source('skip'), format: 'text' }))],
      120_000,
    );
    expect(ok.code, ok.stderr).toBe(0);
    // LocalFile's text format separates fields with \u0001
    expect(outputLines(out).map((l) => l.replaceAll('\u0001', ','))).toEqual([
      '3,name 3,false',
      '4,name 4,true',
      '5,name 5,false',
      '7,seven,false',
    ]);
    const failed = await runCli(
      ['run', '-c', writeJob(dir, batchJob({ bootstrap, topic, out: join(dir, 'out2'), source: source('fail'), format: 'text' }))],
      120_000,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`offset 6 of ${topic} partition 0 does not match format text`);
  }, 200_000);

  it('kafka.config isolation.level = read_uncommitted reads aborted records too; max.poll.records = 1 still reads every record', async () => {
    const topic = uniqueTopic('src-isolation');
    await createTopic(bootstrap, topic, 1);
    await produce(bootstrap, topic, [{ value: '{"id":1}' }]);
    await produceInTransaction(bootstrap, topic, [{ value: '{"id":2}' }], 'abort');
    await produce(bootstrap, topic, [{ value: '{"id":3}' }]);
    const dir = dirs.make();
    const ids = async (config: string, out: string) => {
      const source = `start_mode = earliest\n    schema = { fields { id = int } }\n    kafka.config = { ${config} }`;
      const res = await runCli(['run', '-c', writeJob(dir, batchJob({ bootstrap, topic, out, source }))], 120_000);
      expect(res.code, res.stderr).toBe(0);
      return outputLines(out).map((l) => (JSON.parse(l) as { id: number }).id);
    };
    expect(await ids('isolation.level = read_uncommitted', join(dir, 'uncommitted'))).toEqual([1, 2, 3]);
    expect(await ids('max.poll.records = 1', join(dir, 'one-at-a-time'))).toEqual([1, 3]);
  }, 200_000);

  it('start_mode timestamp, latest and group_offsets (resuming where the last job committed), and topics by pattern', async () => {
    const topic = uniqueTopic('src-modes');
    await createTopic(bootstrap, topic, 1);
    const json = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ value: JSON.stringify({ id: from + i }) }));
    const start = Date.now() - 1;
    await produce(bootstrap, topic, json(0, 5));
    await new Promise((r) => setTimeout(r, 50));
    const middle = Date.now();
    await new Promise((r) => setTimeout(r, 50));
    await produce(bootstrap, topic, json(5, 5));
    const dir = dirs.make();
    let n = 0;
    const ids = async (source: string, topicOption = topic) => {
      const out = join(dir, `out-${n++}`);
      const res = await runCli(
        [
          'run',
          '-c',
          writeJob(dir, batchJob({ bootstrap, topic: topicOption, out, source: `${source}\n    schema = { fields { id = int } }` })),
        ],
        120_000,
      );
      expect(res.code, res.stderr).toBe(0);
      return outputLines(out)
        .map((l) => (JSON.parse(l) as { id: number }).id)
        .sort((a, b) => a - b);
    };
    expect(await ids(`start_mode = timestamp\n    start_mode.timestamp = ${middle}`)).toEqual([5, 6, 7, 8, 9]);
    // start_mode.end_timestamp: a BATCH job stops each partition before its first record at or after it.
    expect(await ids(`start_mode = timestamp\n    start_mode.timestamp = ${start}\n    start_mode.end_timestamp = ${middle}`)).toEqual([
      0, 1, 2, 3, 4,
    ]);
    expect(await ids('start_mode = latest')).toEqual([]);
    const group = `consumer.group = "g-${topic}"`;
    expect(await ids(`start_mode = group_offsets\n    ${group}`)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await produce(bootstrap, topic, json(10, 2));
    expect(await ids(`start_mode = group_offsets\n    ${group}`)).toEqual([10, 11]);

    const prefix = uniqueTopic('src-pattern');
    await createTopic(bootstrap, `${prefix}-a`, 1);
    await createTopic(bootstrap, `${prefix}-b`, 2);
    await produce(bootstrap, `${prefix}-a`, json(100, 2));
    await produce(bootstrap, `${prefix}-b`, [...json(200, 2), { value: '{"id":202}', partition: 1 }]);
    expect(await ids('start_mode = earliest\n    pattern = true', `${prefix}-.*`)).toEqual([100, 101, 200, 201, 202]);
  }, 400_000);

  it('table_list: topics of different formats and schemas in one source, each its own table (routed on by a multi-table Kafka sink), and start modes per item', async () => {
    const orders = uniqueTopic('tl-orders');
    const stock = uniqueTopic('tl-stock');
    await createTopic(bootstrap, orders, 2);
    await createTopic(bootstrap, stock, 1);
    for (const partition of [0, 1])
      await produce(
        bootstrap,
        orders,
        [0, 1, 2].map((i) => ({ value: JSON.stringify({ id: partition * 10 + i, total: 1.5 * i }), partition })),
      );
    await produce(
      bootstrap,
      stock,
      ['a|1', 'b|2', 'c|3', 'd|4'].map((value) => ({ value })),
    );
    const out = uniqueTopic('tl-out');
    const conf = writeJob(
      dirs.make(),
      `env {
  parallelism = 2
  job.mode = "BATCH"
}
source {
  Kafka {
    plugin_output = "k"
    bootstrap.servers = "${bootstrap}"
    table_list = [
      {
        topic = "${orders}"
        format = json
        schema = { table = "shop.orders", fields { id = int, total = double } }
      },
      {
        topic = "${stock}"
        format = text
        field_delimiter = "|"
        start_mode = specific_offsets
        start_mode.offsets = { ${stock}-0 = 2 }
        schema = { table = "shop.stock", fields { sku = string, qty = int } }
      }
    ]
  }
}
sink {
  Kafka {
    plugin_input = "k"
    bootstrap.servers = "${bootstrap}"
    topic = "${out}-\${table_name}"
    format = json
  }
}
`,
    );
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code, res.stderr).toBe(0);
    // Each row once: a restart of the job (the sink is NON, at least once) would write rows again.
    expect(res.stderr).not.toContain('pipeline failed');
    expect([await endOffset(bootstrap, `${out}-orders`), await endOffset(bootstrap, `${out}-stock`)]).toEqual([6, 2]);
    const orderRows = (await consumeAll(bootstrap, `${out}-orders`, 6)).map((m) => JSON.parse(m.value) as { id: number; total: number });
    expect(orderRows.sort((a, b) => a.id - b.id)).toEqual([0, 1, 2, 10, 11, 12].map((id) => ({ id, total: 1.5 * (id % 10) })));
    // The stock item starts at offset 2: its first two records are not read.
    expect((await consumeAll(bootstrap, `${out}-stock`, 2)).map((m) => m.value).sort()).toEqual([
      '{"sku":"c","qty":3}',
      '{"sku":"d","qty":4}',
    ]);
  }, 200_000);
});
