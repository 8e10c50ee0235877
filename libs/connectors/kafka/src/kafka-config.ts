import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import * as zlib from 'node:zlib';
import type { PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';

/**
 * SeaTunnel's `kafka.config` passes Java client properties through. Each property the Node client
 * (@platformatic/kafka, decision 0043) can honour is mapped to its setting here; every other key is
 * refused by name when the job is planned, so that no property is accepted and then ignored.
 */

/** What both sides take from kafka.config: the client's connection and retries. */
export interface ClientSettings {
  clientId?: string;
  /** request.timeout.ms: how long one request may take. */
  timeout?: number;
  /** socket.connection.setup.timeout.ms */
  connectTimeout?: number;
  retries?: number;
  retryDelay?: number;
  metadataMaxAge?: number;
  /** SASL and TLS, from security.protocol, sasl.* and ssl.* (plain data: options travel to tasks). */
  security?: SecuritySettings;
}

export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface SecuritySettings {
  sasl?: { mechanism: SaslMechanism; username: string; password: string };
  tls?: {
    /** PEM texts. */
    ca?: string;
    cert?: string;
    key?: string;
    /** A PKCS#12 keystore, base64. */
    pfx?: string;
    passphrase?: string;
    /** ssl.endpoint.identification.algorithm: https (the default) checks the broker's name; empty does not. */
    verifyHostname: boolean;
  };
}

/** The raw security keys as kafka.config gives them, before they are checked together. */
interface SecurityKeys {
  'security.protocol'?: string;
  'sasl.mechanism'?: string;
  'sasl.jaas.config'?: string;
  'ssl.truststore.type'?: string;
  'ssl.truststore.location'?: string;
  'ssl.truststore.certificates'?: string;
  'ssl.keystore.type'?: string;
  'ssl.keystore.location'?: string;
  'ssl.keystore.password'?: string;
  'ssl.keystore.key'?: string;
  'ssl.keystore.certificate.chain'?: string;
  'ssl.key.password'?: string;
  'ssl.endpoint.identification.algorithm'?: string;
}

const SECURITY_KEYS: readonly (keyof SecurityKeys)[] = [
  'security.protocol',
  'sasl.mechanism',
  'sasl.jaas.config',
  'ssl.truststore.type',
  'ssl.truststore.location',
  'ssl.truststore.certificates',
  'ssl.keystore.type',
  'ssl.keystore.location',
  'ssl.keystore.password',
  'ssl.keystore.key',
  'ssl.keystore.certificate.chain',
  'ssl.key.password',
  'ssl.endpoint.identification.algorithm',
];

/** What the Node client's constructors and connections take for `s.security`. */
export function connectionSecurity(s: ClientSettings): { sasl?: SecuritySettings['sasl']; tls?: TlsOptions } {
  const sec = s.security;
  if (!sec) return {};
  const t = sec.tls;
  const tls: TlsOptions | undefined = t && {
    ...(t.ca !== undefined ? { ca: t.ca } : {}),
    ...(t.cert !== undefined ? { cert: t.cert } : {}),
    ...(t.key !== undefined ? { key: t.key } : {}),
    ...(t.pfx !== undefined ? { pfx: Buffer.from(t.pfx, 'base64') } : {}),
    ...(t.passphrase !== undefined ? { passphrase: t.passphrase } : {}),
    ...(t.verifyHostname ? {} : { checkServerIdentity: () => undefined }),
  };
  return { ...(sec.sasl ? { sasl: sec.sasl } : {}), ...(tls ? { tls } : {}) };
}

/** What a consumer (the source) takes from kafka.config. */
export interface ConsumerSettings extends ClientSettings {
  minBytes?: number;
  maxBytes?: number;
  maxBytesPerPartition?: number;
  maxWaitTime?: number;
  /** 1 = read_committed (the default), 0 = read_uncommitted. */
  isolationLevel: 0 | 1;
  /** Where group_offsets starts on partitions the group has no offset for. */
  autoOffsetReset: 'earliest' | 'latest';
  /** max.poll.records: the most records one poll hands on. */
  maxPollRecords?: number;
  /** check.crcs: whether each record batch's CRC-32C is checked (default true, as Java's consumer). */
  checkCrcs?: boolean;
}

export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** What a producer (the sink) takes from kafka.config. */
export interface ProducerSettings extends ClientSettings {
  /** -1 (all), 0 or 1; undefined: as the sink's semantics choose. */
  acks?: -1 | 0 | 1;
  compression?: Compression;
  /** enable.idempotence; undefined: as the sink's semantics choose. */
  idempotent?: boolean;
  /** allow.auto.create.topics: whether writing to a missing topic creates it. */
  autocreateTopics?: boolean;
  /** transaction.timeout.ms (EXACTLY_ONCE only). */
  transactionTimeoutMs?: number;
  /** buffer.memory: the most bytes of records (keys and values) handed to the client in one send. */
  bufferMemory?: number;
}

type Side = 'consumer' | 'producer';

function place(options: PluginOptions): ReturnType<PluginOptions['place']> {
  return options.place('kafka.config');
}

function bad(options: PluginOptions, message: string): ConfigError {
  return new ConfigError(ErrorCode.CONFIG_BAD_VALUE, message, { place: place(options) });
}

function nonNegativeInt(options: PluginOptions, key: string, value: unknown): number {
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(n) || n < 0)
    throw bad(options, `kafka.config '${key}' must be a whole number of 0 or more, got '${String(value)}'.`);
  return n;
}

