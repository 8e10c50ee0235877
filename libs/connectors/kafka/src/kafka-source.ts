import type { Admin } from '#kafka-client';
import {
  formatType,
  parseSchemaConfig,
  resolveOptionItem,
  type CatalogTable,
  type Collector,
  type PluginContext,
  type PluginOptions,
  type PluginSpec,
  type Row,
  type Source,
  type SourceFactory,
  type SourceReader,
  type SourceReaderContext,
  type SplitEnumerator,
  type SplitEnumeratorContext,
} from '@tideway/api';
import { ConfigError, ErrorCode, logger, TidewayError } from '@tideway/common';
import { connectTimeoutMs, errorText, isUnknownTopic, newAdmin, newConsumer, withDeadline } from './client.js';
import {
  CONTENT_COLUMN,
  compileDecoder,
  formatProblem,
  type ValueDecoder,
  isContentTable,
  KAFKA_FORMAT_NAMES,
  KAFKA_FORMATS,
  type KafkaFormat,
} from './formats.js';
import {
  AbortedTransactions,
  BatchCursor,
  CorruptBatchError,
  type FetchedPartition,
  RawFetcher,
  type RawFetchResponse,
} from './fetch-records.js';
import { NATIVE_COLUMNS, nativeRow } from './record-formats.js';
import type { DebeziumTableFilter } from './change-formats.js';
import { CONSUMER_CONFIG_KEYS, consumerSettings, type ConsumerSettings } from './kafka-config.js';
import { PROTOBUF_OPTION_SPECS, protobufMessage, protobufOptions, type ProtobufSchema } from './protobuf-format.js';

const log = logger('kafka-source');

/** A split is one partition of a topic, with the next offset to read (and, when bounded, where to stop). */
export interface KafkaSplit {
  readonly splitId: string;
  readonly topic: string;
  readonly partition: number;
  /** The next offset to read. */
  offset: number;
  /** Bounded (BATCH) jobs: the offset to stop before (the partition's end when the job started). */
  readonly end?: number;
}

const START_MODES = ['earliest', 'group_offsets', 'latest', 'timestamp', 'specific_offsets'] as const;
type StartMode = (typeof START_MODES)[number];

/** SeaTunnel options this build refuses by name until they are done. */

/** The options of one topic entry: the source's own, or each item of table_list / tables_configs. */
const ENTRY_OPTIONS = new Set([
  'topic',
  'pattern',
  'schema',
  'format',
  'field_delimiter',
  'start_mode',
  'start_mode.timestamp',
  'start_mode.end_timestamp',
  'start_mode.offsets',
  'debezium_record_table_filter',
  'protobuf_message_name',
  'protobuf_schema',
]);

/** SeaTunnel's names of the list of topic entries (table_list; tables_configs in later releases). */
const ENTRY_LISTS = ['table_list', 'tables_configs'] as const;

export const kafkaSourceSpec: PluginSpec = {
  options: [
    { name: 'bootstrap.servers', type: 'string', required: true, description: 'Kafka brokers, `host:port[,host:port...]`.' },
    {
      name: 'topic',
      type: 'string',
      description:
        'Topic to read; several as `a,b`; with `pattern = true` a regular expression that whole topic names match. Either this or table_list / tables_configs.',
    },
    ...ENTRY_LISTS.map((name) => ({
      name,
      type: 'object-list' as const,
      description:
        "Several topics with their own tables, one item each: topic, pattern, schema, format (and field_delimiter, protobuf_*), start_mode (and start_mode.timestamp / start_mode.offsets). The other options are the source's, shared by all. Each item is a table of the source.",
    })),
    { name: 'pattern', type: 'boolean', default: false, description: '`topic` is a regular expression over topic names.' },
    {
      name: 'consumer.group',
      type: 'string',
      default: 'SeaTunnel-Consumer-Group',
      description: 'The consumer group whose offsets `group_offsets` starts from and to which offsets are committed.',
    },
    {
      name: 'commit_on_checkpoint',
      type: 'boolean',
      default: true,
      description: 'Commit the offsets a checkpoint holds to the consumer group when the checkpoint completes.',
    },
    {
      name: 'kafka.config',
      type: 'map',
      description: `Java consumer properties the Node client honours: ${CONSUMER_CONFIG_KEYS.join(', ')}. Security as Kafka's Java client: security.protocol PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL; sasl.mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 with the username and password of sasl.jaas.config (PlainLoginModule or ScramLoginModule); PEM truststores; PKCS12 or PEM keystores (client certificates). Any other key is refused.`,
    },
    {
      name: 'schema',
      type: 'object',
      description: 'The columns of the messages; without it each message value is one string column `content`.',
    },
    {
      name: 'format',
      type: 'enum',
      values: [...KAFKA_FORMAT_NAMES],
      default: 'json',
      description: `Message format: ${KAFKA_FORMATS.join(', ')} (the change formats give rows of kind +I, -U, +U, -D; their DDL events are skipped). native (SeaTunnel 2.3.9+): each record, tombstones too, is a row of the fixed table ${NATIVE_COLUMNS.map((c) => c.name).join(', ')} (headers a map of UTF-8 strings, key and value bytes, timestampType CreateTime or LogAppendTime); no schema. compatible_debezium_json is a sink format only, as in SeaTunnel: read such topics with debezium_json.`,
    },
    {
      name: 'format_error_handle_way',
      type: 'enum',
      values: ['fail', 'skip'],
      default: 'fail',
      description: 'A message the format cannot decode fails the job (fail) or is dropped with a warning (skip).',
    },
    { name: 'field_delimiter', type: 'string', default: ',', description: 'Field delimiter of the text format.' },
    {
      name: 'start_mode',
      type: 'enum',
      values: [...START_MODES],
      default: 'group_offsets',
      description:
        "Where reading starts: earliest, latest, group_offsets (the group's committed offsets; where it has none, kafka.config auto.offset.reset, default earliest), timestamp (start_mode.timestamp), specific_offsets (start_mode.offsets).",
    },
    {
      name: 'start_mode.timestamp',
      type: 'long',
      min: 0,
      description: 'For start_mode = timestamp: epoch milliseconds; each partition starts at its first record at or after it.',
    },
    {
      name: 'start_mode.end_timestamp',
      type: 'long',
      min: 0,
      description:
        'BATCH jobs with start_mode = timestamp: epoch milliseconds where reading ends; each partition is read up to its first record at or after it (SeaTunnel 2.3.11).',
    },
    {
      name: 'start_mode.offsets',
      type: 'map',
      description: 'For start_mode = specific_offsets: `topic-partition = offset` for every partition read.',
    },
    {
      name: 'partition-discovery.interval-millis',
      type: 'long',
      default: -1,
      description:
        'Streaming jobs: how often to look for new partitions (and, with pattern, new topics); -1 never. New ones are read from their start.',
    },
    {
      name: 'poll.timeout',
      type: 'long',
      default: 10_000,
      min: 1,
      description:
        'The longest one fetch waits for records, in milliseconds (each wait is also cut to 500 ms so checkpoints are not held up).',
    },
    {
      name: 'debezium_record_table_filter',
      type: 'object',
      description:
        "format = debezium_json: keep only the records of one table, by the envelope's source: `{ database_name, schema_name, table_name }` (table_name required; each part given must match source.db, source.schema, source.table).",
    },
    ...PROTOBUF_OPTION_SPECS,
  ],
};

