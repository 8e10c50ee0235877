/**
 * The RabbitMQ source and sink through the real CLI against a private broker (Debian's
 * rabbitmq-server): SeaTunnel's own e2e config (connector-rabbitmq-e2e, unchanged but for the
 * container's address) with the data RabbitmqIT publishes and the outcome it asserts; a streaming
 * job whose deliveries are acknowledged only by completed checkpoints, through injected faults,
 * a savepoint and a restore (every message once in a transactional sink, the queue drained); the
 * sink through an exchange; and the planning errors (exit 2).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Channel, type ChannelModel, connect } from 'amqplib';
import { optionsOf, type Collector, type Row, type SourceReader } from '@tideway/api';
import { RABBITMQ_SOURCE_SPEC, rabbitmqSinkFactory, rabbitmqSourceFactory, type RabbitSplit } from '@tideway/connector-rabbitmq';
import { newCatalogTable, Types } from '@tideway/api';
import { validatePluginOptions } from '@tideway/config/options';
import { freePort, sharedConformanceDir, startRabbitMq, type RabbitMqServer } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';
import { repoRoot } from '../conformance/conformance-files.js';
import { outputLines } from '../kafka/kafka-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-rabbitmq-'));
const shared = sharedConformanceDir();
let server: RabbitMqServer;
let conn: ChannelModel;
let ch: Channel;
let jobNo = 0;

function writeJob(text: string, name = `job-${++jobNo}.conf`): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** One row of RabbitmqIT's data set as SeaTunnel's JsonSerializationSchema writes it (dates fixed here). */
const IT_ROW = JSON.stringify({
  id: 1,
  c_map: { key: 1 },
  c_array: [1],
  c_string: 'string',
  c_boolean: false,
  c_tinyint: 1,
  c_smallint: 1,
  c_int: 1,
  c_bigint: 1,
  c_float: 1.1,
  c_double: 1.1,
  c_decimal: 1.1,
  c_bytes: 'dGVzdA==',
  c_date: '2026-01-02',
  c_timestamp: '2026-01-02T03:04:05.123',
});

async function drain(queue: string): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const m = await ch.get(queue, { noAck: true });
    if (m === false) return out;
    out.push(m.content.toString('utf8'));
  }
}

async function until(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The broker's max_message_size: a row's message over it is the row's own error (the sink's handleRowErrors). */
const MAX_MESSAGE = 64 * 1024;

const connection = () => `host = "127.0.0.1"
    port = ${server.port}
    virtual_host = "/"
    username = "guest"
    password = "guest"`;

beforeAll(async () => {
  server = await startRabbitMq({ max_message_size: MAX_MESSAGE });
  conn = await connect(server.url);
  ch = await conn.createChannel();
}, 180_000);

