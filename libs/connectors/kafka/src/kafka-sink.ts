import { murmur2, Producer } from '@platformatic/kafka';
import type { MessageToProduce } from '@platformatic/kafka';
import type { CatalogTable, PluginContext, PluginOptions, PluginSpec, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { brokerList, connectTimeoutMs, errorText, hasApiError, isUnknownTopic, withDeadline } from './client.js';
import { compileEncoder, KAFKA_FORMATS, KAFKA_FORMATS_NOT_YET, type KafkaFormat } from './formats.js';
import { PRODUCER_CONFIG_KEYS, producerSettings, type ProducerSettings } from './kafka-config.js';

const SEMANTICS = ['NON', 'AT_LEAST_ONCE', 'EXACTLY_ONCE'] as const;
type Semantics = (typeof SEMANTICS)[number];

export const kafkaSinkSpec: PluginSpec = {
  options: [
    { name: 'bootstrap.servers', type: 'string', required: true, description: 'Kafka brokers, `host:port[,host:port...]`.' },
    {
      name: 'topic',
      type: 'string',
      required: true,
      description: 'The topic written to (`${...}` routing per table: not supported yet, refused).',
    },
    {
      name: 'semantics',
      type: 'enum',
      values: [...SEMANTICS],
      default: 'NON',
      description:
        'NON: acks=1, each batch sent before the next; AT_LEAST_ONCE: the idempotent producer with acks=all, every row acknowledged before a checkpoint completes. EXACTLY_ONCE: not supported yet, refused.',
    },
    {
      name: 'partition_key_fields',
      type: 'list',
      description:
        "Fields whose values form the message key (encoded in the sink's format); the partition is the key's murmur2 hash, as Kafka's Java producer picks it.",
    },
    { name: 'partition', type: 'int', min: 0, description: 'Write every message to this partition.' },
    {
      name: 'assign_partitions',
      type: 'list',
      description:
        'Partition by content: a message whose value contains the i-th string goes to partition i; the others are spread over the remaining partitions by a hash of their value.',
    },
    { name: 'transaction_prefix', type: 'string', description: 'Prefix of transactional ids (EXACTLY_ONCE): not supported yet, refused.' },
    {
      name: 'format',
      type: 'enum',
      values: [...KAFKA_FORMATS, ...KAFKA_FORMATS_NOT_YET],
      default: 'json',
      description: `Message format: json or text (${KAFKA_FORMATS_NOT_YET.join(', ')}: not supported yet, refused).`,
    },
    { name: 'field_delimiter', type: 'string', default: ',', description: 'Field delimiter of the text format.' },
    {
      name: 'kafka.config',
      type: 'map',
      description: `Java producer properties the Node client honours: ${PRODUCER_CONFIG_KEYS.join(', ')}. Any other key is refused.`,
    },
  ],
};

interface SinkConfig {
  readonly bootstrap: string;
  readonly topic: string;
  readonly semantics: Semantics;
  readonly keyFields: readonly number[];
  readonly partition?: number;
  readonly assignPartitions: readonly string[];
  readonly format: KafkaFormat;
  readonly fieldDelimiter: string;
  readonly settings: ProducerSettings;
}

function bad(o: PluginOptions, option: string, message: string, code: ErrorCode = ErrorCode.CONFIG_BAD_VALUE): ConfigError {
  return new ConfigError(code, message, { place: o.place(option) });
}

function readConfig(o: PluginOptions, table: CatalogTable): SinkConfig {
  const semantics = o.get<Semantics>('semantics');
  if (semantics === 'EXACTLY_ONCE')
    throw bad(
      o,
      'semantics',
      'semantics = EXACTLY_ONCE is not supported yet by the Kafka sink (NON and AT_LEAST_ONCE are).',
      ErrorCode.CONFIG_UNKNOWN_OPTION,
    );
  if (o.has('transaction_prefix')) {
    throw bad(
      o,
      'transaction_prefix',
      "option 'transaction_prefix' is not supported yet by the Kafka sink (it belongs to EXACTLY_ONCE).",
      ErrorCode.CONFIG_UNKNOWN_OPTION,
    );
  }
  const topic = o.get<string>('topic');
  if (topic.includes('${'))
    throw bad(
      o,
      'topic',
      `topic '${topic}': per-table topic routing is not supported yet by the Kafka sink.`,
      ErrorCode.CONFIG_UNKNOWN_OPTION,
    );
  const format = o.get<string>('format');
  if (!(KAFKA_FORMATS as readonly string[]).includes(format)) {
    throw bad(o, 'format', `format '${format}' is not supported yet by the Kafka sink (it writes ${KAFKA_FORMATS.join(', ')}).`);
  }
  const names = table.columns.map((c) => c.name);
  const keyFields = (o.get<string[] | undefined>('partition_key_fields') ?? []).map((f) => {
    const i = names.indexOf(f);
    if (i < 0)
      throw bad(
        o,
        'partition_key_fields',
        `partition_key_fields names '${f}', which table ${table.tableId} does not have (it has ${names.join(', ')}).`,
      );
    return i;
  });
  const given = ['partition', 'assign_partitions'].filter((n) => o.has(n));
  if (given.length > 1) throw bad(o, 'assign_partitions', "'partition' and 'assign_partitions' cannot both be set.");
  const fieldDelimiter = o.get<string>('field_delimiter');
  if (fieldDelimiter === '') throw bad(o, 'field_delimiter', 'field_delimiter must not be empty.');
  return {
    bootstrap: o.get<string>('bootstrap.servers'),
    topic,
    semantics,
    keyFields,
    partition: o.has('partition') ? o.get<number>('partition') : undefined,
    assignPartitions: o.get<string[] | undefined>('assign_partitions') ?? [],
    format: format as KafkaFormat,
    fieldDelimiter,
    settings: producerSettings(o),
  };
}

/** Java's positive murmur2 hash of the bytes (its Utils.toPositive(Utils.murmur2(...))). */
function positiveMurmur2(bytes: Buffer): number {
  return murmur2(bytes) & 0x7fffffff;
}

class KafkaWriter implements SinkWriter {
  private producer?: Producer;
  private partitions = 0;
  private readonly encodeValue: (fields: readonly unknown[]) => Buffer;
  private readonly encodeKey?: (fields: readonly unknown[]) => Buffer;
  private roundRobin = 0;

  constructor(
    private readonly cfg: SinkConfig,
    table: CatalogTable,
    private readonly subtask: number,
  ) {
    const columns = table.columns.map((c) => ({ name: c.name, type: c.type }));
    this.encodeValue = compileEncoder(columns, cfg.format, cfg.fieldDelimiter);
    if (cfg.keyFields.length > 0) {
      const keyColumns = cfg.keyFields.map((i) => columns[i]);
      const encode = compileEncoder(keyColumns, cfg.format, cfg.fieldDelimiter);
      this.encodeKey = (fields) => encode(cfg.keyFields.map((i) => fields[i]));
    }
    this.roundRobin = subtask;
  }

  private async open(): Promise<Producer> {
    if (this.producer) return this.producer;
    const s = this.cfg.settings;
    const atLeastOnce = this.cfg.semantics === 'AT_LEAST_ONCE';
    const idempotent = s.idempotent ?? atLeastOnce;
    const acks = s.acks ?? (atLeastOnce ? -1 : 1);
    if (atLeastOnce && acks !== -1) {
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `semantics = AT_LEAST_ONCE needs acks = all; kafka.config sets acks = ${acks}.`);
    }
    const producer = new Producer({
      clientId: s.clientId ?? `tideway-kafka-sink-${this.subtask}`,
      bootstrapBrokers: brokerList(this.cfg.bootstrap),
      timeout: s.timeout,
      connectTimeout: connectTimeoutMs(s),
      retries: s.retries ?? 3,
      retryDelay: s.retryDelay,
      metadataMaxAge: s.metadataMaxAge,
      idempotent,
      acks,
      compression: s.compression,
      autocreateTopics: s.autocreateTopics ?? true,
    });
    const topic = this.cfg.topic;
    let metadata;
    try {
      metadata = await withDeadline(this.cfg.bootstrap, connectTimeoutMs(s), `reading the metadata of topic ${topic}`, () =>
        producer.metadata({ topics: [topic], autocreateTopics: s.autocreateTopics ?? true }),
      );
    } catch (err) {
      await producer.close().catch(() => undefined);
      if (isUnknownTopic(err)) {
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `topic ${topic} does not exist at ${this.cfg.bootstrap} (kafka.config allow.auto.create.topics is false).`,
        );
      }
      throw err;
    }
    this.partitions = metadata.topics.get(topic)?.partitionsCount ?? 0;
    if (this.partitions === 0) {
      await producer.close().catch(() => undefined);
      throw new TidewayError(ErrorCode.TASK_FAILED, `topic ${topic} does not exist at ${this.cfg.bootstrap}.`);
    }
    if (this.cfg.partition !== undefined && this.cfg.partition >= this.partitions) {
      await producer.close().catch(() => undefined);
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `partition = ${this.cfg.partition}, but topic ${topic} has ${this.partitions} partitions.`,
      );
    }
    this.producer = producer;
    return producer;
  }

  private partitionOf(value: Buffer, key: Buffer | undefined): number {
    const cfg = this.cfg;
    if (cfg.partition !== undefined) return cfg.partition;
    if (cfg.assignPartitions.length > 0) {
      const text = value.toString('utf8');
      for (let i = 0; i < cfg.assignPartitions.length && i < this.partitions; i++) if (text.includes(cfg.assignPartitions[i])) return i;
      const rest = this.partitions - cfg.assignPartitions.length;
      return rest > 0 ? cfg.assignPartitions.length + (positiveMurmur2(value) % rest) : positiveMurmur2(value) % this.partitions;
    }
    if (key) return positiveMurmur2(key) % this.partitions;
    return this.roundRobin;
  }

  async write(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    const producer = await this.open();
    // Keyless rows of one batch go to one partition, the next batch to the next (as Java's
    // sticky partitioner fills one batch at a time).
    this.roundRobin = (this.roundRobin + 1) % this.partitions;
    const messages: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[] = [];
    for (const row of rows) {
      const fields = row.fields;
      const value = this.encodeValue(fields);
      const key = this.encodeKey?.(fields);
      messages.push({ topic: this.cfg.topic, key, value, partition: this.partitionOf(value, key) });
    }
    try {
      await producer.send({ messages });
    } catch (err) {
      if (hasApiError(err, 'MESSAGE_TOO_LARGE') || hasApiError(err, 'RECORD_LIST_TOO_LARGE')) {
        let largest = messages[0];
        for (const m of messages) if ((m.value?.length ?? 0) > (largest.value?.length ?? 0)) largest = m;
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `a message of ${largest.value?.length ?? 0} bytes for topic ${this.cfg.topic} partition ${String(largest.partition)} is larger than the broker at ${this.cfg.bootstrap} accepts (max.message.bytes).`,
        );
      }
      throw new TidewayError(
        ErrorCode.TASK_FAILED,
        `writing to topic ${this.cfg.topic} at ${this.cfg.bootstrap} failed: ${errorText(err)}`,
        { retryable: true },
      );
    }
  }

  /** Every row written so far was acknowledged in write(): nothing is left to flush at the barrier. */
  prepareCommit(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    await this.producer?.close();
  }
}

/** SeaTunnel's Kafka sink: json or text messages, keyed or partitioned as it does. */
export const kafkaSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Kafka',
  description:
    'Writes rows to a Kafka topic as json or text messages, with keys from partition_key_fields, a fixed partition or content-assigned partitions; NON or AT_LEAST_ONCE (the idempotent producer, every row acknowledged before its checkpoint completes).',
  spec: kafkaSinkSpec,
  create(ctx: PluginContext): Sink {
    const o = ctx.options;
    if (ctx.inputTables.length > 1) {
      throw bad(
        o,
        'plugin_input',
        `the Kafka sink takes one table; it is given ${ctx.inputTables.length} (multi-table routing is not supported yet).`,
        ErrorCode.CONFIG_UNKNOWN_OPTION,
      );
    }
    const table = ctx.inputTables[0];
    if (!table) throw bad(o, 'plugin_input', 'the Kafka sink has no input table.');
    const cfg = readConfig(o, table);
    return {
      createWriter: (wctx) => new KafkaWriter(cfg, table, wctx.subtaskIndex),
    };
  },
};