/** A config error at the option's file:line. */
function bad(o: PluginOptions, option: string, message: string): ConfigError {
  return new ConfigError(ErrorCode.CONFIG_BAD_VALUE, message, { place: o.place(option) });
}

/** One entry of topics read as one table: the source's own options, or an item of table_list. */
interface TopicEntry {
  readonly topics: readonly string[];
  readonly pattern?: RegExp;
  readonly format: KafkaFormat;
  readonly fieldDelimiter: string;
  readonly startMode: StartMode;
  readonly startTimestamp?: number;
  /** start_mode.end_timestamp: BATCH jobs stop each partition before its first record at or after it. */
  readonly endTimestamp?: number;
  readonly startOffsets?: ReadonlyMap<string, number>;
  readonly table: CatalogTable;
  /** The schema-less table: each record's value is the one `content` column. */
  readonly raw: boolean;
  readonly protobuf?: ProtobufSchema;
  readonly debeziumFilter?: DebeziumTableFilter;
}

interface SourceConfig {
  readonly bootstrap: string;
  readonly entries: readonly TopicEntry[];
  readonly group: string;
  readonly commitOnCheckpoint: boolean;
  readonly settings: ConsumerSettings;
  readonly skipBadRecords: boolean;
  readonly discoveryMs: number;
  readonly pollTimeoutMs: number;
}

/** The entry a topic belongs to (the first that lists it or whose pattern matches it). */
export function entryOf(entries: readonly TopicEntry[], topic: string): TopicEntry | undefined {
  return entries.find((e) => (e.pattern ? e.pattern.test(topic) : e.topics.includes(topic)));
}

function readEntry(o: PluginOptions): TopicEntry {
  const format = o.get<string>('format');
  if (format === 'compatible_debezium_json')
    throw bad(
      o,
      'format',
      "format 'compatible_debezium_json' is a Kafka sink format (as in SeaTunnel, whose source has none of that name): read Debezium's records with format = debezium_json.",
    );
  if (!(KAFKA_FORMATS as readonly string[]).includes(format)) {
    throw bad(o, 'format', `format '${format}' is not supported by the Kafka source (it reads ${KAFKA_FORMATS.join(', ')}).`);
  }
  if (format === 'native' && o.has('schema'))
    throw bad(o, 'schema', `format native has a fixed table (${NATIVE_COLUMNS.map((c) => c.name).join(', ')}): give no 'schema'.`);
  if (!o.has('topic')) throw bad(o, 'topic', "the Kafka source needs 'topic' (or table_list).");
  const topicText = o.get<string>('topic');
  const pattern = o.get<boolean>('pattern');
  let regex: RegExp | undefined;
  if (pattern) {
    try {
      regex = new RegExp(`^(?:${topicText})$`);
    } catch (err) {
      throw bad(o, 'topic', `topic '${topicText}' is not a valid regular expression: ${(err as Error).message}.`);
    }
  }
  const topics = pattern
    ? []
    : topicText
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
  if (!pattern && topics.length === 0) throw bad(o, 'topic', 'topic names no topic.');
  const startMode = o.get<StartMode>('start_mode');
  let startTimestamp: number | undefined;
  let startOffsets: Map<string, number> | undefined;
  if (startMode === 'timestamp') {
    if (!o.has('start_mode.timestamp')) throw bad(o, 'start_mode', "start_mode = timestamp needs 'start_mode.timestamp'.");
    startTimestamp = o.get<number>('start_mode.timestamp');
  } else if (o.has('start_mode.timestamp'))
    throw bad(o, 'start_mode.timestamp', `'start_mode.timestamp' is only read with start_mode = timestamp (it is ${startMode}).`);
  let endTimestamp: number | undefined;
  if (o.has('start_mode.end_timestamp')) {
    if (startMode !== 'timestamp')
      throw bad(o, 'start_mode.end_timestamp', `'start_mode.end_timestamp' is only read with start_mode = timestamp (it is ${startMode}).`);
    endTimestamp = o.get<number>('start_mode.end_timestamp');
    if (endTimestamp <= (startTimestamp ?? 0))
      throw bad(
        o,
        'start_mode.end_timestamp',
        `'start_mode.end_timestamp' (${endTimestamp}) must be after 'start_mode.timestamp' (${startTimestamp ?? 0}).`,
      );
  }
  if (startMode === 'specific_offsets') {
    const raw = o.get<Record<string, unknown> | undefined>('start_mode.offsets');
    if (!raw || Object.keys(raw).length === 0) throw bad(o, 'start_mode', "start_mode = specific_offsets needs 'start_mode.offsets'.");
    startOffsets = new Map();
    for (const [k, v] of Object.entries(raw)) {
      const n = Number(v);
      if (!/^.+-\d+$/.test(k)) throw bad(o, 'start_mode.offsets', `start_mode.offsets key '${k}' is not 'topic-partition'.`);
      if (!Number.isSafeInteger(n) || n < 0)
        throw bad(o, 'start_mode.offsets', `start_mode.offsets '${k}' must be an offset of 0 or more, got '${String(v)}'.`);
      startOffsets.set(k, n);
    }
  } else if (o.has('start_mode.offsets'))
    throw bad(o, 'start_mode.offsets', `'start_mode.offsets' is only read with start_mode = specific_offsets (it is ${startMode}).`);
  const fieldDelimiter = o.get<string>('field_delimiter');
  if (fieldDelimiter === '') throw bad(o, 'field_delimiter', 'field_delimiter must not be empty.');
  const { table, raw } = sourceTable(o, regex ? 'default' : (topics[0] ?? 'default'), format === 'native');
  const problem = formatProblem(table.columns, format);
  if (problem) throw bad(o, 'schema', `format ${format}: the ${problem}.`);
  if ((format === 'avro' || format === 'protobuf') && !o.has('schema'))
    throw bad(o, 'format', `format ${format} needs 'schema': the records are decoded into its columns, as SeaTunnel does.`);
  const protobuf = protobufOptions(o, format, table.columns, 'source');
  const debeziumFilter = debeziumFilterOf(o, format);
  return {
    topics,
    pattern: regex,
    format: format as KafkaFormat,
    fieldDelimiter,
    startMode,
    startTimestamp,
    endTimestamp,
    startOffsets,
    table,
    raw,
    protobuf,
    debeziumFilter,
  };
}

