/**
 * Which Node.js Kafka client (decision 0043): produces and consumes BENCH_KAFKA_RECORDS records
 * (default 1,000,000) of 200 bytes against a private KRaft broker (libs/testing, the jars of
 * scripts/ensure-kafka.sh), with Kafka's own kafka-producer-perf-test / kafka-consumer-perf-test
 * classes on the same broker and settings as the baseline: acks=all with the idempotent producer,
 * no compression, batches of up to 16 KiB. Then the same records in transactions of 10,000.
 * @confluentinc/kafka-javascript is not measured: it cannot be installed without downloading
 * (see the decision). Usage: `pnpm bench:kafka-clients`.
 */
import { Admin, Consumer, MessagesStreamModes, Producer } from '@platformatic/kafka';
import { startKafka } from '@tideway/testing';
import { Kafka, logLevel } from 'kafkajs';
import { consumerPerfMs, producerPerfMs } from './kafka-perf-tools.js';
import { machineLine } from './machine.js';

const RECORDS = Number(process.env.BENCH_KAFKA_RECORDS ?? 1_000_000);
const SIZE = 200;
const PARTITIONS = 3;
const BATCH = 1000;
const IN_FLIGHT = 8;
const TXN = 10_000;
const value = Buffer.alloc(SIZE, 'x');

interface Row {
  readonly what: string;
  /** The run's time; for the Java tools the time they report themselves (JVM start-up left out). */
  readonly ms: number;
}
const rows: Row[] = [];

async function time(what: string, fn: () => Promise<void>): Promise<void> {
  const start = performance.now();
  await fn();
  const ms = performance.now() - start;
  rows.push({ what, ms });
  console.error(`${what}: ${Math.round(ms)} ms`);
}

/**
 * Sends RECORDS in batches of BATCH with `inFlight` batches outstanding. @platformatic/kafka's
 * idempotent producer takes one at a time: concurrent sends to a partition reach the broker out
 * of sequence (OUT_OF_ORDER_SEQUENCE_NUMBER), so it runs with one; kafkajs queues them itself.
 */
