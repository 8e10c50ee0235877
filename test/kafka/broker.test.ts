import {
  Admin,
  addPartitionsToTxnV3,
  Connection,
  Consumer,
  endTxnV4,
  initProducerIdV4,
  MessagesStreamModes,
  Producer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { isListening, type KafkaCluster, kafkaMissing, kafkaSkipped, sharedKafka, startKafka } from '@tideway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, waitForExit } from '../conformance/cli-process.js';
import {
  committedTally,
  consumeAll,
  createTopic,
  exactlyOnceJob,
  readCommitted,
  TempDirs,
  uniqueTopic,
  writeJob,
} from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

/** Produces `values` to a new topic and reads them back from the beginning. */
async function roundTrip(bootstrap: string, topic: string, values: string[], replicas: number): Promise<string[]> {
  const admin = new Admin({ clientId: 'broker-test', bootstrapBrokers: bootstrap.split(',') });
  await admin.createTopics({ topics: [topic], partitions: 1, replicas });
  await admin.close();
  const producer = new Producer({
    clientId: 'broker-test',
    bootstrapBrokers: bootstrap.split(','),
    serializers: stringSerializers,
    acks: -1,
  });
  await producer.send({ messages: values.map((value) => ({ topic, value })) });
  await producer.close();
  const consumer = new Consumer({
    clientId: 'broker-test',
    groupId: `g-${topic}`,
    bootstrapBrokers: bootstrap.split(','),
    deserializers: stringDeserializers,
  });
  const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
  const seen: string[] = [];
  for await (const m of stream) {
    seen.push(m.value);
    if (seen.length === values.length) break;
  }
  await stream.close();
  await consumer.close();
  return seen;
}

describe.skipIf(kafkaSkipped())('private Kafka brokers (libs/testing)', () => {
  it('has the jars (CI fails here when scripts/ensure-kafka.sh could not fetch them)', () => {
    expect(kafkaMissing()).toBeUndefined();
  });

  it('shares one broker between the files of a run: records go in and come back', async () => {
    const bootstrap = await sharedKafka();
    expect(await sharedKafka()).toBe(bootstrap);
    expect(await roundTrip(bootstrap, `broker-test-${Date.now()}`, ['a', 'b', 'c'], 1)).toEqual(['a', 'b', 'c']);
  });

  it("the client skips aborted transactions as Kafka's Java consumer does with read_committed: two of one producer, and an abort that wrote nothing (patches/, decision 0097)", async () => {
    const bootstrap = await sharedKafka();
    const topic = uniqueTopic('aborts');
    await createTopic(bootstrap, topic, 1);
    const producer = new Producer({
      clientId: 'broker-test',
      bootstrapBrokers: [bootstrap],
      serializers: stringSerializers,
      idempotent: true,
      acks: -1,
      transactionalId: `${topic}-tx`,
      producerId: -1n,
      producerEpoch: -1,
    });
    const inTransaction = async (value: string, commit: boolean) => {
      const tx = await producer.beginTransaction();
      await tx.send({ messages: [{ topic, value, partition: 0 }] });
      await (commit ? tx.commit() : tx.abort());
    };
    const conn = new Connection('broker-test');
    try {
      // One producer aborts twice between commits: the unpatched client kept one aborted range per
      // producer and delivered b1.
      await inTransaction('a', true);
      await inTransaction('b1', false);
      await inTransaction('c', true);
      await inTransaction('b2', false);
      // Another transactional id adds the partition and aborts without writing a record (what a
      // writer killed between AddPartitionsToTxn and its first produce leaves): an abort marker the
      // broker's aborted-transaction list does not name, on which the unpatched client threw.
      const i = bootstrap.lastIndexOf(':');
      await conn.connect(bootstrap.slice(0, i), Number(bootstrap.slice(i + 1)));
      const id = `${topic}-empty`;
      const init = await initProducerIdV4.api.async(conn, id, 60_000, -1n, -1);
      await addPartitionsToTxnV3.api.async(conn, [
        {
          transactionalId: id,
          producerId: init.producerId,
          producerEpoch: init.producerEpoch,
          verifyOnly: false,
          topics: [{ name: topic, partitions: [0] }],
        },
      ]);
      await endTxnV4.api.async(conn, id, init.producerId, init.producerEpoch, false);
      await inTransaction('d', true);
    } finally {
      await conn.close();
      await producer.close();
    }
    const java = await readCommitted(bootstrap, topic, 1, 5_000);
    expect(java).toEqual(['a', 'c', 'd']);
    // Four asked for, three there: the read ends after 5 s with nothing more.
    expect((await consumeAll(bootstrap, topic, 4, 5_000)).map((m) => m.value)).toEqual(java);
  }, 120_000);

  describe('three brokers', () => {
    let cluster: KafkaCluster;
    beforeAll(async () => {
      cluster = await startKafka({ brokers: 3, heapMb: 256 });
    }, 480_000);
    afterAll(async () => {
      await cluster?.stop();
      for (const b of cluster?.brokers ?? []) expect(await isListening(b.port)).toBe(false);
    });

    it('keep serving with one stopped, which restarts on its port and data', async () => {
      expect(cluster.brokers).toHaveLength(3);
      expect(await roundTrip(cluster.bootstrap, 'replicated', ['x'], 3)).toEqual(['x']);
      const third = cluster.brokers[2];
      await third.stop();
      expect(await isListening(third.port)).toBe(false);
      const others = cluster.brokers
        .slice(0, 2)
        .map((b) => `127.0.0.1:${b.port}`)
        .join(',');
      expect(await roundTrip(others, 'while-one-is-down', ['y'], 2)).toEqual(['y']);
      await third.start();
      expect(await isListening(third.port)).toBe(true);
    }, 240_000);

    it('EXACTLY_ONCE through partition leaders stopped and restarted mid-job: every row once, as read_committed sees it', async () => {
      const topic = uniqueTopic('eo-leaders');
      const admin = new Admin({ clientId: 'broker-test', bootstrapBrokers: cluster.bootstrap.split(',') });
      const moved: number[] = [];
      try {
        await admin.createTopics({ topics: [topic], partitions: 3, replicas: 3 });
        const dir = dirs.make();
        const conf = writeJob(dir, exactlyOnceJob({ bootstrap: cluster.bootstrap, topic, keys: 4, rowsPerKey: 1500, rowsPerSecond: 600 }));
        const job = spawnCli(['run', '-c', conf]);
        const exited = waitForExit(job);
        // Twice while the job writes: the broker leading a partition is stopped (its leadership
        // moves to a follower), then started again.
        for (const partition of [0, 1]) {
          await new Promise((r) => setTimeout(r, 2_500));
          const meta = await admin.metadata({ topics: [topic], forceUpdate: true });
          const leader = meta.topics.get(topic)?.partitions[partition]?.leader;
          const broker = cluster.brokers.find((b) => b.nodeId === leader);
          if (!broker) throw new Error(`no leader for ${topic}-${partition}: ${String(leader)}`);
          await broker.stop();
          moved.push(broker.nodeId);
          await new Promise((r) => setTimeout(r, 2_000));
          await broker.start();
        }
        const res = await exited;
        expect(res.code, res.stderr).toBe(0);
        const r = await committedTally(cluster.bootstrap, topic, 3, 4, 1500);
        console.log(
          `Kafka EXACTLY_ONCE, brokers ${moved.join(' and ')} stopped while leading: rows expected ${r.expected}, seen ${r.seen}, lost ${r.lost}, duplicated ${r.duplicated}`,
        );
        expect(r, r.examples.join('; ')).toMatchObject({ lost: 0, duplicated: 0, seen: 6000 });
      } finally {
        await admin.close();
      }
    }, 400_000);
  });
});
