import { murmur2, Producer } from '#kafka-client';
import type { MessageToProduce } from '#kafka-client';
import type { CatalogTable, DataType, PluginContext, PluginOptions, PluginSpec, Row, Sink, SinkFactory, SinkWriter } from '@tideway/api';
import { substituteTablePlaceholders } from '@tideway/connector-file-common/formats';
import { ConfigError, ErrorCode, logger, sleep, TidewayError } from '@tideway/common';
import { brokerList, connectTimeoutMs, errorText, hasApiError, isUnknownTopic, withDeadline } from './client.js';
import { compileEncoder, formatProblem, KAFKA_FORMAT_NAMES, KAFKA_SINK_FORMATS, type KafkaSinkFormat } from './formats.js';
import { compileRecordEncoder, type EncodedRecord, isRecordFormat, recordColumnsProblem } from './record-formats.js';
import { PROTOBUF_OPTION_SPECS, protobufMessage, protobufOptions, type ProtobufSchema } from './protobuf-format.js';
import { connectionSecurity, PRODUCER_CONFIG_KEYS, producerSettings, type ProducerSettings } from './kafka-config.js';
import {
  BROKER_MAX_TRANSACTION_TIMEOUT_MS,
  abandonTransactions,
  commitAll,
  DEFAULT_TRANSACTION_TIMEOUT_MS,
  isLost,
  type KafkaCommitInfo,
  type KafkaWriterState,
  type LiveTransactions,
  restoredCounters,
  transactionalId,
  transactionalProducer,
  type TransactionalConfig,
} from './transactions.js';

const log = logger('kafka-sink');

const SEMANTICS = ['NON', 'AT_LEAST_ONCE', 'EXACTLY_ONCE'] as const;
type Semantics = (typeof SEMANTICS)[number];

