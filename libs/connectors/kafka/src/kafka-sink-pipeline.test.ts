/**
 * The sink's overlapping sends against a hand-written producer (the broker's side is in
 * test/kafka): never two sends in flight on one partition (the client numbers an idempotent
 * producer's records per partition on acknowledgement), a producer's first send alone, every
 * send acknowledged before prepareCommit() returns, and a failed send failing what comes next.
 */
import { optionsOf, parseSchemaConfig, type Row, type SinkWriter } from '@tideway/api';
import { describe, expect, it, vi } from 'vitest';

interface Pending {
  readonly partitions: number[];
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

const broker = vi.hoisted(() => ({
  pending: [] as Pending[],
  inFlight: new Map<number, number>(),
  maxPerPartition: 0,
  maxAtOnce: 0,
  sent: 0,
}));

vi.mock('@platformatic/kafka', async (original) => {
  const actual = await original<typeof import('@platformatic/kafka')>();
  class FakeProducer {
    producerId = 1n;
    producerEpoch = 0;
    metadata(): Promise<unknown> {
      return Promise.resolve({ topics: new Map([['t', { partitionsCount: 3 }]]) });
    }
    send({ messages }: { messages: { partition: number }[] }): Promise<void> {
      const partitions = [...new Set(messages.map((m) => m.partition))];
      for (const p of partitions) {
        const n = (broker.inFlight.get(p) ?? 0) + 1;
        broker.inFlight.set(p, n);
        broker.maxPerPartition = Math.max(broker.maxPerPartition, n);
      }
      broker.maxAtOnce = Math.max(broker.maxAtOnce, broker.pending.length + 1);
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          for (const p of partitions) broker.inFlight.set(p, (broker.inFlight.get(p) ?? 1) - 1);
          broker.pending.splice(broker.pending.indexOf(entry), 1);
        };
        const entry: Pending = {
          partitions,
          resolve: () => {
            done();
            broker.sent += messages.length;
            resolve();
          },
          reject: (err) => {
            done();
            reject(err);
          },
        };
        broker.pending.push(entry);
      });
    }
    close(): Promise<void> {
      return Promise.resolve();
    }
  }
  return { ...actual, Producer: FakeProducer };
});

const { kafkaSinkFactory } = await import('./kafka-sink.js');

const table = parseSchemaConfig({ fields: { id: 'int' } }, { catalogName: 'test', fallbackTable: 't' }).table;

function writer(values: Record<string, unknown> = {}): SinkWriter {
  const sink = kafkaSinkFactory.create({
    jobId: '1',
    jobMode: 'BATCH',
    parallelism: 1,
    options: optionsOf({ 'bootstrap.servers': '127.0.0.1:1', topic: 't', semantics: 'AT_LEAST_ONCE', ...values }, kafkaSinkFactory.spec),
    inputTables: [table],
  });
  return sink.createWriter({ subtaskIndex: 0, parallelism: 1 });
}

const batch = (from: number): Row[] => Array.from({ length: 10 }, (_, i) => ({ kind: '+I', tableId: table.tableId, fields: [from + i] }));

/** Lets the writer's promise chains run. */
const settle = () => new Promise<void>((r) => setTimeout(r, 5));

function reset(): void {
  broker.pending.length = 0;
  broker.inFlight.clear();
  broker.maxPerPartition = 0;
  broker.maxAtOnce = 0;
  broker.sent = 0;
}

describe('Kafka sink, overlapping sends', () => {
  it('keeps sends of different partitions in flight, never two on one, and acknowledges all before prepareCommit returns', async () => {
    reset();
    const w = writer();
    // The first send runs alone: write() waits for its acknowledgement.
    const first = w.write(batch(0));
    await settle();
    expect(broker.pending).toHaveLength(1);
    broker.pending[0].resolve();
    await first;
    // Keyless batches rotate over the 3 partitions: three writes return with their sends in flight.
    for (let i = 1; i <= 3; i++) await w.write(batch(i * 10));
    expect(broker.pending).toHaveLength(3);
    // The next batch's partition is busy: its write waits for that send.
    let fourthDone = false;
    const fourth = Promise.resolve(w.write(batch(40))).then(() => {
      fourthDone = true;
    });
    await settle();
    expect(fourthDone).toBe(false);
    const busy = broker.pending.find((p) => p.partitions.includes(broker.pending[0].partitions[0]))!;
    busy.resolve();
    await fourth;
    let prepared = false;
    const prepare = Promise.resolve(w.prepareCommit?.(1)).then(() => {
      prepared = true;
    });
    await settle();
    expect(prepared).toBe(false);
    while (broker.pending.length > 0) {
      broker.pending[0].resolve();
      await settle();
    }
    await prepare;
    expect(broker.sent).toBe(50);
    expect(broker.maxPerPartition).toBe(1);
    expect(broker.maxAtOnce).toBe(3);
    await w.close();
  });

  it('fails the next write with the failed send, naming the topic and the broker', async () => {
    reset();
    const w = writer();
    const first = w.write(batch(0));
    await settle();
    broker.pending[0].resolve();
    await first;
    await w.write(batch(10));
    broker.pending[0].reject(Object.assign(new Error('Connection closed'), { code: 'PLT_KFK_NETWORK' }));
    await settle();
    await expect(Promise.resolve(w.write(batch(20)))).rejects.toThrow(/^writing to topic t at 127\.0\.0\.1:1 failed: Connection closed/);
    await expect(Promise.resolve(w.prepareCommit?.(1))).rejects.toThrow(/Connection closed/);
    while (broker.pending.length > 0) broker.pending[0].resolve();
    await expect(Promise.resolve(w.close())).rejects.toThrow(/Connection closed/);
  });

  it('keeps buffer.memory as the bytes in flight: a send waits while the unacknowledged ones hold it', async () => {
    reset();
    // Each 10-row batch of {"id":n} is 80-90 bytes: 100 bytes of buffer holds one batch in flight.
    const w = writer({ 'kafka.config': { 'buffer.memory': '100' } });
    const first = w.write(batch(0));
    await settle();
    broker.pending[0].resolve();
    await first;
    await w.write(batch(10));
    let second = false;
    const next = Promise.resolve(w.write(batch(20))).then(() => {
      second = true;
    });
    await settle();
    expect(second).toBe(false);
    broker.pending[0].resolve();
    await next;
    while (broker.pending.length > 0) broker.pending[0].resolve();
    await w.prepareCommit?.(1);
    expect(broker.maxAtOnce).toBe(1);
    await w.close();
  });
});
