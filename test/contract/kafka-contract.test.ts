/**
 * The sink contract (libs/connector-contract) on the Kafka sink with semantics = AT_LEAST_ONCE,
 * against the run's shared broker: a topic per scenario, read back to its end offset by a
 * read_committed consumer. A restore sends the rows after its checkpoint again, so the checks
 * hold it to "every row, nothing else" (no row lost), not to "each row once".
 */
import { Admin, Producer } from '@platformatic/kafka';
import { beforeAll } from 'vitest';
import { kafkaSkipped, sharedKafka } from '@tideway/testing';
import { kafkaSinkFactory } from '@tideway/connector-kafka';
import { ITEMS, PARTS, sinkContract, type SinkSubject } from '@tideway/connector-contract';
import { consumeAll, createTopic, uniqueTopic } from '../kafka/kafka-helpers.js';
import { KAFKA_NOT_APPLICABLE } from './contract-table.js';

/** The end offset of a one-partition topic. */
async function endOffset(bootstrap: string, topic: string): Promise<number> {
  const admin = new Admin({ clientId: 'contract', bootstrapBrokers: [bootstrap] });
  try {
    const [t] = await admin.listOffsets({ topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
    return Number(t.partitions[0].offset);
  } finally {
    await admin.close();
  }
}

/**
 * Waits until the broker gives idempotent producers their ids: a broker just started answers
 * COORDINATOR_LOAD_IN_PROGRESS for a while, which would fail the first scenario's writes (a job
 * restarts on it; these checks count restores).
 */
async function brokerReady(bootstrap: string): Promise<void> {
  const topic = uniqueTopic('contract-warmup');
  await createTopic(bootstrap, topic, 1);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const producer = new Producer({ clientId: 'contract-warmup', bootstrapBrokers: [bootstrap], idempotent: true, acks: -1 });
    try {
      await producer.send({ messages: [{ topic, value: Buffer.from('ready'), partition: 0 }] });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await producer.close().catch(() => undefined);
    }
  }
}

beforeAll(async () => {
  if (!kafkaSkipped()) await brokerReady(await sharedKafka());
}, 300_000);

const kafka: SinkSubject = {
  name: 'Kafka (AT_LEAST_ONCE)',
  factory: kafkaSinkFactory,
  delivery: 'at-least-once',
  failureCalls: 'first-call',
  target: async (id) => {
    const bootstrap = await sharedKafka();
    // A topic per table of the contract (the sink routes by ${table_name}).
    const prefix = uniqueTopic(id.replace(/_/g, '-'));
    for (const t of [ITEMS, PARTS]) await createTopic(bootstrap, `${prefix}-${t.path.table}`, 1);
    return {
      options: { 'bootstrap.servers': bootstrap, topic: `${prefix}-\${table_name}`, semantics: 'AT_LEAST_ONCE', format: 'json' },
      readBack: async (table) => {
        const topic = `${prefix}-${table.path.table}`;
        const end = await endOffset(bootstrap, topic).catch(() => 0);
        if (end === 0) return [];
        const got = await consumeAll(bootstrap, topic, end);
        return got.map((m) => JSON.parse(m.value) as Record<string, unknown>);
      },
    };
  },
  notApplicable: KAFKA_NOT_APPLICABLE,
  badOptions: [
    { options: { transaction_prefix: 'x' }, option: 'transaction_prefix' },
    { options: { topic: '${no_such_column}' }, option: 'topic' },
    { options: { partition: -1 }, option: 'partition' },
  ],
};

sinkContract(kafka, { skip: kafkaSkipped() ? 'Kafka is not available here' : false, timeout: 240_000 });