export const kafkaSinkSpec: PluginSpec = {
  options: [
    { name: 'bootstrap.servers', type: 'string', required: true, description: 'Kafka brokers, `host:port[,host:port...]`.' },
    {
      name: 'topic',
      type: 'string',
      description:
        "The topic written to (required, except with format compatible_debezium_json, whose rows carry their topic). As SeaTunnel: ${database_name}, ${schema_name} and ${table_name} are each input table's (a multi-table sink writes each table to its topic); a `${column}` left after them makes each row's topic that column's value (the rest of the text is not used, as SeaTunnel's topicExtractor).",
    },
    {
      name: 'semantics',
      type: 'enum',
      values: [...SEMANTICS],
      default: 'NON',
      description:
        "NON: acks=1; AT_LEAST_ONCE: the idempotent producer with acks=all, every row acknowledged before a checkpoint completes; EXACTLY_ONCE: each checkpoint's rows in one Kafka transaction per writer, flushed at the barrier and committed when the checkpoint completes (readers with isolation.level read_committed see each row once). Batches are sent in order, up to 5 at a time, never two at once to one partition (keyless rows of a batch go to one partition); a failed send fails the next batch or checkpoint.",
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
    {
      name: 'transaction_prefix',
      type: 'string',
      description:
        "EXACTLY_ONCE: prefix of the transactional ids, `<prefix>-<subtask>-<n>` (default `tideway-<jobId>-<topic>`; without topic, compatible_debezium_json, `tideway-<jobId>-<plugin_input>`). Give it explicitly when a new job continues from another job's checkpoint, so that it fences that job's producers.",
    },
    {
      name: 'format',
      type: 'enum',
      values: [...KAFKA_FORMAT_NAMES],
      default: 'json',
      description: `Message format: ${KAFKA_SINK_FORMATS.join(', ')}. native (SeaTunnel 2.3.9+): each row is a record, as the source's native format gives them: its headers (map<string, string>), key and value (bytes, null for none), partition and timestamp (bigint, ms) columns are the record's (null partition: by the key's hash, null timestamp: now); partition_key_fields, partition and assign_partitions are refused. compatible_debezium_json: rows of topic, key and value strings, as a CDC source with that format gives Debezium's records, written unchanged, each to its row's topic unless 'topic' is given (partition_key_fields refused: the key is the row's). Value formats (canal_json, maxwell_json and ogg_json as SeaTunnel writes them: {"data": row, "type": INSERT for +I and +U, DELETE for -U and -D}; debezium_json: {"before", "after", "op": c or d}); the others are not supported yet, refused. avro: one Avro datum per message in SeaTunnel's schema (record SeaTunnelRecord, no nullable fields). protobuf: one message of protobuf_message_name per record. Keys (partition_key_fields) are text with format text, avro and protobuf records of the key columns with those formats, json otherwise.`,
    },
    { name: 'field_delimiter', type: 'string', default: ',', description: 'Field delimiter of the text format.' },
    ...PROTOBUF_OPTION_SPECS,
    {
      name: 'kafka.config',
      type: 'map',
      description: `Java producer properties the Node client honours: ${PRODUCER_CONFIG_KEYS.join(', ')}. Security as Kafka's Java client: security.protocol PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL; sasl.mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 with the username and password of sasl.jaas.config (PlainLoginModule or ScramLoginModule); PEM truststores; PKCS12 or PEM keystores (client certificates). Any other key is refused.`,
    },
  ],
  retiredOptions: [
    {
      // SeaTunnel's docs still show it in their examples (and its protobuf e2e config carries it).
      name: 'kafka.request.timeout.ms',
      replacement: 'kafka.config = { request.timeout.ms = ... }',
      history: 'stopped reading `kafka.`-prefixed producer properties in 2.3.1 (apache/seatunnel#4427 moved them into kafka.config)',
    },
  ],
};

interface SinkConfig {
  readonly bootstrap: string;
  /** The topic option as written: a name, or with ${table_name}-style table placeholders and/or one ${column}; undefined: each row's (compatible_debezium_json). */
  readonly topic?: string;
  readonly semantics: Semantics;
  /** partition_key_fields, by name (each input table has them). */
  readonly keyFields: readonly string[];
  readonly partition?: number;
  readonly assignPartitions: readonly string[];
  readonly format: KafkaSinkFormat;
  readonly fieldDelimiter: string;
  /** format = protobuf: the message type's schema. */
  readonly protobuf?: ProtobufSchema;
  readonly settings: ProducerSettings;
  /** EXACTLY_ONCE only. */
  readonly transactions?: TransactionalConfig;
}

function bad(o: PluginOptions, option: string, message: string, code: ErrorCode = ErrorCode.CONFIG_BAD_VALUE): ConfigError {
  return new ConfigError(code, message, { place: o.place(option) });
}

/** The kafka.config keys EXACTLY_ONCE decides itself, or that only it reads. */
function checkSemantics(o: PluginOptions, semantics: Semantics, settings: ProducerSettings): void {
  const config = o.get<Record<string, unknown> | undefined>('kafka.config') ?? {};
  const exactly = semantics === 'EXACTLY_ONCE';
  if (!exactly) {
    if (o.has('transaction_prefix'))
      throw bad(o, 'transaction_prefix', `'transaction_prefix' is read only with semantics = EXACTLY_ONCE (it is ${semantics}).`);
    if ('transaction.timeout.ms' in config)
      throw bad(
        o,
        'kafka.config',
        `kafka.config 'transaction.timeout.ms' is read only with semantics = EXACTLY_ONCE (it is ${semantics}).`,
      );
    return;
  }
  if ('request.timeout.ms' in config)
    throw bad(
      o,
      'kafka.config',
      "kafka.config 'request.timeout.ms' cannot be set with semantics = EXACTLY_ONCE: the Node client sends one timeout as both the produce request's and the transaction's, and the sink sets it to transaction.timeout.ms.",
    );
  if (settings.idempotent === false)
    throw bad(o, 'kafka.config', "semantics = EXACTLY_ONCE needs kafka.config 'enable.idempotence' = true.");
  if (settings.acks !== undefined && settings.acks !== -1)
    throw bad(o, 'kafka.config', `semantics = EXACTLY_ONCE needs kafka.config 'acks' = all; it sets ${settings.acks}.`);
}

/**
 * Says, once at planning, when the transaction timeout is shorter than a transaction may have to
 * stay open: from its first record (just after a barrier) to the next checkpoint's completion.
 */
export function transactionTimeoutConflict(checkpoint: PluginContext['checkpoint'], timeoutMs: number): string | undefined {
  if (!checkpoint?.intervalMs) return undefined;
  const needed = checkpoint.intervalMs + (checkpoint.timeoutMs ?? 0);
  if (timeoutMs >= needed) return undefined;
  const what = checkpoint.timeoutMs === undefined ? 'checkpoint.interval' : 'checkpoint.interval plus checkpoint.timeout';
  return `Kafka sink: transaction.timeout.ms (${timeoutMs} ms) is shorter than ${what} (${needed} ms), so the broker may abort a transaction before its checkpoint completes, and the job then restarts or, when the checkpoint had completed, fails at the commit.`;
}

function warnTimeout(ctx: PluginContext, timeoutMs: number): void {
  const conflict = transactionTimeoutConflict(ctx.checkpoint, timeoutMs);
  if (conflict) log.warn({ transactionTimeoutMs: timeoutMs, checkpoint: ctx.checkpoint }, conflict);
}

/**
 * What names a sink without `topic` (compatible_debezium_json) in its default transaction
 * prefix: its plugin_input, else its block's line, so that two such sinks of a job never share
 * transactional ids (they would fence each other).
 */
function inputsName(o: PluginOptions): string {
  const inputs = o.has('plugin_input') ? o.get<string[] | string>('plugin_input') : undefined;
  if (inputs !== undefined && inputs.length > 0) return Array.isArray(inputs) ? inputs.join('+') : inputs;
  return `line${o.place().line ?? 0}`;
}

function readConfig(o: PluginOptions, ctx: PluginContext): SinkConfig {
  const semantics = o.get<Semantics>('semantics');
  const settings = producerSettings(o);
  checkSemantics(o, semantics, settings);
  const format = o.get<string>('format');
  if (!(KAFKA_SINK_FORMATS as readonly string[]).includes(format)) {
    throw bad(o, 'format', `format '${format}' is not supported by the Kafka sink (it writes ${KAFKA_SINK_FORMATS.join(', ')}).`);
  }
  if (!o.has('topic') && format !== 'compatible_debezium_json')
    throw bad(
      o,
      'topic',
      `the Kafka sink needs 'topic' (only format compatible_debezium_json takes each row's topic).`,
      ErrorCode.CONFIG_MISSING_OPTION,
    );
  const topic = o.has('topic') ? o.get<string>('topic') : undefined;
  const given = ['partition', 'assign_partitions'].filter((n) => o.has(n));
  if (given.length > 1) throw bad(o, 'assign_partitions', "'partition' and 'assign_partitions' cannot both be set.");
  if (isRecordFormat(format)) {
    // The record's key (and, with native, its partition) is the row's.
    const refused = (format === 'native' ? ['partition_key_fields', ...given] : ['partition_key_fields']).find((n) => o.has(n));
    if (refused)
      throw bad(
        o,
        refused,
        `'${refused}' cannot be set with format ${format}: each row carries its record's key${format === 'native' ? ' and partition' : ''}.`,
      );
  }
  const fieldDelimiter = o.get<string>('field_delimiter');
  if (fieldDelimiter === '') throw bad(o, 'field_delimiter', 'field_delimiter must not be empty.');
  const bootstrap = o.get<string>('bootstrap.servers');
  let transactions: TransactionalConfig | undefined;
  if (semantics === 'EXACTLY_ONCE') {
    const transactionTimeoutMs = settings.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS;
    if (transactionTimeoutMs > BROKER_MAX_TRANSACTION_TIMEOUT_MS)
      log.info(
        { transactionTimeoutMs },
        `transaction.timeout.ms is above the broker's default transaction.max.timeout.ms (${BROKER_MAX_TRANSACTION_TIMEOUT_MS}); brokers not configured for it refuse it`,
      );
    warnTimeout(ctx, transactionTimeoutMs);
    const prefix = o.has('transaction_prefix') ? o.get<string>('transaction_prefix') : `tideway-${ctx.jobId}-${topic ?? inputsName(o)}`;
    if (prefix.trim() === '') throw bad(o, 'transaction_prefix', 'transaction_prefix must not be empty.');
    transactions = { bootstrap, prefix, settings, transactionTimeoutMs };
  }
  return {
    bootstrap,
    topic,
    semantics,
    keyFields: o.get<string[] | undefined>('partition_key_fields') ?? [],
    partition: o.has('partition') ? o.get<number>('partition') : undefined,
    assignPartitions: o.get<string[] | undefined>('assign_partitions') ?? [],
    format: format as KafkaSinkFormat,
    fieldDelimiter,
    protobuf: undefined,
    settings,
    transactions,
  };
}

/** How the rows of one input table become records: their topic, value and key. */
interface TableRoute {
  readonly tableId: string;
  readonly columns: readonly { name: string; type: DataType }[];
  /** The topic with the table's placeholders replaced; undefined: each row's (compatible_debezium_json). */
  readonly topic?: string;
  /** As SeaTunnel's topicExtractor: `${column}` left in the topic makes the whole topic that column's value, row by row. */
  readonly topicField?: number;
  readonly keyFields: readonly number[];
}

/** Each input table's route, checked at planning (its format, key fields, topic column) with the option's line. */
function tableRoutes(
  o: PluginOptions,
  cfg: SinkConfig,
  tables: readonly CatalogTable[],
): { routes: TableRoute[]; protobuf?: ProtobufSchema } {
  let protobuf: ProtobufSchema | undefined;
  const routes = tables.map((table) => {
    const problem = isRecordFormat(cfg.format) ? recordColumnsProblem(table.columns, cfg.format) : formatProblem(table.columns, cfg.format);
    if (problem) throw bad(o, 'format', `format ${cfg.format}: table ${table.tableId}'s ${problem}.`);
    protobuf = protobufOptions(o, cfg.format, table.columns, 'sink');
    const names = table.columns.map((c) => c.name);
    const keyFields = cfg.keyFields.map((f) => {
      const i = names.indexOf(f);
      if (i < 0)
        throw bad(
          o,
          'partition_key_fields',
          `partition_key_fields names '${f}', which table ${table.tableId} does not have (it has ${names.join(', ')}).`,
        );
      return i;
    });
    if (cfg.topic === undefined) {
      if (!names.includes('topic'))
        throw bad(
          o,
          'format',
          `format compatible_debezium_json without 'topic' takes each row's topic from column 'topic', which table ${table.tableId} does not have.`,
        );
      return { tableId: table.tableId, columns: table.columns.map((c) => ({ name: c.name, type: c.type })), topic: undefined, keyFields };
    }
    const topic = substituteTablePlaceholders(cfg.topic, table.path);
    const field = /\$\{(.*?)\}/s.exec(topic)?.[1];
    let topicField: number | undefined;
    if (field !== undefined) {
      topicField = names.indexOf(field);
      if (topicField < 0)
        throw bad(
          o,
          'topic',
          `topic '${cfg.topic}' takes each row's topic from column '${field}', which table ${table.tableId} does not have (it has ${names.join(', ')}; the table placeholders are \${database_name}, \${schema_name} and \${table_name}).`,
        );
    } else if (topic.trim() === '') throw bad(o, 'topic', `topic '${cfg.topic}' is empty for table ${table.tableId}.`);
    return { tableId: table.tableId, columns: table.columns.map((c) => ({ name: c.name, type: c.type })), topic, topicField, keyFields };
  });
  return { routes, protobuf };
}

/** A topic column's value as a topic name ('' for null). */
function topicText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A route made ready to encode: compiled encoders and the topic of a row. */
interface RouteEncoder {
  /** The topic of every row, when it does not come from a column. */
  readonly staticTopic?: string;
  readonly topicOf: (fields: readonly unknown[]) => string;
  /** The row's record (its value, key and, with the record formats, the rest). */
  readonly encode: (fields: readonly unknown[], kind: Row['kind']) => EncodedRecord;
}

/** The row's record in a value format: its value, and its key from partition_key_fields. */
function valueEncoder(cfg: SinkConfig, route: TableRoute, format: Exclude<KafkaSinkFormat, 'native' | 'compatible_debezium_json'>) {
  const message = cfg.protobuf && protobufMessage(cfg.protobuf);
  const encodeValue = compileEncoder(route.columns, format, cfg.fieldDelimiter, message);
  if (route.keyFields.length === 0)
    return (fields: readonly unknown[], kind: Row['kind']): EncodedRecord => ({ value: encodeValue(fields, kind) });
  const keyColumns = route.keyFields.map((i) => route.columns[i]);
  // As SeaTunnel's key serializer: the value's format for avro and protobuf (a message of the same type with the key columns set).
  const keyFormat = format === 'text' || format === 'avro' || format === 'protobuf' ? format : 'json';
  const encodeKey = compileEncoder(keyColumns, keyFormat, cfg.fieldDelimiter, message);
  return (fields: readonly unknown[], kind: Row['kind']): EncodedRecord => ({
    value: encodeValue(fields, kind),
    key: encodeKey(route.keyFields.map((i) => fields[i])),
  });
}

function routeEncoder(cfg: SinkConfig, route: TableRoute): RouteEncoder {
  const format = cfg.format;
  const encode = isRecordFormat(format) ? compileRecordEncoder(route.columns, format, route.tableId) : valueEncoder(cfg, route, format);
  if (route.topic === undefined) {
    // compatible_debezium_json without 'topic': the row's own.
    const at = route.columns.findIndex((c) => c.name === 'topic');
    const topicOf = (fields: readonly unknown[]) => {
      const text = topicText(fields[at]);
      if (text === '')
        throw new TidewayError(ErrorCode.TASK_FAILED, `a row of table ${route.tableId} has no topic: its column 'topic' is null or empty.`);
      return text;
    };
    return { topicOf, encode };
  }
  const field = route.topicField;
  const column = field === undefined ? '' : route.columns[field].name;
  const topicOf =
    field === undefined
      ? () => route.topic as string
      : (fields: readonly unknown[]) => {
          const v = fields[field];
          const text = topicText(v);
          if (text === '')
            throw new TidewayError(
              ErrorCode.TASK_FAILED,
              `a row of table ${route.tableId} has no topic: its column '${column}' (topic '${cfg.topic}') is ${v === null || v === undefined ? 'null' : 'empty'}.`,
            );
          return text;
        };
  return { staticTopic: field === undefined ? route.topic : undefined, topicOf, encode };
}

/** The broker refused a send as too large (its max.message.bytes). */
function tooLarge(err: unknown): boolean {
  return hasApiError(err, 'MESSAGE_TOO_LARGE') || hasApiError(err, 'RECORD_LIST_TOO_LARGE');
}

/** The broker's answer for a topic that is being created (by this request or a concurrent one). */
function beingCreated(err: unknown): boolean {
  return isUnknownTopic(err) || hasApiError(err, 'LEADER_NOT_AVAILABLE') || /LEADER_NOT_AVAILABLE/.test(errorText(err));
}

/** The most sends a writer keeps in flight (Java's max.in.flight.requests.per.connection default). */
const MAX_IN_FLIGHT = 5;

/** Java's positive murmur2 hash of the bytes (its Utils.toPositive(Utils.murmur2(...))). */
function positiveMurmur2(bytes: Buffer): number {
  return murmur2(bytes) & 0x7fffffff;
}

type Transaction = NonNullable<Producer['transaction']>;

/** The transaction a writer has open (EXACTLY_ONCE). */
interface OpenTransaction {
  readonly id: string;
  readonly producer: Producer;
  readonly transaction: Transaction;
  records: number;
  readonly topics: Set<string>;
  /** The `topic\0partition`s a send of this transaction has written (the broker added them to it). */
  readonly partitions: Set<string>;
}

class KafkaWriter implements SinkWriter<KafkaCommitInfo, KafkaWriterState> {
  /** NON / AT_LEAST_ONCE: the producer that sends; EXACTLY_ONCE: a client for metadata only. */
  private producer?: Producer;
  /** Partition counts of the topics written so far (looked up on first use). */
  private readonly partitions = new Map<string, number>();
  private readonly routes = new Map<string, RouteEncoder>();
  /** With one input table, its route takes every row whatever its table id. */
  private readonly only?: RouteEncoder;
  private roundRobin = 0;
  /** EXACTLY_ONCE: the number of the next transactional id, and the transaction open now. */
  private next = 0;
  private probed = false;
  private open?: OpenTransaction;
  /** Restored at a lower parallelism: retired subtasks whose open transactions this writer aborts, by subtask (their next id). */
  private readonly retired = new Map<number, number>();
  /** The abort of the retired subtasks' open transactions, begun when the writer is created. */
  private recovering?: Promise<void>;
  /** env.sink_error_handler: where the rows refused for themselves go (handleRowErrors). */
  private reject?: (row: Row, error: Error) => void;
  /** Sends not yet acknowledged, and the one holding each `topic\0partition` (pipeline()). */
  private readonly sending = new Set<Promise<void>>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private inFlightBytes = 0;
  /** Whether the producer's first send was acknowledged (it runs alone). */
  private started = false;
  /** The first send that failed: the next write, prepareCommit or close throws it. */
  private failure?: Error;

  constructor(
    private readonly cfg: SinkConfig,
    routes: readonly TableRoute[],
    private readonly subtask: number,
    restored: readonly KafkaWriterState[] | undefined,
    private readonly live: LiveTransactions,
    parallelism: number,
  ) {
    for (const r of routes) this.routes.set(r.tableId, routeEncoder(cfg, r));
    if (routes.length === 1) this.only = this.routes.get(routes[0].tableId);
    this.roundRobin = subtask;
    // Never rejects: it catches its own failures.
    if (!cfg.transactions) this.warmUp().catch(() => undefined);
    if (!cfg.transactions || !restored) return;
    const { own, retired } = restoredCounters(restored, subtask, parallelism);
    // Without an own entry (a subtask a higher parallelism added) the ids are probed from 0.
    this.next = own ?? 0;
    for (const [s, next] of retired) this.retired.set(s, next);
    if (retired.size > 0) {
      // At once, not at the first row: their open transactions hold read_committed readers back.
      this.recovering = this.abortRetired();
      this.recovering.catch((err: unknown) =>
        log.warn({ err: errorText(err) }, 'aborting the open transactions of retired writers failed; the next transaction tries again'),
      );
    }
  }

  /**
   * Restored at a lower parallelism: the writers this one replaces (subtasks at or above the new
   * parallelism, whose states it was given) may have left transactions open after the
   * checkpoint. Their ids from each one's next on are initialised, which fences the producer and
   * aborts the transaction, up to the first id never used (epoch 0): the rows of those
   * transactions are in no completed checkpoint and are written again from the restored source
   * offsets. A retired subtask is then forgotten: every one of its ids is committed or aborted.
   */
  private async abortRetired(): Promise<void> {
    const t = this.cfg.transactions as TransactionalConfig;
    for (const [s, from] of [...this.retired]) {
      let n = from;
      for (;;) {
        const id = transactionalId(t.prefix, s, n++);
        const { producer } = await this.initTransaction(id);
        const epoch = producer.producerEpoch ?? 0;
        await producer.close().catch(() => undefined);
        if (epoch === 0) break;
        log.info({ transactionalId: id }, 'fenced a retired writer of this transactional id and aborted its open transaction');
      }
      this.retired.delete(s);
    }
  }

  /**
   * Makes the producer now and, when it is idempotent (AT_LEAST_ONCE's default), gets its producer
   * id (InitProducerId, which also opens its connection), while the source plans and reads its
   * first records: its first send would otherwise wait for that (as the Jdbc sink opens its session
   * ahead, docs/decisions/0096). Topics are still looked up, or created, by the first write, so a
   * job that writes no row creates none. A failure here is met again, and reported, by the first
   * write. A transactional writer gets its producer per transaction, at its first row.
   */
  private async warmUp(): Promise<void> {
    try {
      const producer = (this.producer ??= this.newProducer());
      if (this.idempotent) await producer.initIdempotentProducer({});
    } catch {
      // The first write makes the producer again, or its first send asks for the id again, and fails there.
    }
  }

  /** The producer, made on first use, with every static topic looked up (a missing one fails the task at once). */
  private async connect(): Promise<Producer> {
    // Not waiting for warmUp: its producer is made at once, and a send that needs the producer id
    // while warmUp's InitProducerId is under way joins it (the client runs one at a time).
    const producer = (this.producer ??= this.newProducer());
    for (const r of this.routes.values())
      if (r.staticTopic !== undefined && !this.partitions.has(r.staticTopic)) await this.partitionsOf(producer, r.staticTopic);
    return producer;
  }

  /** Whether the producer is idempotent: AT_LEAST_ONCE's default, never with transactions (EXACTLY_ONCE). */
  private get idempotent(): boolean {
    return this.cfg.semantics !== 'EXACTLY_ONCE' && (this.cfg.settings.idempotent ?? this.cfg.semantics === 'AT_LEAST_ONCE');
  }

  private newProducer(): Producer {
    const s = this.cfg.settings;
    const exactly = this.cfg.semantics === 'EXACTLY_ONCE';
    const atLeastOnce = this.cfg.semantics === 'AT_LEAST_ONCE';
    const acks = s.acks ?? (atLeastOnce || exactly ? -1 : 1);
    if (atLeastOnce && acks !== -1) {
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `semantics = AT_LEAST_ONCE needs acks = all; kafka.config sets acks = ${acks}.`);
    }
    return new Producer({
      clientId: s.clientId ?? `tideway-kafka-sink-${this.subtask}`,
      bootstrapBrokers: brokerList(this.cfg.bootstrap),
      timeout: exactly ? undefined : s.timeout,
      connectTimeout: connectTimeoutMs(s),
      retries: s.retries ?? 3,
      retryDelay: s.retryDelay,
      metadataMaxAge: s.metadataMaxAge,
      idempotent: this.idempotent,
      acks,
      compression: s.compression,
      autocreateTopics: s.autocreateTopics ?? true,
      ...connectionSecurity(s),
    });
  }

  /**
   * The topic's partition count, looked up once (created first when the broker allows it).
   *
   * With auto-creation allowed, the broker answers UNKNOWN_TOPIC_OR_PARTITION (or
   * LEADER_NOT_AVAILABLE) to a metadata request for a topic another request is creating at that
   * moment: the writers of one job ask for the same new topic at once, and only the first request
   * creates it. That answer means "not yet", so the topic is asked for again until it is there or
   * the connect timeout has passed (docs/decisions/0094: taking it for a refusal failed the task,
   * and the restart wrote again, as NON and AT_LEAST_ONCE may, the rows the other writer had
   * written). Without auto-creation the first such answer fails the task at once.
   */
  private async partitionsOf(producer: Producer, topic: string): Promise<number> {
    const known = this.partitions.get(topic);
    if (known !== undefined) return known;
    const s = this.cfg.settings;
    const create = s.autocreateTopics ?? true;
    const ms = connectTimeoutMs(s);
    const deadline = Date.now() + ms;
    const what = `reading the metadata of topic ${topic}`;
    // undefined: the broker has not created it yet.
    const lookup = () =>
      producer.metadata({ topics: [topic], autocreateTopics: create }).then(
        (m) => ((m.topics.get(topic)?.partitionsCount ?? 0) > 0 ? m : undefined),
        (err: unknown) => {
          if (create && beingCreated(err)) return undefined;
          throw err;
        },
      );
    let count = 0;
    for (let attempt = 0; count === 0; attempt++) {
      let metadata;
      try {
        metadata = await withDeadline(this.cfg.bootstrap, Math.max(deadline - Date.now(), 1), what, lookup);
      } catch (err) {
        if (isUnknownTopic(err)) {
          throw new TidewayError(
            ErrorCode.TASK_FAILED,
            `topic ${topic} does not exist at ${this.cfg.bootstrap} (kafka.config allow.auto.create.topics is false).`,
          );
        }
        throw err;
      }
      count = metadata?.topics.get(topic)?.partitionsCount ?? 0;
      if (count > 0) break;
      const delay = Math.min(50 * 2 ** attempt, 500);
      if (!create || Date.now() + delay >= deadline)
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          create
            ? `topic ${topic} does not exist at ${this.cfg.bootstrap}, and the broker did not create it within ${ms} ms (is its auto.create.topics.enable false?).`
            : `topic ${topic} does not exist at ${this.cfg.bootstrap}.`,
        );
      await sleep(delay);
    }
    if (this.cfg.partition !== undefined && this.cfg.partition >= count)
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `partition = ${this.cfg.partition}, but topic ${topic} has ${count} partitions.`);
    this.partitions.set(topic, count);
    return count;
  }

  /**
   * Opens the next transaction under a transactional id never used before. Its InitProducerId
   * fences any producer that used the id and aborts a transaction it left open; ids the
   * writer's predecessors used after the restored checkpoint (their epoch is above 0) are so
   * aborted one by one until an unused one is found: those transactions are in no completed
   * checkpoint, and their rows are written again after the restore.
   */
  private async beginTransaction(): Promise<OpenTransaction> {
    if (this.recovering) {
      const recovering = this.recovering;
      this.recovering = undefined;
      // Failed at creation: once more, now failing the write if the broker still refuses.
      await recovering.catch(() => this.abortRetired());
    }
    for (;;) {
      const id = transactionalId((this.cfg.transactions as TransactionalConfig).prefix, this.subtask, this.next);
      const { producer, transaction } = await this.initTransaction(id);
      this.next++;
      if (!this.probed && (producer.producerEpoch ?? 0) > 0) {
        log.info({ transactionalId: id }, 'fenced an earlier producer of this transactional id and aborted its open transaction');
        await producer.close().catch(() => undefined);
        continue;
      }
      this.probed = true;
      return { id, producer, transaction, records: 0, topics: new Set(), partitions: new Set() };
    }
  }

  /** A producer for `id` with its transaction begun; a busy coordinator is asked again, by a new producer. */
  private async initTransaction(id: string): Promise<{ producer: Producer; transaction: Transaction }> {
    const t = this.cfg.transactions as TransactionalConfig;
    const ms = Math.max(connectTimeoutMs(t.settings), 30_000);
    const deadline = Date.now() + ms;
    for (let attempt = 0; ; attempt++) {
      const producer = transactionalProducer(t, id, `tideway-kafka-sink-${this.subtask}`);
      try {
        const transaction = await withDeadline(t.bootstrap, ms, `starting transaction ${id}`, () => producer.beginTransaction());
        return { producer, transaction };
      } catch (err) {
        await producer.close().catch(() => undefined);
        const text = errorText(err);
        if (/INVALID_TRANSACTION_TIMEOUT/.test(text))
          throw new TidewayError(
            ErrorCode.CONFIG_BAD_VALUE,
            `the broker at ${t.bootstrap} refuses transaction.timeout.ms = ${t.transactionTimeoutMs} (it is above its transaction.max.timeout.ms); set kafka.config transaction.timeout.ms lower.`,
          );
        // The coordinator is loading, moving, or still aborting what the id's earlier producer left open.
        const busy = /CONCURRENT_TRANSACTIONS|COORDINATOR_LOAD_IN_PROGRESS|NOT_COORDINATOR|COORDINATOR_NOT_AVAILABLE/.test(text);
        if (!busy || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 1_000)));
      }
    }
  }

  private partitionOf(value: Buffer | undefined, key: Buffer | undefined, partitions: number): number {
    const cfg = this.cfg;
    if (cfg.partition !== undefined) return cfg.partition;
    if (cfg.assignPartitions.length > 0 && value) {
      const text = value.toString('utf8');
      for (let i = 0; i < cfg.assignPartitions.length && i < partitions; i++) if (text.includes(cfg.assignPartitions[i])) return i;
      const rest = partitions - cfg.assignPartitions.length;
      return rest > 0 ? cfg.assignPartitions.length + (positiveMurmur2(value) % rest) : positiveMurmur2(value) % partitions;
    }
    if (key) return positiveMurmur2(key) % partitions;
    return this.roundRobin % partitions;
  }

  /**
   * The batch's messages in sends of at most kafka.config buffer.memory bytes each (keys and
   * values), none started while the unacknowledged ones hold more (pipeline()), as Java's
   * producer blocks while its buffer is full; a record larger than the buffer fails, as Java's does.
   */
  private *sends(
    messages: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[],
  ): Generator<MessageToProduce<Buffer, Buffer, Buffer, Buffer>[]> {
    const limit = this.cfg.settings.bufferMemory;
    if (limit === undefined) {
      yield messages;
      return;
    }
    let part: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[] = [];
    let bytes = 0;
    for (const m of messages) {
      const size = (m.key?.length ?? 0) + (m.value?.length ?? 0);
      if (size > limit)
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `a record of ${size} bytes for topic ${m.topic} is larger than kafka.config buffer.memory (${limit} bytes).`,
        );
      if (bytes + size > limit && part.length > 0) {
        yield part;
        part = [];
        bytes = 0;
      }
      part.push(m);
      bytes += size;
    }
    if (part.length > 0) yield part;
  }

  /**
   * Row-level errors: a row whose topic column is empty or whose values its format cannot
   * encode, and, without transactions, a message larger than the broker takes (MESSAGE_TOO_LARGE:
   * the refused send is retried one message at a time, so that only the too-large ones are
   * refused). A broker away, a missing topic, a lost transaction are not: they fail the task.
   */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
  }

  async write(rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    const producer = await this.connect();
    // Keyless rows of one batch go to one partition, the next batch to the next (as Java's
    // sticky partitioner fills one batch at a time).
    this.roundRobin = (this.roundRobin + 1) % 0x7fffffff;
    const messages: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[] = [];
    const rowOf = new Map<MessageToProduce<Buffer, Buffer, Buffer, Buffer>, Row>();
    for (const row of rows) {
      const route = this.only ?? this.routes.get(row.tableId);
      if (!route)
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `the Kafka sink got a row of table ${row.tableId}, which is not one of its input tables.`,
        );
      const fields = row.fields;
      let topic: string;
      let record: ReturnType<typeof route.encode>;
      try {
        topic = route.topicOf(fields);
        record = route.encode(fields, row.kind);
      } catch (err) {
        // The row's own: its topic column, or a value its format cannot encode.
        if (!this.reject) throw err;
        this.reject(row, err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      const partitions = this.partitions.get(topic) ?? (await this.partitionsOf(producer, topic));
      const { key, value, headers, partition, timestamp } = record;
      if (partition !== undefined && partition >= partitions)
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `a row of table ${row.tableId} is for partition ${partition} of topic ${topic}, which has ${partitions} partitions.`,
        );
      const m = { topic, key, value, headers, timestamp, partition: partition ?? this.partitionOf(value, key, partitions) };
      messages.push(m);
      if (this.reject) rowOf.set(m, row);
    }
    if (this.reject) {
      // Row-error routing sends one part at a time: a part the broker refuses as too large is
      // sent again message by message, and its rows are rejected while write() runs.
      await this.settle();
      try {
        for (const part of this.sends(messages)) await this.sendRefusingTooLarge(producer, part, rowOf);
      } catch (err) {
        throw this.sendError(err, messages);
      }
      return;
    }
    for (const part of this.sends(messages)) await this.pipeline(part);
  }

  /**
   * Starts sending a part without waiting for its acknowledgement, so that the next rows are
   * read and encoded while the broker writes these (as Java's producer keeps up to
   * max.in.flight.requests.per.connection requests open). The client numbers an idempotent or
   * transactional producer's records per partition only when a send is acknowledged, so two
   * sends in flight must never share a partition: a part waits for the sends holding any of its
   * partitions (keyless rows of one batch all go to one partition, so batches to different
   * partitions overlap). Every send is acknowledged before prepareCommit() returns; the first
   * failure fails the next write(), prepareCommit() or close().
   */
  private async pipeline(part: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[]): Promise<void> {
    const keys = new Set<string>();
    let bytes = 0;
    for (const m of part) {
      keys.add(`${m.topic}\u0000${String(m.partition)}`);
      bytes += (m.key?.length ?? 0) + (m.value?.length ?? 0);
    }
    // buffer.memory bounds the bytes in flight too, as it bounds Java's unacknowledged records.
    const limit = this.cfg.settings.bufferMemory ?? Number.POSITIVE_INFINITY;
    for (;;) {
      this.throwFailure();
      const busy: Promise<void>[] = [];
      for (const k of keys) {
        const p = this.inFlight.get(k);
        if (p) busy.push(p);
      }
      if (busy.length === 0 && (this.sending.size === 0 || (this.sending.size < MAX_IN_FLIGHT && this.inFlightBytes + bytes <= limit)))
        break;
      await Promise.race(busy.length > 0 ? busy : [...this.sending]);
    }
    // One transaction takes the sends up to the next checkpoint: it is begun here, before any of them runs.
    const open = this.cfg.transactions ? (this.open ??= await this.beginTransaction()) : undefined;
    if (open ? [...keys].some((k) => !open.partitions.has(k)) : !this.started) {
      // Sends that run alone: a producer's first (the idempotent producer gets its id then, and
      // two sends at once would each get one), and a transaction's first to a partition (the
      // broker refuses a transaction's produce requests while another of its partitions is
      // being added: TRANSACTION_ABORTABLE). This one waits for the others and runs by itself.
      await this.settle();
      try {
        await this.sendPart(part, open);
      } catch (err) {
        this.failure ??= this.sendError(err, part);
        throw this.failure;
      }
      if (open) for (const k of keys) open.partitions.add(k);
      this.started = true;
      return;
    }
    const send = this.sendPart(part, open).then(
      () => undefined,
      (err: unknown) => {
        this.failure ??= this.sendError(err, part);
      },
    );
    this.inFlightBytes += bytes;
    const done = send.finally(() => {
      this.inFlightBytes -= bytes;
      this.sending.delete(done);
      for (const k of keys) if (this.inFlight.get(k) === done) this.inFlight.delete(k);
    });
    this.sending.add(done);
    for (const k of keys) this.inFlight.set(k, done);
  }

  private async sendPart(part: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[], open: OpenTransaction | undefined): Promise<void> {
    if (open) {
      for (const m of part) open.topics.add(m.topic);
      await open.transaction.send({ messages: part });
      open.records += part.length;
    } else await (this.producer as Producer).send({ messages: part });
  }

  /** Waits for every send in flight; throws the first failure. */
  private async settle(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending]);
    this.throwFailure();
  }

  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** The task's error for a send that failed (a lost transaction, a record too large, the broker away). */
  private sendError(err: unknown, messages: readonly MessageToProduce<Buffer, Buffer, Buffer, Buffer>[]): Error {
    if (err instanceof TidewayError) return err;
    if (this.open && isLost(err)) {
      // Its rows are in no completed checkpoint: the restore writes them again.
      return new TidewayError(
        ErrorCode.TASK_FAILED,
        `the Kafka transaction ${this.open.id} was aborted by the broker at ${this.cfg.bootstrap} while open (${errorText(err)}): its transaction.timeout.ms (${this.cfg.transactions?.transactionTimeoutMs ?? 0} ms) ran out before its checkpoint, or another producer took its transactional id; the job restarts from its last checkpoint (raise kafka.config transaction.timeout.ms above the checkpoint interval plus the checkpoint timeout).`,
        { retryable: true },
      );
    }
    if (tooLarge(err)) {
      let largest = messages[0];
      for (const m of messages) if ((m.value?.length ?? 0) > (largest.value?.length ?? 0)) largest = m;
      return new TidewayError(
        ErrorCode.TASK_FAILED,
        `a message of ${largest.value?.length ?? 0} bytes for topic ${largest.topic} partition ${String(largest.partition)} is larger than the broker at ${this.cfg.bootstrap} accepts (max.message.bytes).`,
      );
    }
    return new TidewayError(
      ErrorCode.TASK_FAILED,
      `writing to topic ${[...new Set(messages.map((m) => m.topic))].join(', ')} at ${this.cfg.bootstrap} failed: ${errorText(err)}`,
      { retryable: true },
    );
  }

  /**
   * Sends a part; if the broker refuses it as too large, sends its messages one by one and hands
   * the rows of those it refuses as too large to the row error handler (the others of the part
   * may then be written twice: these semantics are at-least-once).
   */
  private async sendRefusingTooLarge(
    producer: Producer,
    part: MessageToProduce<Buffer, Buffer, Buffer, Buffer>[],
    rowOf: Map<MessageToProduce<Buffer, Buffer, Buffer, Buffer>, Row>,
  ): Promise<void> {
    try {
      await producer.send({ messages: part });
      return;
    } catch (err) {
      if (!tooLarge(err)) throw err;
    }
    for (const m of part) {
      try {
        await producer.send({ messages: [m] });
      } catch (err) {
        if (!tooLarge(err)) throw err;
        this.reject!(
          rowOf.get(m)!,
          new TidewayError(
            ErrorCode.TASK_FAILED,
            `a message of ${m.value?.length ?? 0} bytes for topic ${m.topic} partition ${String(m.partition)} is larger than the broker at ${this.cfg.bootstrap} accepts (max.message.bytes).`,
          ),
        );
      }
    }
  }

  /**
   * NON / AT_LEAST_ONCE: every row written so far was acknowledged in write(), nothing is left
   * to flush. EXACTLY_ONCE: the same holds for the open transaction's records, which is now
   * prepared: its ids go to the committer, and the next row opens a new transaction.
   */
  async prepareCommit(checkpointId: number): Promise<KafkaCommitInfo | undefined> {
    await this.settle();
    const open = this.open;
    if (!open) return undefined;
    this.open = undefined;
    this.live.set(open.id, { producer: open.producer, transaction: open.transaction });
    return {
      transactionalId: open.id,
      producerId: String(open.producer.producerId),
      producerEpoch: open.producer.producerEpoch ?? 0,
      checkpointId,
      topic: [...open.topics].join(','),
      records: open.records,
    };
  }

  snapshotState(): KafkaWriterState[] {
    if (!this.cfg.transactions) return [];
    // Retired subtasks not yet done stay in the checkpoint, so that a restore from it aborts their transactions.
    return [{ subtask: this.subtask, next: this.next }, ...[...this.retired].map(([subtask, next]) => ({ subtask, next }))];
  }

  /** Aborts the open transaction (no checkpoint holds it); prepared ones stay for a restore to commit. */
  async abortPrepare(): Promise<void> {
    // The sends in flight end first (their failure no longer matters: nothing open is kept).
    while (this.sending.size > 0) await Promise.all([...this.sending]);
    const open = this.open;
    this.open = undefined;
    if (!open) return;
    try {
      if (open.records > 0) await open.transaction.abort();
    } finally {
      await open.producer.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    // Its failure was logged; a restore from the checkpoint tries again.
    await this.recovering?.catch(() => undefined);
    // NON / AT_LEAST_ONCE: the rows still in flight are acknowledged (or fail the task) before the producer closes.
    let failed: Error | undefined;
    if (!this.cfg.transactions) await this.settle().catch((err: unknown) => (failed = err instanceof Error ? err : new Error(String(err))));
    await this.abortPrepare().catch((err: unknown) => log.warn({ err: errorText(err) }, 'aborting the open transaction failed'));
    await this.producer?.close();
    if (failed) throw failed;
  }
}