function bool(options: PluginOptions, key: string, value: unknown): boolean {
  const s = String(value).trim().toLowerCase();
  if (s === 'true' || s === 'false') return s === 'true';
  throw bad(options, `kafka.config '${key}' must be true or false, got '${String(value)}'.`);
}

function oneOf<T extends string>(options: PluginOptions, key: string, value: unknown, allowed: readonly T[]): T {
  const s = String(value).trim().toLowerCase();
  const found = allowed.find((a) => a === s);
  if (!found) throw bad(options, `kafka.config '${key}' must be one of ${allowed.join(', ')}, got '${String(value)}'.`);
  return found;
}

/**
 * Java's JAAS line, `<LoginModule class> <flag> key="value" ...;`, for the two login modules the
 * client's mechanisms use; `username` and `password` are what it needs.
 */
export function parseJaas(text: string): { module: 'plain' | 'scram'; options: Record<string, string> } | string {
  const m = /^\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\b([\s\S]*?);?\s*$/.exec(text);
  if (!m) return 'is not a JAAS login module line (<LoginModule> required username="..." password="...";)';
  const cls = m[1];
  const module =
    cls === 'org.apache.kafka.common.security.plain.PlainLoginModule'
      ? 'plain'
      : cls === 'org.apache.kafka.common.security.scram.ScramLoginModule'
        ? 'scram'
        : undefined;
  if (!module) return `names the login module ${cls}, which is not supported (PlainLoginModule or ScramLoginModule)`;
  const options: Record<string, string> = {};
  const rest = m[3];
  const pair = /\s*([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))/y;
  let at = 0;
  while (rest.slice(at).trim() !== '') {
    pair.lastIndex = at;
    const p = pair.exec(rest);
    if (!p) return `cannot be read near '${rest.slice(at).trim().slice(0, 30)}'`;
    options[p[1]] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
    at = pair.lastIndex;
  }
  return { module, options };
}

function readPem(options: PluginOptions, key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw bad(options, `kafka.config '${key}' = ${path} cannot be read: ${(err as Error).message}.`);
  }
}

