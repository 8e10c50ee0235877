import { ResolvedOptions } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { describe, expect, it } from 'vitest';
import { CONSUMER_CONFIG_KEYS, consumerSettings, PRODUCER_CONFIG_KEYS, producerSettings } from './kafka-config.js';

function options(config: Record<string, unknown>): ResolvedOptions {
  return new ResolvedOptions(
    new Map([['kafka.config', config]]),
    new Set(['kafka.config']),
    {},
    { file: 'job.conf', line: 3, plugin: 'Kafka', optionLines: { 'kafka.config': 7 } },
  );
}

/** One case per key each side maps: the Java property and value, and the Node client setting it becomes. */
const CONSUMER_CASES: [string, unknown, Record<string, unknown>][] = [
  ['client.id', 'me', { clientId: 'me' }],
  ['request.timeout.ms', 60000, { timeout: 60000 }],
  ['socket.connection.setup.timeout.ms', '2500', { connectTimeout: 2500 }],
  ['retries', 5, { retries: 5 }],
  ['retry.backoff.ms', 250, { retryDelay: 250 }],
  ['metadata.max.age.ms', 30000, { metadataMaxAge: 30000 }],
  ['fetch.min.bytes', 1024, { minBytes: 1024 }],
  ['fetch.max.bytes', 1048576, { maxBytes: 1048576 }],
  ['max.partition.fetch.bytes', 65536, { maxBytesPerPartition: 65536 }],
  ['fetch.max.wait.ms', 100, { maxWaitTime: 100 }],
  ['isolation.level', 'read_uncommitted', { isolationLevel: 0 }],
  ['auto.offset.reset', 'latest', { autoOffsetReset: 'latest' }],
  ['max.poll.records', 1, { maxPollRecords: 1 }],
  ['enable.auto.commit', 'false', {}],
];

const PRODUCER_CASES: [string, unknown, Record<string, unknown>][] = [
  ['client.id', 'me', { clientId: 'me' }],
  ['request.timeout.ms', 60000, { timeout: 60000 }],
  ['socket.connection.setup.timeout.ms', 2500, { connectTimeout: 2500 }],
  ['retries', '0', { retries: 0 }],
  ['retry.backoff.ms', 250, { retryDelay: 250 }],
  ['metadata.max.age.ms', 30000, { metadataMaxAge: 30000 }],
  ['acks', 'all', { acks: -1 }],
  ['compression.type', 'lz4', { compression: 'lz4' }],
  ['enable.idempotence', 'true', { idempotent: true }],
  ['allow.auto.create.topics', false, { autocreateTopics: false }],
  ['transaction.timeout.ms', '120000', { transactionTimeoutMs: 120000 }],
];

describe('kafka.config', () => {
  it('has a case for every key each side maps', () => {
    expect(CONSUMER_CASES.map((c) => c[0]).sort()).toEqual([...CONSUMER_CONFIG_KEYS].sort());
    expect(PRODUCER_CASES.map((c) => c[0]).sort()).toEqual([...PRODUCER_CONFIG_KEYS].sort());
  });

  it.each(CONSUMER_CASES)('maps the consumer property %s', (key, value, expected) => {
    expect(consumerSettings(options({ [key]: value }))).toEqual({ isolationLevel: 1, autoOffsetReset: 'earliest', ...expected });
  });

  it.each(PRODUCER_CASES)('maps the producer property %s', (key, value, expected) => {
    expect(producerSettings(options({ [key]: value }))).toEqual(expected);
  });

  it('defaults to read_committed and earliest', () => {
    expect(consumerSettings(options({}))).toEqual({ isolationLevel: 1, autoOffsetReset: 'earliest' });
  });

  it('refuses every other key by name, at the line of kafka.config', () => {
    for (const [settings, key] of [
      [consumerSettings, 'security.protocol'],
      [consumerSettings, 'session.timeout.ms'],
      [producerSettings, 'linger.ms'],
      [producerSettings, 'buffer.memory'],
      [producerSettings, 'isolation.level'],
    ] as const) {
      let caught: unknown;
      try {
        settings(options({ [key]: '1' }));
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).message).toContain(`kafka.config '${key}' is not supported`);
      expect((caught as ConfigError).place).toMatchObject({ file: 'job.conf', line: 7 });
    }
  });

  it('refuses bad values and what the client cannot do', () => {
    expect(() => consumerSettings(options({ 'isolation.level': 'dirty' }))).toThrow(/must be one of read_committed, read_uncommitted/);
    expect(() => consumerSettings(options({ 'enable.auto.commit': true }))).toThrow(
      /not supported: offsets are committed when a checkpoint completes/,
    );
    expect(() => consumerSettings(options({ 'max.poll.records': 0 }))).toThrow(/must be 1 or more/);
    expect(() => producerSettings(options({ acks: 2 }))).toThrow(/must be one of all, -1, 0, 1/);
    expect(() => producerSettings(options({ 'request.timeout.ms': -1 }))).toThrow(/whole number of 0 or more/);
    expect(() => producerSettings(options({ 'transaction.timeout.ms': 10 }))).toThrow(/must be 1000 ms or more/);
  });
});