/** SeaTunnel's Kafka sink: json or text messages, keyed or partitioned as it does. */
export const kafkaSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Kafka',
  description:
    'Writes rows (of one or several input tables) to Kafka topics as json, text, avro, protobuf or change-log messages, or rows that are records (native, as the source reads them; compatible_debezium_json, as the CDC sources give Debezium records), with keys from partition_key_fields, a fixed partition or content-assigned partitions; NON, AT_LEAST_ONCE (the idempotent producer, every row acknowledged before its checkpoint completes) or EXACTLY_ONCE (a Kafka transaction per writer and checkpoint, committed when the checkpoint completes, and again, idempotently, after a restore).',
  spec: kafkaSinkSpec,
  create(ctx: PluginContext): Sink & { tableTopics(): Map<string, string | undefined> } {
    const o = ctx.options;
    if (ctx.inputTables.length === 0) throw bad(o, 'plugin_input', 'the Kafka sink has no input table.');
    const base = readConfig(o, ctx);
    const { routes, protobuf } = tableRoutes(o, base, ctx.inputTables);
    const cfg: SinkConfig = { ...base, protobuf };
    const transactions = cfg.transactions;
    // Prepared transactions of this task group's writers, which its committer commits.
    const live: LiveTransactions = new Map();
    // For `tideway verify` through Kafka: each input table's topic (undefined: each row's, from a column).
    const tableTopics = () => new Map(routes.map((r) => [r.tableId, r.topicField === undefined ? r.topic : undefined]));
    if (!transactions)
      return { tableTopics, createWriter: (wctx) => new KafkaWriter(cfg, routes, wctx.subtaskIndex, undefined, live, wctx.parallelism) };
    const sink: Sink<KafkaCommitInfo, unknown, KafkaWriterState> & { tableTopics: typeof tableTopics } = {
      tableTopics,
      // A restore at another parallelism hands old writer i's ids and prepared transactions to
      // new writer i % parallelism (see restoredCounters and abortRetired).
      rescalable: true,
      createWriter: (wctx, restored) => new KafkaWriter(cfg, routes, wctx.subtaskIndex, restored, live, wctx.parallelism),
      createCommitter: () => ({
        commit: async (infos) => {
          await commitAll(transactions, live, infos);
          return [];
        },
        // A prepared transaction may still be committed by a restore: the broker aborts the
        // ones no checkpoint kept after transaction.timeout.ms, or a restored writer fences them.
        abort: () => undefined,
      }),
      // Cancelled (or finished with an attempt's leftovers): nothing open under the prefix will be committed.
      abandon: async () => {
        await abandonTransactions(transactions);
      },
    };
    return sink;
  },
};