/** Checks the security keys together and turns them into settings the tasks can use. */
function securitySettings(options: PluginOptions, raw: SecurityKeys): SecuritySettings | undefined {
  if (Object.keys(raw).length === 0) return undefined;
  const protocol = oneOf(options, 'security.protocol', raw['security.protocol'] ?? 'PLAINTEXT', [
    'plaintext',
    'ssl',
    'sasl_plaintext',
    'sasl_ssl',
  ]);
  const useSasl = protocol.startsWith('sasl_');
  const useTls = protocol.endsWith('ssl');
  const set = (keys: readonly (keyof SecurityKeys)[]) => keys.filter((k) => raw[k] !== undefined);
  const saslKeys = set(['sasl.mechanism', 'sasl.jaas.config']);
  if (!useSasl && saslKeys.length > 0)
    throw bad(
      options,
      `kafka.config '${saslKeys[0]}' is set but 'security.protocol' is ${protocol.toUpperCase()}: use SASL_PLAINTEXT or SASL_SSL.`,
    );
  const sslKeys = set(SECURITY_KEYS.filter((k) => k.startsWith('ssl.')));
  if (!useTls && sslKeys.length > 0)
    throw bad(options, `kafka.config '${sslKeys[0]}' is set but 'security.protocol' is ${protocol.toUpperCase()}: use SSL or SASL_SSL.`);
  const out: SecuritySettings = {};
  if (useSasl) {
    const mechanism = (raw['sasl.mechanism'] ?? 'GSSAPI').trim().toUpperCase();
    if (mechanism !== 'PLAIN' && mechanism !== 'SCRAM-SHA-256' && mechanism !== 'SCRAM-SHA-512')
      throw bad(
        options,
        `kafka.config 'sasl.mechanism' = ${mechanism}${raw['sasl.mechanism'] === undefined ? ' (the default)' : ''} is not supported: Tideway's Kafka client speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512.`,
      );
    const jaasText = raw['sasl.jaas.config'];
    if (jaasText === undefined)
      throw bad(
        options,
        `kafka.config 'sasl.jaas.config' is needed with security.protocol ${protocol.toUpperCase()} (the user and password).`,
      );
    const jaas = parseJaas(jaasText);
    if (typeof jaas === 'string') throw bad(options, `kafka.config 'sasl.jaas.config' ${jaas}.`);
    const wanted = mechanism === 'PLAIN' ? 'plain' : 'scram';
    if (jaas.module !== wanted)
      throw bad(
        options,
        `kafka.config 'sasl.jaas.config' names the ${jaas.module === 'plain' ? 'PlainLoginModule' : 'ScramLoginModule'}, which does not go with sasl.mechanism ${mechanism}.`,
      );
    const { username, password, ...others } = jaas.options;
    if (username === undefined || password === undefined)
      throw bad(options, `kafka.config 'sasl.jaas.config' needs username="..." and password="...".`);
    const extra = Object.keys(others);
    if (extra.length > 0)
      throw bad(options, `kafka.config 'sasl.jaas.config' option ${extra[0]} is not supported (username and password).`);
    out.sasl = { mechanism, username, password };
  }
  if (useTls) {
    const tls: NonNullable<SecuritySettings['tls']> = { verifyHostname: true };
    const trustType = (raw['ssl.truststore.type'] ?? (raw['ssl.truststore.certificates'] !== undefined ? 'PEM' : 'JKS'))
      .trim()
      .toUpperCase();
    if (raw['ssl.truststore.location'] !== undefined || raw['ssl.truststore.certificates'] !== undefined) {
      if (trustType !== 'PEM')
        throw bad(
          options,
          `kafka.config 'ssl.truststore.type' ${trustType}${raw['ssl.truststore.type'] === undefined ? ' (the default)' : ''} is not supported: Node's TLS reads PEM truststores (export the CA certificates with keytool -exportcert -rfc, and set ssl.truststore.type = PEM).`,
        );
      tls.ca = raw['ssl.truststore.certificates'] ?? readPem(options, 'ssl.truststore.location', raw['ssl.truststore.location']!);
    }
    const keyKeys = set(['ssl.keystore.location', 'ssl.keystore.key', 'ssl.keystore.certificate.chain']);
    if (keyKeys.length > 0) {
      const inline = raw['ssl.keystore.key'] !== undefined || raw['ssl.keystore.certificate.chain'] !== undefined;
      const keyType = (raw['ssl.keystore.type'] ?? (inline ? 'PEM' : 'JKS')).trim().toUpperCase();
      if (keyType === 'PKCS12') {
        if (raw['ssl.keystore.location'] === undefined)
          throw bad(options, `kafka.config 'ssl.keystore.type' PKCS12 needs 'ssl.keystore.location'.`);
        try {
          tls.pfx = readFileSync(raw['ssl.keystore.location']).toString('base64');
        } catch (err) {
          throw bad(
            options,
            `kafka.config 'ssl.keystore.location' = ${raw['ssl.keystore.location']} cannot be read: ${(err as Error).message}.`,
          );
        }
        tls.passphrase = raw['ssl.keystore.password'] ?? raw['ssl.key.password'];
      } else if (keyType === 'PEM') {
        if (inline) {
          if (raw['ssl.keystore.key'] === undefined || raw['ssl.keystore.certificate.chain'] === undefined)
            throw bad(options, `kafka.config 'ssl.keystore.key' and 'ssl.keystore.certificate.chain' go together.`);
          tls.key = raw['ssl.keystore.key'];
          tls.cert = raw['ssl.keystore.certificate.chain'];
        } else {
          // One PEM file with the private key and the certificate chain, as Kafka's PEM keystore.
          const pem = readPem(options, 'ssl.keystore.location', raw['ssl.keystore.location']!);
          tls.key = pem;
          tls.cert = pem;
        }
        tls.passphrase = raw['ssl.key.password'];
      } else {
        throw bad(
          options,
          `kafka.config 'ssl.keystore.type' ${keyType}${raw['ssl.keystore.type'] === undefined ? ' (the default)' : ''} is not supported: use PKCS12 or PEM.`,
        );
      }
    } else if (raw['ssl.keystore.password'] !== undefined || raw['ssl.key.password'] !== undefined) {
      throw bad(
        options,
        `kafka.config '${raw['ssl.keystore.password'] !== undefined ? 'ssl.keystore.password' : 'ssl.key.password'}' is set without a keystore (ssl.keystore.location, or ssl.keystore.key with ssl.keystore.certificate.chain).`,
      );
    } else if (raw['ssl.keystore.type'] !== undefined) {
      throw bad(options, `kafka.config 'ssl.keystore.type' is set without a keystore (ssl.keystore.location).`);
    }
    const algorithm = raw['ssl.endpoint.identification.algorithm'];
    if (algorithm !== undefined) {
      const a = algorithm.trim().toLowerCase();
      if (a !== '' && a !== 'https')
        throw bad(options, `kafka.config 'ssl.endpoint.identification.algorithm' must be https or empty, got '${algorithm}'.`);
      tls.verifyHostname = a === 'https';
    }
    out.tls = tls;
  }
  return out;
}

