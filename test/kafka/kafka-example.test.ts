/** examples/kafka_to_kafka.conf against the run's shared broker, as its header says to run it. */
import { join } from 'node:path';
import { kafkaSkipped, sharedKafka } from '@tideway/testing';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../conformance/conformance-files.js';
import { runCli } from '../conformance/cli-process.js';
import { consumeAll, createTopic, produce, readCommitted, uniqueTopic } from './kafka-helpers.js';

describe.skipIf(kafkaSkipped())('examples/kafka_to_kafka.conf', () => {
  it('copies every record of the source topic into the target topic, keyed by id', async () => {
    const bootstrap = await sharedKafka();
    const source = uniqueTopic('example-orders');
    const target = uniqueTopic('example-copy');
    await createTopic(bootstrap, source, 2);
    await createTopic(bootstrap, target, 3);
    for (const partition of [0, 1]) {
      await produce(
        bootstrap,
        source,
        Array.from({ length: 20 }, (_, i) => ({
          value: JSON.stringify({ id: partition * 20 + i, customer: `c${i}`, total: 1.5 * i }),
          partition,
        })),
      );
    }
    const res = await runCli(
      [
        'run',
        '-c',
        join(repoRoot, 'examples', 'kafka_to_kafka.conf'),
        '-i',
        `bootstrap=${bootstrap}`,
        '-i',
        `source_topic=${source}`,
        '-i',
        `target_topic=${target}`,
      ],
      120_000,
    );
    expect(res.code, res.stderr).toBe(0);
    const copied = await consumeAll(bootstrap, target, 40);
    expect(copied.map((m) => (JSON.parse(m.value) as { id: number }).id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i),
    );
    expect(JSON.parse(copied.find((m) => m.key === '{"id":3}')?.value ?? 'null')).toEqual({ id: 3, customer: 'c3', total: 4.5 });
  }, 150_000);

  it('examples/kafka_canal_to_debezium_exactly_once.conf turns Canal changes into Debezium envelopes, committed once', async () => {
    const bootstrap = await sharedKafka();
    const source = uniqueTopic('example-canal');
    const target = uniqueTopic('example-debezium');
    await createTopic(bootstrap, source, 1);
    await createTopic(bootstrap, target, 2);
    await produce(bootstrap, source, [
      { value: '{"data":null,"isDdl":true,"type":"CREATE","sql":"CREATE TABLE products (id int)"}' },
      { value: '{"data":[{"id":"1","name":"scooter","weight":"3.14"},{"id":"2","name":"hammer","weight":"0.75"}],"type":"INSERT"}' },
      { value: '{"data":[{"id":"1","name":"scooter","weight":"4.56"}],"old":[{"weight":"3.14"}],"type":"UPDATE"}' },
      { value: '{"data":[{"id":"2","name":"hammer","weight":"0.75"}],"type":"DELETE"}' },
    ]);
    const res = await runCli(
      [
        'run',
        '-c',
        join(repoRoot, 'examples', 'kafka_canal_to_debezium_exactly_once.conf'),
        '-i',
        `bootstrap=${bootstrap}`,
        '-i',
        `source_topic=${source}`,
        '-i',
        `target_topic=${target}`,
      ],
      120_000,
    );
    expect(res.code, res.stderr).toBe(0);
    expect((await readCommitted(bootstrap, target, 2)).sort()).toEqual(
      [
        '{"before":null,"after":{"id":1,"name":"scooter","weight":3.14},"op":"c"}',
        '{"before":null,"after":{"id":2,"name":"hammer","weight":0.75},"op":"c"}',
        '{"before":{"id":1,"name":"scooter","weight":3.14},"after":null,"op":"d"}',
        '{"before":null,"after":{"id":1,"name":"scooter","weight":4.56},"op":"c"}',
        '{"before":{"id":2,"name":"hammer","weight":0.75},"after":null,"op":"d"}',
      ].sort(),
    );
  }, 150_000);
});