afterAll(async () => {
  await conn?.close().catch(() => undefined);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('RabbitMQ', () => {
  it("runs SeaTunnel's rabbitmq-to-rabbitmq.conf as RabbitmqIT does: the sink queue gets the rows as SeaTunnel's JSON, the source queue is drained", async () => {
    // initSourceData: ten messages to queue `test`; the job's sink declares `test1`.
    await ch.assertQueue('test', { durable: true });
    for (let i = 0; i < 10; i++) ch.sendToQueue('test', Buffer.from(IT_ROW));
    const text = readFileSync(join(shared!, 'rabbitmq', 'rabbitmq-to-rabbitmq.conf'), 'utf8')
      .replaceAll('"rabbitmq-e2e"', '"127.0.0.1"')
      .replace(/port\s*=\s*5672/g, `port = ${server.port}`);
    const res = await runCli(['run', '-c', writeJob(text, 'rabbitmq-to-rabbitmq.conf')], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const out = await drain('test1');
    expect(out.length).toBe(10);
    for (const body of out) expect(body).toBe(IT_ROW);
    // Acknowledged by the final checkpoint: nothing goes back to the queue when the job ends (the
    // broker's count follows acknowledgements a moment later).
    await until('the source queue drained', async () => (await ch.checkQueue('test')).messageCount === 0, 10_000);
  }, 150_000);

  it('acknowledges deliveries only when their checkpoint completes: through injected faults, a savepoint and a restore, every message lands once', async () => {
    const queue = `stream-${Date.now()}`;
    await ch.assertQueue(queue, { durable: true });
    const publish = (from: number, n: number) => {
      for (let i = from; i < from + n; i++)
        ch.sendToQueue(queue, Buffer.from(JSON.stringify({ id: i, name: `n${i}` })), { correlationId: `m${i}` });
    };
    publish(0, 500);
    const out = join(dir, `out-${queue}`);
    const faults = mkdtempSync(join(dir, 'faults-'));
    const conf = writeJob(`env {
  parallelism = 1
  job.mode = "STREAMING"
  checkpoint.interval = 1000
}
source {
  RabbitMQ {
    ${connection()}
    queue_name = "${queue}"
    use_correlation_id = true
    schema = { fields { id = bigint, name = string } }
  }
}
transform {
  FaultInjector {
    probability = 1.0
    max = 2
    min.rows = 1000
    dir = "${faults}"
    kinds = ["exception"]
  }
}
sink {
  LocalFile {
    path = "${out}"
    file_format_type = "json"
    is_enable_transaction = true
  }
}
`);
    const ids = () => outputLines(out).map((l) => (JSON.parse(l) as { id: number }).id);
    const jobId = String(Date.now());
    const port = await freePort();
    const first = spawnCli(['run', '-c', conf, '--set-job-id', jobId, '--coordinator-port', String(port)]);
    const firstExit = waitForExit(first);
    try {
      // The first 500 committed (and so acknowledged), the rest in bursts: each run of the task
      // fails once it has passed 1,000 rows, twice, and restores from its last checkpoint.
      await until('the first 500 messages', () => ids().length >= 500);
      for (let from = 500; from < 3000; from += 100) {
        publish(from, 100);
        await new Promise((r) => setTimeout(r, 100));
      }
      await until('the first 3000 messages', () => ids().length >= 3000);
      const sp = await runCli(['savepoint', jobId, '--address', `127.0.0.1:${port}`]);
      expect(sp.code, sp.stderr).toBe(0);
    } catch (err) {
      first.kill('SIGINT');
      throw err;
    }
    const firstRes = await firstExit;
    expect(firstRes.code, firstRes.stderr).toBe(0);
    expect(ids().sort((a, b) => a - b)).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(readdirSync(faults).length, 'faults injected').toBe(2);
    // The savepoint completed: its deliveries were acknowledged, none is left in the queue.
    await until('the queue drained by the savepoint', async () => (await ch.checkQueue(queue)).messageCount === 0, 10_000);

    publish(3000, 500);
    const second = spawnCli(['run', '-r', jobId, '-c', conf]);
    const secondExit = waitForExit(second);
    try {
      await until('every message after the restore', () => ids().length >= 3500);
      await until('the queue drained by completed checkpoints', async () => (await ch.checkQueue(queue)).messageCount === 0, 30_000);
    } finally {
      second.kill('SIGINT');
    }
    await secondExit;
    expect(ids().sort((a, b) => a - b)).toEqual(Array.from({ length: 3500 }, (_, i) => i));
  }, 240_000);

  it('with use_correlation_id, drops a redelivered message its restored state holds, and acknowledges it with the next checkpoint', async () => {
    const queue = `dedup-${Date.now()}`;
    await ch.assertQueue(queue, { durable: true });
    for (const id of ['a', 'b', 'c']) ch.sendToQueue(queue, Buffer.from(JSON.stringify({ id: id.charCodeAt(0) })), { correlationId: id });
    const options = optionsOf(
      {
        host: '127.0.0.1',
        port: server.port,
        virtual_host: '/',
        queue_name: queue,
        use_correlation_id: true,
        schema: { fields: { id: 'bigint' } },
      },
      RABBITMQ_SOURCE_SPEC,
    );
    const source = rabbitmqSourceFactory.create({ jobId: 'j', jobMode: 'STREAMING', parallelism: 1, options, inputTables: [] });
    const reader = source.createReader({
      subtaskIndex: 0,
      parallelism: 1,
      boundedness: 'UNBOUNDED',
      signalNoMoreElement: () => undefined,
      sendSplitRequest: () => undefined,
    }) as SourceReader<RabbitSplit>;
    // As restored from a checkpoint taken after 'b' was read and before its acknowledgement landed.
    reader.addSplits([{ splitId: 'rabbitmq-0', pendingIds: ['b'] }]);
    const rows: Row[] = [];
    const out: Collector = { collect: (r) => rows.push(r), collectBatch: (rs) => rows.push(...rs) };
    await until('the deliveries', async () => {
      await reader.pollNext(out);
      return rows.length >= 2 && (await ch.checkQueue(queue)).messageCount === 0;
    });
    expect(rows.map((r) => Number(r.fields[0]))).toEqual([97, 99]);
    // 'b' stays in the state until the checkpoint after the restore completes, then all three are acknowledged.
    expect(reader.snapshotState(1)).toEqual([{ splitId: 'rabbitmq-0', pendingIds: ['b', 'a', 'c'] }]);
    await reader.notifyCheckpointComplete?.(1);
    expect(reader.snapshotState(2)).toEqual([{ splitId: 'rabbitmq-0', pendingIds: [] }]);
    await reader.close();
    await new Promise((r) => setTimeout(r, 500));
    expect((await ch.checkQueue(queue)).messageCount).toBe(0);
    const again = await ch.get(queue);
    expect(again).toBe(false);
  }, 60_000);

  it('examples/rabbitmq_to_localfile.conf commits every order once, acknowledging the queue as it goes', async () => {
    await ch.assertQueue('orders', { durable: true });
    for (let i = 0; i < 200; i++)
      ch.sendToQueue(
        'orders',
        Buffer.from(JSON.stringify({ order_id: i, customer: `c${i % 7}`, amount: `${i}.50`, placed_at: '2026-12-01T10:00:00' })),
        { correlationId: `order-${i}` },
      );
    const out = join(dir, 'orders');
    const job = spawnCli([
      'run',
      '-c',
      join(repoRoot, 'examples', 'rabbitmq_to_localfile.conf'),
      ...[
        'rabbitmq_host=127.0.0.1',
        `rabbitmq_port=${server.port}`,
        'rabbitmq_user=guest',
        'rabbitmq_password=guest',
        `output_dir=${out}`,
      ].flatMap((v) => ['-i', v]),
    ]);
    const exit = waitForExit(job);
    try {
      await until('200 orders committed', () => outputLines(out).length >= 200);
      await until('the queue acknowledged', async () => (await ch.checkQueue('orders')).messageCount === 0, 15_000);
    } finally {
      job.kill('SIGINT');
    }
    await exit;
    const orders = outputLines(out).map((l) => JSON.parse(l) as { order_id: number; amount: number | string });
    expect(orders.map((o) => o.order_id).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(Number(orders.find((o) => o.order_id === 3)?.amount)).toBe(3.5);
  }, 120_000);

  it("with handleRowErrors, a row whose message is over the broker's max_message_size is rejected and the other rows are published", async () => {
    const table = newCatalogTable({ database: 'db', table: 't' }, [
      { name: 'id', type: Types.INT, nullable: false },
      { name: 'name', type: Types.STRING, nullable: true },
    ]);
    const options = validatePluginOptions(rabbitmqSinkFactory.spec, {
      type: 'sink',
      name: 'RabbitMQ',
      index: 0,
      file: 'test.conf',
      line: 1,
      options: { host: '127.0.0.1', port: server.port, virtual_host: '/', username: 'guest', password: 'guest', queue_name: 'sized' },
      optionLines: {},
    });
    const sink = rabbitmqSinkFactory.create({ jobId: 'sized', jobMode: 'BATCH', parallelism: 1, options, inputTables: [table] });
    const writer = sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
    const rejected: Array<[number, string]> = [];
    writer.handleRowErrors!((r, err) => rejected.push([r.fields[0] as number, err.message]));
    const row = (id: number, name: string) => ({ kind: '+I' as const, tableId: table.tableId, fields: [id, name] });
    try {
      await writer.write([row(1, 'a'), row(2, 'x'.repeat(MAX_MESSAGE)), row(3, 'c')]);
      await writer.write([row(4, 'd')]); // on the channel opened again
    } finally {
      await writer.close();
    }
    expect(rejected).toHaveLength(1);
    expect(rejected[0][0]).toBe(2);
    expect(rejected[0][1]).toMatch(
      /refused a row's message \(publishing to queue 'sized'\): .*PRECONDITION_FAILED - message size \d+ is larger than configured max size 65536/,
    );
    // the batch was published again one message at a time: row 1 may be there twice (at-least-once)
    const ids = (await drain('sized')).map((b) => (JSON.parse(b) as { id: number }).id);
    expect([...new Set(ids)].sort()).toEqual([1, 3, 4]);
  }, 60_000);

  it('publishes through an exchange with a routing key, confirmed by the broker', async () => {
    await ch.assertExchange('tw-direct', 'direct', { durable: true });
    await ch.assertQueue('routed', { durable: true });
    await ch.bindQueue('routed', 'tw-direct', 'rk');
    const conf = writeJob(`env { parallelism = 2, job.mode = "BATCH" }
source {
  FakeSource {
    row.num = 500
    schema = { fields { id = int, name = string } }
  }
}
sink {
  RabbitMQ {
    ${connection()}
    queue_name = "unrouted"
    exchange = "tw-direct"
    routing_key = "rk"
  }
}
`);
    const res = await runCli(['run', '-c', conf]);
    expect(res.code, res.stderr).toBe(0);
    const out = await drain('routed');
    expect(out.length).toBe(1000);
    expect(Object.keys(JSON.parse(out[0]) as object)).toEqual(['id', 'name']);
    expect((await ch.checkQueue('unrouted')).messageCount).toBe(0);
  }, 120_000);

  it.each([
    ['a batch job', 'BATCH', '', /runs in job.mode = "STREAMING" only/],
    ['routing_key without exchange', 'STREAMING', 'routing_key = "k"', /'routing_key' of the source .* set 'exchange' too/],
    [
      'automatic recovery',
      'STREAMING',
      'automatic_recovery_enabled = true',
      /'automatic_recovery_enabled' = true is not supported: a lost connection fails the task/,
    ],
    ['network_recovery_interval', 'STREAMING', 'network_recovery_interval = 5000', /'network_recovery_interval' is not supported/],
    [
      'delivery_timeout of a streaming read',
      'STREAMING',
      'delivery_timeout = 5000',
      /'delivery_timeout' applies with for_e2e_testing = true only/,
    ],
    ['a url that is not AMQP', 'STREAMING', 'url = "http://127.0.0.1:1/"', /'url' has scheme 'http'/],
  ])(
    'refuses %s at planning (exit 2) with the option named',
    async (_what, mode, extra, message) => {
      const conf = writeJob(`env { job.mode = "${mode}" }
source {
  RabbitMQ {
    ${connection()}
    queue_name = "never"
    ${extra}
    schema = { fields { id = bigint } }
  }
}
sink { Console {} }
`);
      const res = await runCli(['run', '-c', conf]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).toMatch(/job-\d+\.conf:\d+/);
    },
    60_000,
  );

  it("refuses the sink's rabbitmq.config by name (exit 2)", async () => {
    const conf = writeJob(`env { job.mode = "BATCH" }
source { FakeSource { row.num = 1, schema = { fields { id = int } } } }
sink {
  RabbitMQ {
    ${connection()}
    queue_name = "never"
    rabbitmq.config = { "x-max-length" = 10 }
  }
}
`);
    const res = await runCli(['run', '-c', conf]);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/'rabbitmq.config' is not supported/);
  }, 60_000);

  it('fails a job whose broker cannot be reached with one sentence naming the address', async () => {
    const port = await freePort();
    const conf = writeJob(`env {
  job.mode = "BATCH"
  job.retry.times = 0
}
source { FakeSource { row.num = 1, schema = { fields { id = int } } } }
sink {
  RabbitMQ {
    host = "127.0.0.1"
    port = ${port}
    virtual_host = "/"
    queue_name = "never"
    connection_timeout = 2000
  }
}
`);
    const res = await runCli(['run', '-c', conf], 120_000);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`RabbitMQ at 127.0.0.1:${port}: connecting failed`);
    expect(res.stderr).not.toMatch(/^\s+at /m);
  }, 120_000);
});