type Apply<T> = (target: T, value: unknown, options: PluginOptions, key: string) => void;

const COMMON: Record<string, Apply<ClientSettings>> = {
  'client.id': (t, v) => {
    t.clientId = String(v);
  },
  'request.timeout.ms': (t, v, o, k) => {
    t.timeout = nonNegativeInt(o, k, v);
  },
  'socket.connection.setup.timeout.ms': (t, v, o, k) => {
    t.connectTimeout = nonNegativeInt(o, k, v);
  },
  retries: (t, v, o, k) => {
    t.retries = nonNegativeInt(o, k, v);
  },
  'retry.backoff.ms': (t, v, o, k) => {
    t.retryDelay = nonNegativeInt(o, k, v);
  },
  'metadata.max.age.ms': (t, v, o, k) => {
    t.metadataMaxAge = nonNegativeInt(o, k, v);
  },
};

const CONSUMER: Record<string, Apply<ConsumerSettings>> = {
  ...COMMON,
  'fetch.min.bytes': (t, v, o, k) => {
    t.minBytes = nonNegativeInt(o, k, v);
  },
  'fetch.max.bytes': (t, v, o, k) => {
    t.maxBytes = nonNegativeInt(o, k, v);
  },
  'max.partition.fetch.bytes': (t, v, o, k) => {
    t.maxBytesPerPartition = nonNegativeInt(o, k, v);
  },
  'fetch.max.wait.ms': (t, v, o, k) => {
    t.maxWaitTime = nonNegativeInt(o, k, v);
  },
  'isolation.level': (t, v, o, k) => {
    t.isolationLevel = oneOf(o, k, v, ['read_committed', 'read_uncommitted']) === 'read_committed' ? 1 : 0;
  },
  'auto.offset.reset': (t, v, o, k) => {
    t.autoOffsetReset = oneOf(o, k, v, ['earliest', 'latest']);
  },
  'check.crcs': (t, v, o, k) => {
    t.checkCrcs = bool(o, k, v);
  },
  'max.poll.records': (t, v, o, k) => {
    const n = nonNegativeInt(o, k, v);
    if (n < 1) throw bad(o, `kafka.config '${k}' must be 1 or more, got '${String(v)}'.`);
    t.maxPollRecords = n;
  },
  // The source commits offsets itself when a checkpoint completes (commit_on_checkpoint): the
  // Java client's own auto-commit has no counterpart, so only `false` is accepted.
  'enable.auto.commit': (_t, v, o, k) => {
    if (bool(o, k, v)) {
      throw bad(
        o,
        `kafka.config 'enable.auto.commit' = true is not supported: offsets are committed when a checkpoint completes (commit_on_checkpoint).`,
      );
    }
  },
};

