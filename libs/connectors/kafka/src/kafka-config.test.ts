import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResolvedOptions } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { describe, expect, it } from 'vitest';
import {
  CONSUMER_CONFIG_KEYS,
  connectionSecurity,
  consumerSettings,
  PRODUCER_CONFIG_KEYS,
  parseJaas,
  producerSettings,
} from './kafka-config.js';

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
  ['check.crcs', 'false', { checkCrcs: false }],
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
  ['buffer.memory', 33554432, { bufferMemory: 33554432 }],
];

const dir = mkdtempSync(join(tmpdir(), 'tideway-kafka-config-'));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n');
const keystorePem = join(dir, 'client.pem');
writeFileSync(
  keystorePem,
  '-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n',
);
const keystoreP12 = join(dir, 'client.p12');
writeFileSync(keystoreP12, Buffer.from([0x30, 0x82, 0x01]));
const plainJaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="se\\"cret";';
const scramJaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username=bob password="pw";';

/**
 * One case per security key (both sides take them): the key, the kafka.config it is tested in
 * (with the keys it needs beside it), and the `security` settings that come out.
 */
const SECURITY_CASES: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ['security.protocol', { 'security.protocol': 'SSL' }, { tls: { verifyHostname: true } }],
  [
    'sasl.mechanism',
    { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.jaas.config': scramJaas },
    { sasl: { mechanism: 'SCRAM-SHA-512', username: 'bob', password: 'pw' } },
  ],
  [
    'sasl.jaas.config',
    { 'security.protocol': 'sasl_ssl', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': plainJaas },
    { sasl: { mechanism: 'PLAIN', username: 'alice', password: 'se"cret' }, tls: { verifyHostname: true } },
  ],
  [
    'ssl.truststore.location',
    { 'security.protocol': 'SSL', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': caFile },
    { tls: { verifyHostname: true, ca: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n' } },
  ],
  [
    'ssl.truststore.type',
    { 'security.protocol': 'SSL', 'ssl.truststore.type': 'pem', 'ssl.truststore.location': caFile },
    { tls: expect.objectContaining({ ca: expect.stringContaining('CA') as unknown }) as unknown },
  ],
  [
    'ssl.truststore.certificates',
    { 'security.protocol': 'SSL', 'ssl.truststore.certificates': 'PEMTEXT' },
    { tls: { verifyHostname: true, ca: 'PEMTEXT' } },
  ],
  [
    'ssl.keystore.location',
    { 'security.protocol': 'SSL', 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': keystorePem },
    {
      tls: {
        verifyHostname: true,
        key: expect.stringContaining('PRIVATE KEY') as unknown,
        cert: expect.stringContaining('CERTIFICATE') as unknown,
      },
    },
  ],
  [
    'ssl.keystore.type',
    { 'security.protocol': 'SSL', 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': keystoreP12, 'ssl.keystore.password': 'p12pw' },
    { tls: { verifyHostname: true, pfx: 'MIIB', passphrase: 'p12pw' } },
  ],
  [
    'ssl.keystore.password',
    { 'security.protocol': 'SSL', 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': keystoreP12, 'ssl.keystore.password': 'x' },
    { tls: expect.objectContaining({ passphrase: 'x' }) as unknown },
  ],
  [
    'ssl.keystore.key',
    { 'security.protocol': 'SSL', 'ssl.keystore.key': 'KEYPEM', 'ssl.keystore.certificate.chain': 'CHAINPEM' },
    { tls: { verifyHostname: true, key: 'KEYPEM', cert: 'CHAINPEM' } },
  ],
  [
    'ssl.keystore.certificate.chain',
    { 'security.protocol': 'SSL', 'ssl.keystore.key': 'K', 'ssl.keystore.certificate.chain': 'C', 'ssl.key.password': 'kp' },
    { tls: { verifyHostname: true, key: 'K', cert: 'C', passphrase: 'kp' } },
  ],
  [
    'ssl.key.password',
    { 'security.protocol': 'SSL', 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': keystorePem, 'ssl.key.password': 'kp' },
    { tls: expect.objectContaining({ passphrase: 'kp' }) as unknown },
  ],
  [
    'ssl.endpoint.identification.algorithm',
    { 'security.protocol': 'SSL', 'ssl.endpoint.identification.algorithm': '' },
    { tls: { verifyHostname: false } },
  ],
];

describe('kafka.config', () => {
  it('has a case for every key each side maps', () => {
    const security = SECURITY_CASES.map((c) => c[0]);
    expect([...CONSUMER_CASES.map((c) => c[0]), ...security].sort()).toEqual([...CONSUMER_CONFIG_KEYS].sort());
    expect([...PRODUCER_CASES.map((c) => c[0]), ...security].sort()).toEqual([...PRODUCER_CONFIG_KEYS].sort());
  });

  it.each(SECURITY_CASES)('maps the security property %s on both sides', (_key, config, expected) => {
    expect(consumerSettings(options(config)).security).toEqual(expected);
    expect(producerSettings(options(config)).security).toEqual(expected);
  });

  it('turns the security settings into the client options (no hostname check when the algorithm is empty)', () => {
    const s = producerSettings(options({ 'security.protocol': 'SSL', 'ssl.endpoint.identification.algorithm': '' }));
    expect(connectionSecurity(s).tls?.checkServerIdentity?.('x', {} as never)).toBeUndefined();
    const p12 = producerSettings(
      options({ 'security.protocol': 'SSL', 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': keystoreP12 }),
    );
    expect(connectionSecurity(p12).tls?.pfx).toEqual(Buffer.from([0x30, 0x82, 0x01]));
    expect(connectionSecurity(producerSettings(options({})))).toEqual({});
  });

  it('reads JAAS lines as Java writes them, and refuses other login modules', () => {
    expect(parseJaas(plainJaas)).toEqual({ module: 'plain', options: { username: 'alice', password: 'se"cret' } });
    expect(parseJaas('org.apache.kafka.common.security.scram.ScramLoginModule required\n  username="u"\n  password="p"  ;  ')).toEqual({
      module: 'scram',
      options: { username: 'u', password: 'p' },
    });
    expect(parseJaas('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;')).toMatch(
      /Krb5LoginModule, which is not supported/,
    );
    expect(parseJaas('username=alice')).toMatch(/is not a JAAS login module line/);
  });

  it('refuses security settings that do not go together, each in one sentence naming the key', () => {
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ 'sasl.mechanism': 'PLAIN' }, /'sasl\.mechanism' is set but 'security\.protocol' is PLAINTEXT: use SASL_PLAINTEXT or SASL_SSL/],
      [
        { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.jaas.config': plainJaas },
        /'sasl\.mechanism' = GSSAPI \(the default\) is not supported/,
      ],
      [
        { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'OAUTHBEARER', 'sasl.jaas.config': plainJaas },
        /OAUTHBEARER is not supported/,
      ],
      [{ 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'PLAIN' }, /'sasl\.jaas\.config' is needed/],
      [
        { 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': scramJaas },
        /ScramLoginModule, which does not go with sasl\.mechanism PLAIN/,
      ],
      [
        {
          'security.protocol': 'SASL_SSL',
          'sasl.mechanism': 'PLAIN',
          'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="a";',
        },
        /needs username="\.\.\." and password/,
      ],
      [
        { 'security.protocol': 'SASL_PLAINTEXT', 'ssl.truststore.location': caFile },
        /'ssl\.truststore\.location' is set but 'security\.protocol' is SASL_PLAINTEXT: use SSL or SASL_SSL/,
      ],
      [
        { 'security.protocol': 'SSL', 'ssl.truststore.location': '/x.jks' },
        /'ssl\.truststore\.type' JKS \(the default\) is not supported: Node's TLS reads PEM/,
      ],
      [
        { 'security.protocol': 'SSL', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': join(dir, 'missing.pem') },
        /'ssl\.truststore\.location' = .*missing\.pem cannot be read/,
      ],
      [
        { 'security.protocol': 'SSL', 'ssl.keystore.location': '/x.jks' },
        /'ssl\.keystore\.type' JKS \(the default\) is not supported: use PKCS12 or PEM/,
      ],
      [{ 'security.protocol': 'SSL', 'ssl.keystore.key': 'K' }, /'ssl\.keystore\.key' and 'ssl\.keystore\.certificate\.chain' go together/],
      [{ 'security.protocol': 'SSL', 'ssl.key.password': 'x' }, /'ssl\.key\.password' is set without a keystore/],
      [{ 'security.protocol': 'SSL', 'ssl.endpoint.identification.algorithm': 'ldap' }, /must be https or empty/],
      [{ 'security.protocol': 'KERBEROS' }, /'security\.protocol' must be one of plaintext, ssl, sasl_plaintext, sasl_ssl/],
    ];
    for (const [config, message] of refused) {
      for (const settings of [consumerSettings, producerSettings]) {
        let caught: unknown;
        try {
          settings(options(config));
        } catch (err) {
          caught = err;
        }
        expect(caught, JSON.stringify(config)).toBeInstanceOf(ConfigError);
        expect((caught as ConfigError).message).toMatch(message);
        expect((caught as ConfigError).place).toMatchObject({ file: 'job.conf', line: 7 });
      }
    }
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
      [consumerSettings, 'sasl.kerberos.service.name'],
      [consumerSettings, 'session.timeout.ms'],
      [producerSettings, 'linger.ms'],
      [producerSettings, 'max.block.ms'],
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