/** debezium_record_table_filter, checked: only with format debezium_json, table_name required, no other keys. */
function debeziumFilterOf(o: PluginOptions, format: string): DebeziumTableFilter | undefined {
  const name = 'debezium_record_table_filter';
  if (!o.has(name)) return undefined;
  if (format !== 'debezium_json') throw bad(o, name, `'${name}' is read only with format = debezium_json (it is ${format}).`);
  const raw = o.get<Record<string, unknown>>(name);
  const keys = ['database_name', 'schema_name', 'table_name'];
  const unknown = Object.keys(raw).find((k) => !keys.includes(k));
  if (unknown) throw bad(o, name, `'${name}' has no key '${unknown}' (it takes ${keys.join(', ')}).`);
  const text = (k: string): string | undefined => {
    const v = raw[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    throw bad(o, name, `'${name}' ${k} must be a name, not an object.`);
  };
  const table = text('table_name');
  if (!table) throw bad(o, name, `'${name}' needs table_name.`);
  return { database: text('database_name'), schema: text('schema_name'), table };
}

function readConfig(o: PluginOptions): SourceConfig {
  const lists = ENTRY_LISTS.filter((n) => o.has(n));
  if (lists.length > 1) throw bad(o, lists[1], "'table_list' and 'tables_configs' are the same list: give one.");
  let entries: TopicEntry[];
  if (lists.length === 1) {
    const list = lists[0];
    const beside = [...ENTRY_OPTIONS].find((n) => o.has(n));
    if (beside) throw bad(o, beside, `'${beside}' goes into each item of ${list}, not beside it (as SeaTunnel: one ${list} or one topic).`);
    const items = o.get<Record<string, unknown>[]>(list);
    if (items.length === 0) throw bad(o, list, `${list} has no item.`);
    const defs = kafkaSourceSpec.options.filter((d) => ENTRY_OPTIONS.has(d.name));
    entries = items.map((item) => readEntry(resolveOptionItem(item, defs, o.place(list))));
  } else entries = [readEntry(o)];
  const ids = new Set<string>();
  for (const e of entries) {
    if (ids.has(e.table.tableId))
      throw bad(o, lists[0] ?? 'schema', `two topic entries make the same table ${e.table.tableId}: give each its own schema.table.`);
    ids.add(e.table.tableId);
  }
  return {
    bootstrap: o.get<string>('bootstrap.servers'),
    entries,
    group: o.get<string>('consumer.group'),
    commitOnCheckpoint: o.get<boolean>('commit_on_checkpoint'),
    settings: consumerSettings(o),
    skipBadRecords: o.get<string>('format_error_handle_way') === 'skip',
    discoveryMs: o.get<number>('partition-discovery.interval-millis'),
    pollTimeoutMs: o.get<number>('poll.timeout'),
  };
}

function splitId(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** Which reader owns a partition: spread by topic, then round-robin over partitions. */
export function ownerOf(topic: string, partition: number, parallelism: number): number {
  let h = 0;
  for (let i = 0; i < topic.length; i++) h = (Math.imul(h, 31) + topic.charCodeAt(i)) | 0;
  return (((h & 0x7fffffff) % parallelism) + partition) % parallelism;
}

interface EnumState {
  /** Splits handed out (or waiting for their reader): never handed out twice. */
  known: string[];
  pending: KafkaSplit[];
}

const LATEST = -1n;
const EARLIEST = -2n;

class KafkaEnumerator implements SplitEnumerator<KafkaSplit, EnumState> {
  private readonly known: Set<string>;
  private readonly pending: KafkaSplit[];
  private admin?: Admin;
  private timer?: NodeJS.Timeout;
  private discovering?: Promise<void>;
  private noMore = false;
  private initialDone: boolean;

  constructor(
    private readonly ctx: SplitEnumeratorContext<KafkaSplit>,
    private readonly cfg: SourceConfig,
    private readonly bounded: boolean,
    restored?: EnumState,
  ) {
    this.known = new Set(restored?.known ?? []);
    this.pending = [...(restored?.pending ?? [])];
    this.initialDone = restored !== undefined;
  }

  open(): void {
    // The Admin alone: metadata, offsets by time and the group's offsets (a Consumer would add a
    // second connection and compile its group-options validator on the planning's critical path).
    this.admin = newAdmin(this.cfg.bootstrap, this.cfg.settings, 'tideway-kafka-enumerator');
  }

  async run(): Promise<void> {
    await this.discover();
    if (!this.bounded && this.cfg.discoveryMs > 0) {
      this.timer = setInterval(() => {
        this.discovering ??= this.discover()
          .catch((err: unknown) => log.warn({ err: errorText(err) }, 'partition discovery failed; retrying at the next interval'))
          .finally(() => {
            this.discovering = undefined;
          });
      }, this.cfg.discoveryMs);
      this.timer.unref();
    } else {
      this.noMore = true;
      for (const r of this.ctx.registeredReaders()) this.flush(r);
    }
  }

  private async topicsNow(): Promise<string[]> {
    const listed = this.cfg.entries.flatMap((e) => e.topics);
    if (!this.cfg.entries.some((e) => e.pattern)) return [...new Set(listed)];
    const admin = this.admin as Admin;
    const all = await admin.listTopics();
    const matched = all.filter((t) => !t.startsWith('__') && this.cfg.entries.some((e) => e.pattern?.test(t)));
    return [...new Set([...listed, ...matched])];
  }

  /** Finds partitions not handed out yet and hands them out with their start (and end) offsets. */
  private async discover(): Promise<void> {
    const admin = this.admin as Admin;
    const cfg = this.cfg;
    const ms = connectTimeoutMs(cfg.settings);
    const topics = await withDeadline(cfg.bootstrap, ms, 'listing topics', () => this.topicsNow());
    if (topics.length === 0) {
      if (!this.initialDone)
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `no topic at ${cfg.bootstrap} matches the pattern '${cfg.entries.map((e) => e.pattern?.source ?? '').join("', '")}'.`,
        );
      return;
    }
    let metadata;
    try {
      metadata = await withDeadline(cfg.bootstrap, ms, `reading the metadata of ${topics.join(', ')}`, () =>
        admin.metadata({ topics, forceUpdate: true, autocreateTopics: false }),
      );
    } catch (err) {
      if (isUnknownTopic(err)) {
        throw new TidewayError(ErrorCode.TASK_FAILED, `topic ${topics.join(', ')} does not exist at ${cfg.bootstrap}.`);
      }
      throw err;
    }
    const fresh: { topic: string; partition: number }[] = [];
    for (const t of topics) {
      const m = metadata.topics.get(t);
      if (!m) throw new TidewayError(ErrorCode.TASK_FAILED, `topic ${t} does not exist at ${cfg.bootstrap}.`);
      for (let p = 0; p < m.partitionsCount; p++) if (!this.known.has(splitId(t, p))) fresh.push({ topic: t, partition: p });
    }
    if (fresh.length === 0) {
      this.initialDone = true;
      return;
    }
    const starts = await withDeadline(cfg.bootstrap, ms, 'looking up start offsets', () => this.startOffsets(fresh, !this.initialDone));
    const ends = this.bounded ? await withDeadline(cfg.bootstrap, ms, 'looking up end offsets', () => this.endOffsets(fresh)) : undefined;
    for (const f of fresh) {
      const id = splitId(f.topic, f.partition);
      const offset = starts.get(id) ?? 0;
      const end = ends?.get(id);
      this.known.add(id);
      this.pending.push({ splitId: id, topic: f.topic, partition: f.partition, offset, end });
    }
    if (this.initialDone) log.info({ partitions: fresh.map((f) => splitId(f.topic, f.partition)) }, 'new partitions found');
    this.initialDone = true;
    for (const r of this.ctx.registeredReaders()) this.flush(r);
  }

  /** Where a BATCH job stops each partition: its end now, or its entry's start_mode.end_timestamp. */
  private async endOffsets(parts: readonly { topic: string; partition: number }[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const entry of this.cfg.entries) {
      const mine = parts.filter((p) => entryOf(this.cfg.entries, p.topic) === entry);
      if (mine.length === 0) continue;
      const at = entry.endTimestamp === undefined ? LATEST : BigInt(entry.endTimestamp);
      for (const [k, v] of await this.listOffsets(mine, at)) out.set(k, v);
    }
    return out;
  }

  private async listOffsets(parts: readonly { topic: string; partition: number }[], timestamp: bigint): Promise<Map<string, number>> {
    const admin = this.admin as Admin;
    const byTopic = new Map<string, { partitionIndex: number; timestamp: bigint }[]>();
    for (const p of parts) {
      const list = byTopic.get(p.topic) ?? [];
      list.push({ partitionIndex: p.partition, timestamp });
      byTopic.set(p.topic, list);
    }
    const listed = await admin.listOffsets({
      topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
      isolationLevel: this.cfg.settings.isolationLevel,
    });
    const got = new Map<string, { offset: bigint }>();
    for (const t of listed) for (const p of t.partitions) got.set(splitId(t.name, p.partitionIndex), p);
    const out = new Map<string, number>();
    const latest = timestamp >= 0n ? await this.listOffsets(parts, LATEST) : undefined;
    for (const p of parts) {
      const found = got.get(splitId(p.topic, p.partition));
      // A timestamp after every record finds none (-1): start at the end.
      out.set(
        splitId(p.topic, p.partition),
        found && found.offset >= 0n ? Number(found.offset) : (latest?.get(splitId(p.topic, p.partition)) ?? 0),
      );
    }
    return out;
  }

  private async startOffsets(parts: readonly { topic: string; partition: number }[], initial: boolean): Promise<Map<string, number>> {
    // Partitions found while the job runs are read from their start, whatever start_mode says.
    if (!initial) return this.listOffsets(parts, EARLIEST);
    const out = new Map<string, number>();
    for (const entry of this.cfg.entries) {
      const mine = parts.filter((p) => entryOf(this.cfg.entries, p.topic) === entry);
      if (mine.length > 0) for (const [k, v] of await this.entryStartOffsets(entry, mine)) out.set(k, v);
    }
    return out;
  }

  /** Where the partitions of one entry start, by its start_mode. */
  private async entryStartOffsets(cfg: TopicEntry, parts: readonly { topic: string; partition: number }[]): Promise<Map<string, number>> {
    switch (cfg.startMode) {
      case 'earliest':
        return this.listOffsets(parts, EARLIEST);
      case 'latest':
        return this.listOffsets(parts, LATEST);
      case 'timestamp':
        return this.listOffsets(parts, BigInt(cfg.startTimestamp ?? 0));
      case 'specific_offsets': {
        const out = new Map<string, number>();
        const missing = parts.filter((p) => !cfg.startOffsets?.has(splitId(p.topic, p.partition)));
        const fallback = missing.length > 0 ? await this.listOffsets(missing, EARLIEST) : new Map<string, number>();
        for (const p of parts) {
          const id = splitId(p.topic, p.partition);
          out.set(id, cfg.startOffsets?.get(id) ?? fallback.get(id) ?? 0);
        }
        return out;
      }
      case 'group_offsets': {
        const admin = this.admin as Admin;
        const topics = [...new Set(parts.map((p) => p.topic))];
        const groups = await admin.listConsumerGroupOffsets({
          groups: [
            {
              groupId: this.cfg.group,
              topics: topics.map((t) => ({ name: t, partitionIndexes: parts.filter((p) => p.topic === t).map((p) => p.partition) })),
            },
          ],
        });
        const committed = new Map<string, number>();
        for (const g of groups)
          for (const t of g.topics)
            for (const p of t.partitions)
              if (p.committedOffset >= 0n) committed.set(splitId(t.name, p.partitionIndex), Number(p.committedOffset));
        const missing = parts.filter((p) => !committed.has(splitId(p.topic, p.partition)));
        const fallback =
          missing.length > 0
            ? await this.listOffsets(missing, this.cfg.settings.autoOffsetReset === 'latest' ? LATEST : EARLIEST)
            : new Map<string, number>();
        for (const [k, v] of fallback) committed.set(k, v);
        return committed;
      }
    }
  }

  /** Hands a reader the pending splits it owns, and says no more will come once discovery is over. */
  private flush(subtask: number): void {
    const mine = this.pending.filter((s) => ownerOf(s.topic, s.partition, this.ctx.parallelism) === subtask);
    if (mine.length > 0) {
      for (const s of mine) this.pending.splice(this.pending.indexOf(s), 1);
      this.ctx.assignSplits(subtask, mine);
    }
    if (this.noMore) this.ctx.signalNoMoreSplits(subtask);
  }

  registerReader(subtask: number): void {
    this.flush(subtask);
  }

  handleSplitRequest(): void {}

  addSplitsBack(splits: KafkaSplit[], subtask: number): void {
    this.pending.push(...splits);
    if (this.ctx.registeredReaders().includes(subtask)) this.flush(subtask);
  }

  snapshotState(): EnumState {
    return { known: [...this.known], pending: this.pending.map((s) => ({ ...s })) };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.discovering;
    await this.admin?.close();
  }
}

// Fetch partition errors after which the leader is looked up again.
const STALE_LEADER = new Set([3, 6, 74, 75, 100]);
const OFFSET_OUT_OF_RANGE = 1;
/** The longest one fetch waits, so that barriers reach the reader quickly. */
const MAX_FETCH_WAIT_MS = 500;
const ERROR_GIVE_UP_MS = 60_000;
/** Where the partition goes in a native row. */
const NATIVE_PARTITION = NATIVE_COLUMNS.findIndex((c) => c.name === 'partition');

/** The splits and offsets one fetch asks for, as text to compare. */
function fetchKey(parts: readonly (readonly [KafkaSplit, number])[]): string {
  return parts.map(([s, offset]) => `${s.splitId}@${offset}`).join(' ');
}

interface TopicInfo {
  readonly id: string;
  readonly leaders: readonly number[];
}

/** How the records of one entry's topics become rows of its table (native: undefined, the record itself is the row). */
interface TopicDecoder {
  readonly decode?: ValueDecoder;
  readonly tableId: string;
  readonly format: KafkaFormat;
}

class KafkaReader implements SourceReader<KafkaSplit> {
  private readonly splits = new Map<string, KafkaSplit>();
  private noMore = false;
  /** Metadata, the fetches' connections and the group's offsets (no Consumer: it never joins its group). */
  private admin?: Admin;
  private topics = new Map<string, TopicInfo>();
  private readonly decoders = new Map<TopicEntry, TopicDecoder>();
  private readonly byTopic = new Map<string, TopicDecoder>();
  /** Offsets each checkpoint holds, committed to the group when it completes. */
  private readonly toCommit = new Map<number, Map<string, { topic: string; partition: number; offset: number }>>();
  private failingSince = 0;
  private skipped = 0;
  /** The fetch sent to each leader ahead of the next poll, for these splits at these offsets (fetchKey). */
  private readonly prefetched = new Map<number, { key: string; response: Promise<RawFetchResponse> }>();
  /** The consumer's Fetch, with the record batches left as bytes (fetch-records.ts). */
  private fetcher?: RawFetcher;
  /** The brokers by node id, from the last metadata read. */
  private brokers = new Map<number, { host: string; port: number }>();
  /** Consumer lag by split id: records from the next offset to the end the last fetch saw. */
  private readonly lagBySplit = new Map<string, number>();

  constructor(
    private readonly ctx: SourceReaderContext,
    private readonly cfg: SourceConfig,
  ) {
    for (const e of cfg.entries) {
      if (e.format === 'native') {
        this.decoders.set(e, { tableId: e.table.tableId, format: e.format });
        continue;
      }
      const decoder = compileDecoder(
        e.table,
        e.format,
        e.fieldDelimiter,
        e.raw,
        e.protobuf && protobufMessage(e.protobuf),
        e.debeziumFilter,
      );
      this.decoders.set(e, { decode: decoder, tableId: e.table.tableId, format: e.format });
    }
  }

  open(): void {
    this.admin = newAdmin(this.cfg.bootstrap, this.cfg.settings, `tideway-kafka-reader-${this.ctx.subtaskIndex}`);
    this.fetcher = new RawFetcher(this.admin);
  }

  addSplits(splits: KafkaSplit[]): void {
    for (const s of splits) this.splits.set(s.splitId, { ...s });
  }

  handleNoMoreSplits(): void {
    this.noMore = true;
  }

  private active(): KafkaSplit[] {
    return [...this.splits.values()].filter((s) => s.end === undefined || s.offset < s.end);
  }

  private async refreshTopics(names: readonly string[]): Promise<void> {
    const admin = this.admin as Admin;
    const md = await admin.metadata({ topics: [...names], forceUpdate: true, autocreateTopics: false });
    for (const [id, b] of md.brokers) this.brokers.set(id, { host: b.host, port: b.port });
    for (const n of names) {
      const t = md.topics.get(n);
      if (t) this.topics.set(n, { id: t.id, leaders: t.partitions.map((p) => p.leader) });
    }
  }

  async pollNext(output: Collector): Promise<void> {
    // Finished splits (bounded jobs) stay: the final checkpoint holds, and commits, their offsets.
    const active = this.active();
    if (active.length === 0) {
      if (this.noMore && this.ctx.boundedness === 'BOUNDED') this.ctx.signalNoMoreElement();
      return;
    }
    try {
      const missing = [...new Set(active.map((s) => s.topic))].filter((t) => {
        const info = this.topics.get(t);
        return !info || active.some((s) => s.topic === t && (info.leaders[s.partition] ?? -1) < 0);
      });
      if (missing.length > 0) await this.refreshTopics(missing);
      const byLeader = new Map<number, KafkaSplit[]>();
      for (const s of active) {
        const leader = this.topics.get(s.topic)?.leaders[s.partition] ?? -1;
        if (leader < 0) continue;
        const list = byLeader.get(leader) ?? [];
        list.push(s);
        byLeader.set(leader, list);
      }
      const groups = [...byLeader];
      const responses = await Promise.all(groups.map(([node, splits]) => this.fetchOrPrefetched(node, splits)));
      this.prefetched.clear();
      // The next fetch of each leader goes out now, from where these responses end, and the
      // broker reads it while these records are decoded (kept only if the offsets match then).
      if (this.mayPrefetch()) for (let i = 0; i < groups.length; i++) this.prefetch(groups[i][0], groups[i][1], responses[i]);
      const rows: Row[] = [];
      let stale = false;
      for (let i = 0; i < groups.length; i++) stale = this.collect(responses[i], groups[i][1], rows) || stale;
      if (stale) {
        this.topics.clear();
        this.prefetched.clear();
      }
      if (rows.length > 0) output.collectBatch(rows);
      this.failingSince = 0;
    } catch (err) {
      this.prefetched.clear();
      if (err instanceof TidewayError) throw err;
      this.topics.clear();
      const now = Date.now();
      if (this.failingSince === 0) this.failingSince = now;
      if (now - this.failingSince > ERROR_GIVE_UP_MS) {
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `Kafka at ${this.cfg.bootstrap} could not be read for ${ERROR_GIVE_UP_MS / 1000} s: ${errorText(err)}`,
          {
            retryable: true,
          },
        );
      }
      log.warn({ err: errorText(err) }, 'fetch failed; retrying');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** The response of the prefetch made for exactly these splits at their offsets, else a new fetch. */
  private fetchOrPrefetched(node: number, splits: readonly KafkaSplit[]): Promise<RawFetchResponse> {
    const p = this.prefetched.get(node);
    if (p && p.key === fetchKey(splits.map((s) => [s, s.offset]))) return p.response;
    return this.fetchFrom(
      node,
      splits.map((s) => [s, s.offset]),
    );
  }

  /**
   * Prefetching needs the next offsets known before the records are decoded: not with
   * max.poll.records or read_limit, which leave records of a response for later polls.
   */
  private mayPrefetch(): boolean {
    return this.cfg.settings.maxPollRecords === undefined && this.ctx.maxRowsPerPoll === undefined;
  }

  /** Sends the fetch that follows `response` for its splits that have more to read, if it had records and no error. */
  private prefetch(node: number, splits: readonly KafkaSplit[], response: RawFetchResponse): void {
    const next = new Map<KafkaSplit, number>();
    const byId = new Map<string, string>();
    for (const [name, info] of this.topics) byId.set(info.id, name);
    for (const t of response.responses) {
      const topic = byId.get(t.topicId);
      for (const p of t.partitions) {
        const split = splits.find((s) => s.topic === topic && s.partition === p.partitionIndex);
        if (!split || p.errorCode !== 0) return; // an error: the poll handles it, no prefetch
        if (p.nextOffset < 0) continue;
        next.set(split, Math.max(split.offset, p.nextOffset));
      }
    }
    // Splits without records in this response keep their offset; bounded ones at their end drop
    // out. No records at all: the next poll fetches (and waits at the broker) as usual.
    const parts: [KafkaSplit, number][] = [];
    for (const s of splits) {
      const offset = next.get(s) ?? s.offset;
      if (s.end === undefined || offset < s.end) parts.push([s, offset]);
    }
    if (parts.length === 0 || next.size === 0) return;
    const fetched = this.fetchFrom(node, parts);
    // A prefetch nobody takes (offsets moved, the reader closed) must not fail the task.
    fetched.catch(() => undefined);
    this.prefetched.set(node, { key: fetchKey(parts), response: fetched });
  }

  private async fetchFrom(node: number, parts: readonly (readonly [KafkaSplit, number])[]): Promise<RawFetchResponse> {
    const s = this.cfg.settings;
    const broker = this.brokers.get(node);
    if (!broker) throw new Error(`no broker of node id ${node} in the metadata`);
    const byTopic = new Map<string, (readonly [KafkaSplit, number])[]>();
    for (const part of parts) byTopic.set(part[0].topic, [...(byTopic.get(part[0].topic) ?? []), part]);
    return (this.fetcher as RawFetcher).fetch(broker, {
      minBytes: s.minBytes ?? 1,
      maxBytes: s.maxBytes ?? 50 * 1024 * 1024,
      maxWaitTime: Math.min(s.maxWaitTime ?? this.cfg.pollTimeoutMs, this.cfg.pollTimeoutMs, MAX_FETCH_WAIT_MS),
      isolationLevel: s.isolationLevel,
      topics: [...byTopic].map(([topic, list]) => ({
        topicId: this.topics.get(topic)?.id ?? '',
        partitions: list.map(([sp, offset]) => ({
          partition: sp.partition,
          currentLeaderEpoch: -1,
          fetchOffset: BigInt(offset),
          lastFetchedEpoch: -1,
          partitionMaxBytes: s.maxBytesPerPartition ?? 1024 * 1024,
        })),
      })),
    });
  }

  /** Turns one fetch response into rows, advancing the splits; returns whether a leader moved. */
  private collect(response: RawFetchResponse, splits: readonly KafkaSplit[], rows: Row[]): boolean {
    let stale = false;
    const byId = new Map<string, string>();
    for (const [name, info] of this.topics) byId.set(info.id, name);
    // max.poll.records, and a paced job's rows per poll (read_limit): the rest stays for later polls.
    const limit = Math.min(this.cfg.settings.maxPollRecords ?? Number.MAX_SAFE_INTEGER, this.ctx.maxRowsPerPoll ?? Number.MAX_SAFE_INTEGER);
    for (const t of response.responses) {
      const topic = byId.get(t.topicId);
      if (topic === undefined) continue;
      for (const p of t.partitions) {
        const split = splits.find((s) => s.topic === topic && s.partition === p.partitionIndex);
        if (!split) continue;
        if (p.errorCode !== 0) {
          if (STALE_LEADER.has(p.errorCode)) {
            stale = true;
            continue;
          }
          if (p.errorCode === OFFSET_OUT_OF_RANGE) {
            throw new TidewayError(
              ErrorCode.TASK_FAILED,
              `offset ${split.offset} of ${topic} partition ${p.partitionIndex} is out of range at ${this.cfg.bootstrap} (the records were deleted or the topic was recreated).`,
            );
          }
          // Any other error (a replica not available, a storage error): the poll retries, as
          // for a failed request, and gives up after ERROR_GIVE_UP_MS.
          throw new Error(`fetching ${topic} partition ${p.partitionIndex} failed with Kafka error code ${p.errorCode}`);
        }
        this.readBatches(split, p, rows, limit);
        // read_committed reads up to the last stable offset, read_uncommitted up to the high watermark.
        const end = this.cfg.settings.isolationLevel === 1 && p.lastStableOffset >= 0n ? p.lastStableOffset : p.highWatermark;
        if (end >= 0n) this.lagBySplit.set(split.splitId, Math.max(0, Number(end) - split.offset));
      }
    }
    return stale;
  }

  /**
   * The cursor's next batch. A batch that fails its CRC check fails the task at once, naming where
   * (a retry would read the same bytes): Java's consumer refuses it too, unless check.crcs is false.
   */
  private nextBatch(batch: BatchCursor, split: KafkaSplit): boolean {
    try {
      return batch.nextBatch();
    } catch (err) {
      if (!(err instanceof CorruptBatchError)) throw err;
      throw new TidewayError(
        ErrorCode.TASK_FAILED,
        `topic ${split.topic} partition ${split.partition}: ${err.message} (kafka.config check.crcs = false reads it unchecked).`,
        { retryable: true },
      );
    }
  }

  private readBatches(split: KafkaSplit, p: FetchedPartition, rows: Row[], limit: number): void {
    if (p.records === null) return;
    // read_committed: the aborted transactions' batches and the markers are skipped.
    const aborted = new AbortedTransactions(p.abortedTransactions);
    // Offsets as numbers (exact below 2^53): no bigint arithmetic per record.
    const start = split.offset;
    const end = split.end ?? Number.POSITIVE_INFINITY;
    const d = this.decoderOf(split.topic);
    const one = d.decode?.one;
    const batch = new BatchCursor(p.records, this.cfg.settings.checkCrcs ?? true);
    while (this.nextBatch(batch, split)) {
      const first = batch.firstOffset;
      const next = first + batch.lastOffsetDelta + 1;
      if (next <= start) continue;
      if (aborted.skips(batch)) {
        split.offset = Math.max(split.offset, next);
        continue;
      }
      batch.openRecords();
      while (batch.nextRecord()) {
        const offset = first + batch.offsetDelta;
        if (offset < start) continue;
        if (offset >= end) {
          split.offset = end;
          return;
        }
        if (rows.length >= limit) return;
        split.offset = offset + 1;
        if (!d.decode) {
          const fields = nativeRow(batch);
          fields[NATIVE_PARTITION] = split.partition;
          rows.push({ kind: '+I', tableId: d.tableId, fields });
          continue;
        }
        if (batch.valueStart < 0) continue; // a tombstone carries no row
        if (one) {
          let fields: unknown[];
          try {
            fields = one(batch.data, batch.valueStart, batch.valueEnd);
          } catch (err) {
            this.badRecord(err, split, offset, d);
            continue;
          }
          rows.push({ kind: '+I', tableId: d.tableId, fields });
        } else this.decodeMany(d, batch.data.subarray(batch.valueStart, batch.valueEnd), split, offset, rows);
      }
      split.offset = Math.max(split.offset, next);
    }
  }

  /** The decoder of a split's topic (its entry's), found once per topic. */
  private decoderOf(topic: string): TopicDecoder {
    let d = this.byTopic.get(topic);
    if (!d) {
      const entry = entryOf(this.cfg.entries, topic);
      d = entry && this.decoders.get(entry);
      if (!d)
        throw new TidewayError(
          ErrorCode.TASK_FAILED,
          `the Kafka source was given topic ${topic}, which none of its topics or patterns names.`,
        );
      this.byTopic.set(topic, d);
    }
    return d;
  }

  /** A change format's value: its rows, or the bad-record handling. */
  private decodeMany(d: TopicDecoder, value: Buffer, split: KafkaSplit, offset: number, rows: Row[]): void {
    let decoded;
    try {
      decoded = (d.decode?.many as NonNullable<ValueDecoder['many']>)(value);
    } catch (err) {
      this.badRecord(err, split, offset, d);
      return;
    }
    for (const r of decoded) rows.push({ kind: r.kind, tableId: d.tableId, fields: r.fields });
  }

  /** A record its format cannot decode: fails the task, or is skipped (format_error_handle_way = skip). */
  private badRecord(err: unknown, split: KafkaSplit, offset: number, d: TopicDecoder): void {
    const where = `the record at offset ${offset} of ${split.topic} partition ${split.partition}`;
    if (!this.cfg.skipBadRecords) {
      throw new TidewayError(ErrorCode.VALUE_CONVERSION, `${where} does not match format ${d.format}: ${(err as Error).message}`);
    }
    if (this.skipped++ % 1000 === 0)
      log.warn(
        { err: (err as Error).message, skipped: this.skipped },
        `${where} does not match format ${d.format}; skipped (format_error_handle_way = skip)`,
      );
  }

  lag(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, n] of this.lagBySplit) if (this.splits.has(id)) out[id] = n;
    return out;
  }

  snapshotState(checkpointId: number): KafkaSplit[] {
    const splits = [...this.splits.values()].map((s) => ({ ...s }));
    if (this.cfg.commitOnCheckpoint) {
      this.toCommit.set(
        checkpointId,
        new Map(splits.map((s) => [s.splitId, { topic: s.topic, partition: s.partition, offset: s.offset }])),
      );
    }
    return splits;
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    if (!this.cfg.commitOnCheckpoint) return;
    const offsets = this.toCommit.get(checkpointId);
    for (const id of [...this.toCommit.keys()]) if (id <= checkpointId) this.toCommit.delete(id);
    if (!offsets || offsets.size === 0) return;
    const admin = this.admin as Admin;
    const topics = new Map<string, { partition: number; offset: bigint }[]>();
    for (const o of offsets.values())
      topics.set(o.topic, [...(topics.get(o.topic) ?? []), { partition: o.partition, offset: BigInt(o.offset) }]);
    try {
      await admin.alterConsumerGroupOffsets({
        groupId: this.cfg.group,
        topics: [...topics].map(([name, partitionOffsets]) => ({ name, partitionOffsets })),
      });
    } catch (err) {
      // The offsets are in the checkpoint, which is what a restore reads; the group's copy is
      // for monitoring and for start_mode = group_offsets, and the next checkpoint commits again.
      log.warn(
        { group: this.cfg.group, err: errorText(err) },
        `committing offsets of checkpoint ${checkpointId} to the consumer group failed`,
      );
    }
  }

  async close(): Promise<void> {
    this.prefetched.clear();
    await this.admin?.close().catch(() => undefined);
  }
}

