import { Admin, Consumer, MessagesStreamModes, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { isListening, kafkaMissing, kafkaSkipped, sharedKafka, startKafka } from '@tideway/testing';
import { describe, expect, it } from 'vitest';

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

  it('starts three brokers, keeps serving with one stopped, and restarts it on its port and data', async () => {
    const cluster = await startKafka({ brokers: 3, heapMb: 256 });
    try {
      expect(cluster.brokers).toHaveLength(3);
      const topic = 'replicated';
      expect(await roundTrip(cluster.bootstrap, topic, ['x'], 3)).toEqual(['x']);
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
    } finally {
      await cluster.stop();
    }
    for (const b of cluster.brokers) expect(await isListening(b.port)).toBe(false);
  }, 480_000);
});