const PRODUCER: Record<string, Apply<ProducerSettings>> = {
  ...COMMON,
  acks: (t, v, o, k) => {
    const s = oneOf(o, k, v, ['all', '-1', '0', '1']);
    t.acks = s === 'all' || s === '-1' ? -1 : s === '0' ? 0 : 1;
  },
  'compression.type': (t, v, o, k) => {
    const c = oneOf(o, k, v, ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const);
    if (c === 'zstd' && typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync !== 'function') {
      throw bad(
        o,
        `kafka.config 'compression.type' = zstd needs Node.js 22.15 or later (this is ${process.version}); use gzip, snappy or lz4.`,
      );
    }
    t.compression = c;
  },
  'enable.idempotence': (t, v, o, k) => {
    t.idempotent = bool(o, k, v);
  },
  'allow.auto.create.topics': (t, v, o, k) => {
    t.autocreateTopics = bool(o, k, v);
  },
  'buffer.memory': (t, v, o, k) => {
    const n = nonNegativeInt(o, k, v);
    if (n < 1) throw bad(o, `kafka.config '${k}' must be 1 or more, got '${String(v)}'.`);
    t.bufferMemory = n;
  },
  'transaction.timeout.ms': (t, v, o, k) => {
    const n = nonNegativeInt(o, k, v);
    if (n < 1000) throw bad(o, `kafka.config '${k}' must be 1000 ms or more, got '${String(v)}'.`);
    t.transactionTimeoutMs = n;
  },
};

/** The keys each side maps, for docs and messages. */
export const CONSUMER_CONFIG_KEYS: readonly string[] = [...Object.keys(CONSUMER), ...SECURITY_KEYS];
export const PRODUCER_CONFIG_KEYS: readonly string[] = [...Object.keys(PRODUCER), ...SECURITY_KEYS];

function entries(options: PluginOptions): [string, unknown][] {
  const raw = options.get<Record<string, unknown> | undefined>('kafka.config');
  return raw ? Object.entries(raw) : [];
}

function refuse(options: PluginOptions, side: Side, key: string): ConfigError {
  const known = side === 'consumer' ? CONSUMER_CONFIG_KEYS : PRODUCER_CONFIG_KEYS;
  return new ConfigError(
    ErrorCode.CONFIG_UNKNOWN_OPTION,
    `kafka.config '${key}' is not supported by Tideway's Kafka ${side === 'consumer' ? 'source' : 'sink'} (it takes ${known.join(', ')}).`,
    { place: place(options) },
  );
}

function apply<T extends ClientSettings>(options: PluginOptions, side: Side, table: Record<string, Apply<T>>, target: T): T {
  const security: SecurityKeys = {};
  for (const [key, value] of entries(options)) {
    if ((SECURITY_KEYS as readonly string[]).includes(key)) {
      security[key as keyof SecurityKeys] = String(value);
      continue;
    }
    const f = table[key];
    if (!f) throw refuse(options, side, key);
    f(target, value, options, key);
  }
  const sec = securitySettings(options, security);
  if (sec) target.security = sec;
  return target;
}

/** The consumer settings of a source's kafka.config; throws ConfigError naming a key it cannot honour. */
export function consumerSettings(options: PluginOptions): ConsumerSettings {
  return apply(options, 'consumer', CONSUMER, { isolationLevel: 1, autoOffsetReset: 'earliest' });
}

/** The producer settings of a sink's kafka.config; throws ConfigError naming a key it cannot honour. */
export function producerSettings(options: PluginOptions): ProducerSettings {
  return apply(options, 'producer', PRODUCER, {});
}