function sourceTable(o: PluginOptions, fallbackTable: string, native: boolean): { table: CatalogTable; raw: boolean } {
  if (native) {
    const fields = Object.fromEntries(NATIVE_COLUMNS.map((c) => [c.name, formatType(c.type)]));
    return { table: parseSchemaConfig({ fields }, { catalogName: 'Kafka', fallbackTable }).table, raw: false };
  }
  if (o.has('schema')) {
    return {
      table: parseSchemaConfig(o.get('schema'), { catalogName: 'Kafka', fallbackTable, place: o.place('schema') }).table,
      raw: false,
    };
  }
  const table = parseSchemaConfig({ fields: { [CONTENT_COLUMN]: 'string' } }, { catalogName: 'Kafka', fallbackTable }).table;
  return { table, raw: isContentTable(table, false) };
}

/** One table the source reads, and from which topics (for `tideway verify` through Kafka). */
export interface TopicTable {
  readonly tableId: string;
  /** Its fields' names, in order. */
  readonly columns: readonly string[];
  readonly topics: readonly string[];
  readonly pattern?: RegExp;
}

/**
 * Where a read_committed reader of the topics ends now (each partition's last stable offset), by
 * split id (`topic-partition`), for `tideway verify` through Kafka.
 */
async function committedEnds(cfg: SourceConfig, topics: readonly string[]): Promise<Map<string, number>> {
  const consumer = newConsumer(cfg.bootstrap, cfg.group, cfg.settings, 'tideway-verify');
  try {
    const ms = connectTimeoutMs(cfg.settings);
    const metadata = await withDeadline(cfg.bootstrap, ms, `reading the metadata of ${topics.join(', ')}`, () =>
      consumer.metadata({ topics: [...topics], autocreateTopics: false }),
    );
    const partitions: Record<string, number[]> = {};
    for (const t of topics) partitions[t] = Array.from({ length: metadata.topics.get(t)?.partitionsCount ?? 0 }, (_, p) => p);
    const got = await withDeadline(cfg.bootstrap, ms, 'looking up end offsets', () =>
      consumer.listOffsetsWithTimestamps({ topics: [...topics], partitions, timestamp: LATEST, isolationLevel: 1 }),
    );
    const out = new Map<string, number>();
    for (const [topic, byPartition] of got) for (const [p, o] of byPartition) out.set(splitId(topic, p), Number(o.offset));
    return out;
  } finally {
    await consumer.close().catch(() => undefined);
  }
}

