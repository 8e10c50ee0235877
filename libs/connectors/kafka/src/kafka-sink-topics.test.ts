/**
 * How the sink finds a topic's partitions when the broker may create it, against a hand-written
 * producer (the broker's side is in test/kafka): while another writer's request is creating a
 * topic, the broker answers UNKNOWN_TOPIC_OR_PARTITION to this one; that is "not yet", not "no"
 * (docs/decisions/0094). Taking it for a refusal failed the task, and the job's restart wrote the
 * other writer's rows a second time.
 */
import { optionsOf, parseSchemaConfig, type Row, type SinkWriter } from '@tideway/api';
import { describe, expect, it, vi } from 'vitest';

const broker = vi.hoisted(() => ({
  /** Metadata answers still to give "unknown topic" before the topic exists (Infinity: never created). */
  unknownFor: 0,
  metadataCalls: 0,
  autocreate: [] as boolean[],
  sent: 0,
}));

vi.mock('@platformatic/kafka', async (original) => {
  const actual = await original<typeof import('@platformatic/kafka')>();
  class FakeProducer {
    producerId = 1n;
    producerEpoch = 0;
    metadata({ topics, autocreateTopics }: { topics: string[]; autocreateTopics: boolean }): Promise<unknown> {
      broker.metadataCalls++;
      broker.autocreate.push(autocreateTopics);
      if (broker.unknownFor > 0) {
        broker.unknownFor--;
        // The client's own words for a metadata answer with UNKNOWN_TOPIC_OR_PARTITION.
        return Promise.reject(new actual.UserError(`Unknown topic ${topics[0]}.`));
      }
      return Promise.resolve({ topics: new Map([[topics[0], { partitionsCount: 2 }]]) });
    }
    send({ messages }: { messages: unknown[] }): Promise<void> {
      broker.sent += messages.length;
      return Promise.resolve();
    }
    close(): Promise<void> {
      return Promise.resolve();
    }
  }
  return { ...actual, Producer: FakeProducer };
});

const { kafkaSinkFactory } = await import('./kafka-sink.js');

const table = parseSchemaConfig({ fields: { id: 'int' } }, { catalogName: 'test', fallbackTable: 't' }).table;

function writer(kafkaConfig: Record<string, string> = {}): SinkWriter {
  const sink = kafkaSinkFactory.create({
    jobId: '1',
    jobMode: 'BATCH',
    parallelism: 2,
    options: optionsOf({ 'bootstrap.servers': '127.0.0.1:1', topic: 'out', 'kafka.config': kafkaConfig }, kafkaSinkFactory.spec),
    inputTables: [table],
  });
  return sink.createWriter({ subtaskIndex: 1, parallelism: 2 });
}

const rows: Row[] = [0, 1, 2].map((id) => ({ kind: '+I', tableId: table.tableId, fields: [id] }));

function reset(unknownFor: number): void {
  broker.unknownFor = unknownFor;
  broker.metadataCalls = 0;
  broker.autocreate.length = 0;
  broker.sent = 0;
}

describe('Kafka sink, a topic the broker creates', () => {
  it('asks again while another writer is creating the topic, then writes', async () => {
    // The other writer's request created the topic; this one's first two answers came before it was there.
    reset(2);
    const w = writer();
    await w.write(rows);
    await w.prepareCommit?.(1);
    expect(broker.sent).toBe(3);
    expect(broker.metadataCalls).toBe(3);
    expect(broker.autocreate.every(Boolean)).toBe(true);
    await w.close();
  });

  it('fails at once naming the topic and the option when kafka.config allow.auto.create.topics is false', async () => {
    reset(1);
    const w = writer({ 'allow.auto.create.topics': 'false' });
    await expect(Promise.resolve(w.write(rows))).rejects.toThrow(
      'topic out does not exist at 127.0.0.1:1 (kafka.config allow.auto.create.topics is false).',
    );
    expect(broker.metadataCalls).toBe(1);
    expect(broker.sent).toBe(0);
    await w.close();
  });

  it('fails after the connect timeout when the broker never creates the topic, saying so', async () => {
    reset(Number.POSITIVE_INFINITY);
    const w = writer({ 'socket.connection.setup.timeout.ms': '600' });
    await expect(Promise.resolve(w.write(rows))).rejects.toThrow(
      /^topic out does not exist at 127\.0\.0\.1:1, and the broker did not create it within 600 ms \(is its auto\.create\.topics\.enable false\?\)\.$/,
    );
    expect(broker.metadataCalls).toBeGreaterThan(1);
    expect(broker.sent).toBe(0);
    await w.close();
  });
});
