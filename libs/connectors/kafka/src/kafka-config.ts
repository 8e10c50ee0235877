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
  'transaction.timeout.ms': (t, v, o, k) => {
    const n = nonNegativeInt(o, k, v);
    if (n < 1000) throw bad(o, `kafka.config '${k}' must be 1000 ms or more, got '${String(v)}'.`);
    t.transactionTimeoutMs = n;
  },
};

/** The keys each side maps, for docs and messages. */
export const CONSUMER_CONFIG_KEYS: readonly string[] = Object.keys(CONSUMER);
export const PRODUCER_CONFIG_KEYS: readonly string[] = Object.keys(PRODUCER);

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

function apply<T>(options: PluginOptions, side: Side, table: Record<string, Apply<T>>, target: T): T {
  for (const [key, value] of entries(options)) {
    const f = table[key];
    if (!f) throw refuse(options, side, key);
    f(target, value, options, key);
  }
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