async function pump(send: (batch: number) => Promise<void>, inFlight = IN_FLIGHT): Promise<void> {
  let next = 0;
  const total = Math.ceil(RECORDS / BATCH);
  const lane = async () => {
    while (next < total) await send(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

function batchOf<T>(i: number, make: (n: number) => T): T[] {
  const out: T[] = [];
  for (let n = i * BATCH; n < Math.min(RECORDS, (i + 1) * BATCH); n++) out.push(make(n));
  return out;
}

async function javaRun(what: string, measure: () => Promise<number>): Promise<void> {
  const ms = await measure();
  rows.push({ what, ms });
  console.error(`${what}: ${Math.round(ms)} ms (as it reports)`);
}

async function main(): Promise<void> {
  const cluster = await startKafka({ heapMb: 1024 });
  const bootstrap = cluster.bootstrap;
  const admin = new Admin({ clientId: 'bench', bootstrapBrokers: [bootstrap] });
  const topics = ['java', 'platformatic', 'kafkajs', 'platformatic-txn', 'kafkajs-txn'].map((t) => `bench-${t}`);
  await admin.createTopics({ topics, partitions: PARTITIONS, replicas: 1 });
  await admin.close();
  try {
    await javaRun('kafka-producer-perf-test (Java)', () =>
      producerPerfMs(bootstrap, 'bench-java', RECORDS, SIZE, ['acks=all', 'enable.idempotence=true', 'batch.size=16384', 'linger.ms=5']),
    );
    await javaRun('kafka-consumer-perf-test (Java)', () => consumerPerfMs(bootstrap, 'bench-java', RECORDS));

    // @platformatic/kafka
    const pProducer = new Producer({ clientId: 'bench-p', bootstrapBrokers: [bootstrap], idempotent: true, acks: -1 });
    await time('@platformatic/kafka produce', () =>
      pump(async (i) => {
        await pProducer.send({ messages: batchOf(i, (n) => ({ topic: 'bench-platformatic', value, partition: n % PARTITIONS })) });
      }, 1),
    );
    await pProducer.close();
    await time('@platformatic/kafka consume', async () => {
      const consumer = new Consumer({ clientId: 'bench-pc', groupId: `bench-pc-${Date.now()}`, bootstrapBrokers: [bootstrap] });
      const stream = await consumer.consume({ topics: ['bench-platformatic'], mode: MessagesStreamModes.EARLIEST, autocommit: false });
      let seen = 0;
      for await (const _m of stream) {
        if (++seen >= RECORDS) break;
      }
      await stream.close();
      await consumer.close();
    });
    await time("@platformatic/kafka consume, fetch loop (the Kafka source's path)", async () => {
      const consumer = new Consumer({ clientId: 'bench-pf', groupId: 'bench-pf', bootstrapBrokers: [bootstrap] });
      const md = await consumer.metadata({ topics: ['bench-platformatic'] });
      const topic = md.topics.get('bench-platformatic');
      if (!topic) throw new Error('bench-platformatic has no metadata');
      const offsets = Array.from({ length: PARTITIONS }, () => 0n);
      let seen = 0;
      while (seen < RECORDS) {
        const leader = topic.partitions[0]?.leader ?? 1;
        const res = await consumer.fetch({
          node: leader,
          minBytes: 1,
          maxBytes: 50 * 2 ** 20,
          maxWaitTime: 500,
          isolationLevel: 1,
          topics: [
            {
              topicId: topic.id,
              partitions: offsets.map((fetchOffset, partition) => ({
                partition,
                currentLeaderEpoch: -1,
                fetchOffset,
                lastFetchedEpoch: -1,
                partitionMaxBytes: 2 ** 20,
              })),
            },
          ],
        });
        for (const p of res.responses[0]?.partitions ?? []) {
          for (const batch of p.records ?? []) {
            seen += batch.records.length;
            offsets[p.partitionIndex] = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
          }
        }
      }
      await consumer.close();
    });
    const pTx = new Producer({
      clientId: 'bench-pt',
      bootstrapBrokers: [bootstrap],
      idempotent: true,
      transactionalId: 'bench-pt',
      acks: -1,
    });
    await time('@platformatic/kafka produce, transactions of 10,000', async () => {
      for (let t = 0; t < RECORDS / TXN; t++) {
        const tx = await pTx.beginTransaction();
        for (let b = 0; b < TXN / BATCH; b++) {
          const base = t * TXN + b * BATCH;
          const messages = Array.from({ length: BATCH }, (_, k) => ({
            topic: 'bench-platformatic-txn',
            value,
            partition: (base + k) % PARTITIONS,
          }));
          await tx.send({ messages });
        }
        await tx.commit();
      }
    });
    await pTx.close();

    // kafkajs
    const kafka = new Kafka({ clientId: 'bench-k', brokers: [bootstrap], logLevel: logLevel.NOTHING });
    const kProducer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await kProducer.connect();
    await time('kafkajs produce', () =>
      pump(async (i) => {
        await kProducer.send({ topic: 'bench-kafkajs', acks: -1, messages: batchOf(i, (n) => ({ value, partition: n % PARTITIONS })) });
      }),
    );
    await kProducer.disconnect();
    await time('kafkajs consume', async () => {
      const consumer = kafka.consumer({ groupId: `bench-kc-${Date.now()}` });
      await consumer.connect();
      await consumer.subscribe({ topic: 'bench-kafkajs', fromBeginning: true });
      let seen = 0;
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            eachBatch: async ({ batch }) => {
              seen += batch.messages.length;
              if (seen >= RECORDS) resolve();
            },
          })
          .catch(reject);
      });
      await consumer.disconnect();
    });
    const kTx = kafka.producer({ idempotent: true, maxInFlightRequests: 1, transactionalId: 'bench-kt' });
    await kTx.connect();
    await time('kafkajs produce, transactions of 10,000', async () => {
      for (let t = 0; t < RECORDS / TXN; t++) {
        const tx = await kTx.transaction();
        const sends: Promise<unknown>[] = [];
        for (let b = 0; b < TXN / BATCH; b++) {
          const base = t * TXN + b * BATCH;
          const messages = Array.from({ length: BATCH }, (_, k) => ({ value, partition: (base + k) % PARTITIONS }));
          sends.push(tx.send({ topic: 'bench-kafkajs-txn', acks: -1, messages }));
        }
        await Promise.all(sends);
        await tx.commit();
      }
    });
    await kTx.disconnect();
  } finally {
    await cluster.stop();
  }
  const mb = (RECORDS * SIZE) / 2 ** 20;
  const byName = new Map(rows.map((r) => [r.what, r.ms]));
  console.log(`${machineLine({ load: true })}\n`);
  console.log(`${RECORDS.toLocaleString('en-US')} records of ${SIZE} bytes, ${PARTITIONS} partitions, one broker.\n`);
  console.log('| run | ms | records/s | MB/s | against Java |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    const java = r.what.includes('consume') ? byName.get('kafka-consumer-perf-test (Java)') : byName.get('kafka-producer-perf-test (Java)');
    const ratio = java === undefined ? '' : (java / r.ms).toFixed(2);
    console.log(
      `| ${r.what} | ${Math.round(r.ms)} | ${Math.round(RECORDS / (r.ms / 1000)).toLocaleString('en-US')} | ${(mb / (r.ms / 1000)).toFixed(1)} | ${ratio} |`,
    );
  }
}

await main();