/** The next offset of each partition in a checkpoint's reader splits, by split id. */
function checkpointedOffsets(splits: readonly unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of splits as KafkaSplit[]) if (s && typeof s.offset === 'number') out.set(splitId(s.topic, s.partition), s.offset);
  return out;
}

/**
 * SeaTunnel's Kafka source: each partition of the topics is a split, spread over the readers;
 * offsets are part of checkpoints (a restore resumes at them exactly) and are committed to the
 * consumer group when a checkpoint completes; read_committed by default.
 */
export const kafkaSourceFactory: SourceFactory = {
  type: 'source',
  name: 'Kafka',
  description:
    "Reads Kafka topics (a list or a pattern) as json, text, change-log (canal, debezium, maxwell, ogg, Kafka Connect json), avro or protobuf rows, or as whole records (native: headers, key, value, partition, timestamp): each partition is a split, offsets are checkpointed and committed to the consumer group when a checkpoint completes, transactions are read committed, partitions added while a streaming job runs are picked up, and each partition's consumer lag is the metric tideway_source_lag.",
  spec: kafkaSourceSpec,
  create(ctx: PluginContext): Source<KafkaSplit, EnumState> & {
    topicTables(): TopicTable[];
    committedEnds(topics: readonly string[]): Promise<Map<string, number>>;
    checkpointedOffsets(splits: readonly unknown[]): Map<string, number>;
  } {
    const o = ctx.options;
    const cfg = readConfig(o);
    const bounded = ctx.jobMode === 'BATCH';
    if (!bounded && cfg.entries.some((e) => e.endTimestamp !== undefined))
      throw bad(o, 'start_mode', "'start_mode.end_timestamp' is read only in BATCH jobs (this job is STREAMING).");
    return {
      boundedness: () => (bounded ? 'BOUNDED' : 'UNBOUNDED'),
      catalogTables: () => cfg.entries.map((e) => e.table),
      createEnumerator: (ectx, restored) => new KafkaEnumerator(ectx, cfg, bounded, restored),
      // The enumerator's state (partitions found, splits not handed out) does not depend on the
      // number of readers; a restore at another parallelism gives the readers' partitions, with
      // their offsets, back to it, and it hands each to its owner among the readers there are now.
      rescalable: true,
      createReader: (rctx) => new KafkaReader(rctx, cfg),
      // For `tideway verify` through Kafka: which topics hold which table, and how far the job read them.
      topicTables: () =>
        cfg.entries.map((e) => ({
          tableId: e.table.tableId,
          columns: e.table.columns.map((c) => c.name),
          topics: e.topics,
          pattern: e.pattern,
        })),
      committedEnds: (topics) => committedEnds(cfg, topics),
      checkpointedOffsets,
    };
  },
};
