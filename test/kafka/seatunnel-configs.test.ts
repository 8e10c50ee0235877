/**
 * SeaTunnel's own Kafka e2e configs (shared/conformance/seatunnel/kafka, unchanged) through
 * `tideway run` against the run's shared broker. As KafkaFormatIT and KafkaIT do, each case
 * first sends the records its IT sends (the lines of the data files, one record each), then runs
 * the config and checks what the IT checks. The one rewrite puts the servers' addresses in place
 * of the IT's container hosts (kafkaCluster:9092, kafka_e2e:9092, postgresql:5432). Every config
 * of the folder is run here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DataType } from '@tideway/api';
import {
  compileAvroDecoder,
  compileAvroEncoder,
  compileProtobufDecoder,
  compileProtobufEncoder,
  protobufType,
} from '@tideway/connector-kafka';
import { kafkaSkipped, runSeaTunnelLocal, seaTunnelHome, sharedConformanceDir, sharedKafka, startPostgres } from '@tideway/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { consumeAll, consumeRaw, createTopic, endOffset, produce, TempDirs, writeJob } from './kafka-helpers.js';

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

const shared = sharedConformanceDir();
const kafkaDir = shared ? join(shared, 'kafka') : '';

/** Creates `topic` (one partition) at `bootstrap` and sends it each non-blank line of a data file of the shared kafka folder, as the ITs load them. */
async function produceDataFile(bootstrap: string, topic: string, file: string): Promise<void> {
  await createTopic(bootstrap, topic, 1);
  const lines = readFileSync(join(kafkaDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  await produce(
    bootstrap,
    topic,
    lines.map((value) => ({ value })),
  );
}

/** Canal, Maxwell and OGG changes as SeaTunnel's sinks write them (KafkaFormatIT's expected lists, built from their rows). */
function changeRecords(rows: readonly [number, string, string, string, 'INSERT' | 'DELETE'][]): string[] {
  return rows.map(([id, name, description, weight, type]) => JSON.stringify({ data: { id, name, description, weight }, type }));
}

const CANAL_EXPECTED = changeRecords([
  [1101, 'scooter', 'Small 2-wheel scooter', '3.14', 'INSERT'],
  [1102, 'car battery', '12V car battery', '8.1', 'INSERT'],
  [1103, '12-pack drill bits', '12-pack of drill bits with sizes ranging from #40 to #3', '0.8', 'INSERT'],
  [1104, 'hammer', "12oz carpenter's hammer", '0.75', 'INSERT'],
  [1105, 'hammer', "14oz carpenter's hammer", '0.875', 'INSERT'],
  [1106, 'hammer', "16oz carpenter's hammer", '1.0', 'INSERT'],
  [1107, 'rocks', 'box of assorted rocks', '5.3', 'INSERT'],
  [1108, 'jacket', 'water resistent black wind breaker', '0.1', 'INSERT'],
  [1109, 'spare tire', '24 inch spare tire', '22.2', 'INSERT'],
  [1101, 'scooter', 'Small 2-wheel scooter', '3.14', 'DELETE'],
  [1101, 'scooter', 'Small 2-wheel scooter', '4.56', 'INSERT'],
  [1107, 'rocks', 'box of assorted rocks', '5.3', 'DELETE'],
  [1107, 'rocks', 'box of assorted rocks', '7.88', 'INSERT'],
  [1109, 'spare tire', '24 inch spare tire', '22.2', 'DELETE'],
]);

const MAXWELL_EXPECTED = changeRecords([
  [101, 'scooter', 'Small 2-wheel scooter', '3.14', 'INSERT'],
  [102, 'car battery', '12V car battery', '8.1', 'INSERT'],
  [103, '12-pack drill bits', '12-pack of drill bits with sizes ranging from #40 to #3', '0.8', 'INSERT'],
  [104, 'hammer', "12oz carpenter's hammer", '0.75', 'INSERT'],
  [105, 'hammer', "14oz carpenter's hammer", '0.875', 'INSERT'],
  [106, 'hammer', "16oz carpenter's hammer", '1.0', 'INSERT'],
  [107, 'rocks', 'box of assorted rocks', '5.3', 'INSERT'],
  [108, 'jacket', 'water resistent black wind breaker', '0.1', 'INSERT'],
  [109, 'spare tire', '24 inch spare tire', '22.2', 'INSERT'],
  [101, 'scooter', 'Small 2-wheel scooter', '3.14', 'DELETE'],
  [101, 'scooter', 'Small 2-wheel scooter', '4.56', 'INSERT'],
  [107, 'rocks', 'box of assorted rocks', '5.3', 'DELETE'],
  [107, 'rocks', 'box of assorted rocks', '7.88', 'INSERT'],
  [109, 'spare tire', '24 inch spare tire', '22.2', 'DELETE'],
]);

const OGG_EXPECTED = changeRecords([
  [101, 'scooter', 'Small 2-wheel scooter', '3.140000104904175', 'INSERT'],
  [102, 'car battery', '12V car battery', '8.100000381469727', 'INSERT'],
  [103, '12-pack drill bits', '12-pack of drill bits with sizes ranging from #40 to #3', '0.800000011920929', 'INSERT'],
  [104, 'hammer', "12oz carpenter's hammer", '0.75', 'INSERT'],
  [105, 'hammer', "14oz carpenter's hammer", '0.875', 'INSERT'],
  [106, 'hammer', "16oz carpenter's hammer", '1', 'INSERT'],
  [107, 'rocks', 'box of assorted rocks', '5.300000190734863', 'INSERT'],
  [108, 'jacket', 'water resistent black wind breaker', '0.10000000149011612', 'INSERT'],
  [109, 'spare tire', '24 inch spare tire', '22.200000762939453', 'INSERT'],
  [106, 'hammer', "16oz carpenter's hammer", '1', 'DELETE'],
  [106, 'hammer', '18oz carpenter hammer', '1', 'INSERT'],
  [107, 'rocks', 'box of assorted rocks', '5.300000190734863', 'DELETE'],
  [107, 'rocks', 'box of assorted rocks', '5.099999904632568', 'INSERT'],
  [110, 'jacket', 'water resistent white wind breaker', '0.20000000298023224', 'INSERT'],
  [111, 'scooter', 'Big 2-wheel scooter ', '5.179999828338623', 'INSERT'],
  [110, 'jacket', 'water resistent white wind breaker', '0.20000000298023224', 'DELETE'],
  [110, 'jacket', 'new water resistent white wind breaker', '0.5', 'INSERT'],
  [111, 'scooter', 'Big 2-wheel scooter ', '5.179999828338623', 'DELETE'],
  [111, 'scooter', 'Big 2-wheel scooter ', '5.170000076293945', 'INSERT'],
  [111, 'scooter', 'Big 2-wheel scooter ', '5.170000076293945', 'DELETE'],
]);

interface Case {
  /** The config, relative to the kafka folder. */
  readonly config: string;
  /** What the IT sends first: a data file's lines into a topic. */
  readonly input?: { readonly file: string; readonly topic: string };
  /** The topic the job writes, and what the IT checks of it. */
  readonly output: {
    readonly topic: string;
    readonly values?: readonly string[];
    readonly count?: number;
    readonly keyed?: readonly string[];
  };
}

const CASES: readonly Case[] = [
  {
    config: 'canalFormatIT/kafka_source_canal_to_kafka.conf',
    input: { file: 'canal/canal_data.txt', topic: 'test-cdc_mds' },
    output: { topic: 'test-canal-sink', values: CANAL_EXPECTED },
  },
  {
    config: 'maxwellFormatIT/kafkasource_maxwell_to_kafka.conf',
    input: { file: 'maxwell/maxwell_data.txt', topic: 'maxwell-test-cdc_mds' },
    output: { topic: 'test-maxwell-sink', values: MAXWELL_EXPECTED },
  },
  {
    config: 'oggFormatIT/kafka_source_ogg_to_kafka.conf',
    input: { file: 'ogg/ogg_data.txt', topic: 'test-ogg-source' },
    output: { topic: 'test-ogg-sink', values: OGG_EXPECTED },
  },
  // KafkaIT: 10 records, keyed by a JSON of c_map and c_string, 10 distinct keys.
  { config: 'kafka_sink_fake_to_kafka.conf', output: { topic: 'test_topic', count: 10, keyed: ['c_map', 'c_string'] } },
  { config: 'textFormatIT/fake_source_to_text_sink_kafka.conf', output: { topic: 'test_text_topic', count: 10 } },
  { config: 'kafka_default_sink_fake_to_kafka.conf', output: { topic: 'topic_default_sink_test', count: 10 } },
  // KafkaIT: a Replace transform sets c_string to the topic's name, and topic = "${c_string}" takes it row by row; 10 records keyed by c_map and c_string.
  { config: 'extractTopic_fake_to_kafka.conf', output: { topic: 'test_extract_topic', count: 10, keyed: ['c_map', 'c_string'] } },
];

/** KafkaFormatIT's testFormatDebeziumCheck: both configs read debezium_data.txt's three records, one after the other. */
const DEBEZIUM_CASES = ['debeziumFormatIT/kafkasource_debezium_to_kafka.conf', 'debeziumFormatIT/kafkasource_debezium_cdc_to_pgsql.conf'];

/** KafkaFormatIT's initializeJdbcTable: table sink2. */
const SINK2 = `CREATE TABLE sink2 (id SERIAL PRIMARY KEY, f_binary BYTEA, f_blob BYTEA, f_long_varbinary BYTEA, f_longblob BYTEA,
  f_tinyblob BYTEA, f_varbinary VARCHAR(100), f_smallint SMALLINT, f_smallint_unsigned INTEGER, f_mediumint INTEGER,
  f_mediumint_unsigned INTEGER, f_int INTEGER, f_int_unsigned INTEGER, f_integer INTEGER, f_integer_unsigned INTEGER,
  f_bigint BIGINT, f_bigint_unsigned BIGINT, f_numeric DECIMAL, f_decimal DECIMAL, f_float REAL, f_double DOUBLE PRECISION,
  f_double_precision DOUBLE PRECISION, f_longtext TEXT, f_mediumtext TEXT, f_text TEXT, f_tinytext TEXT, f_varchar VARCHAR(100),
  f_date DATE, f_datetime TIMESTAMP, f_timestamp TIMESTAMP, f_bit1 boolean, f_bit64 SMALLINT, f_char CHAR, f_enum VARCHAR(10),
  f_mediumblob BYTEA, f_long_varchar TEXT, f_real REAL, f_time TIME, f_tinyint SMALLINT, f_tinyint_unsigned SMALLINT,
  f_json VARCHAR(100), f_year INTEGER)`;

/**
 * KafkaFormatIT's checkDebeziumFormat, as text: the three rows, columns in table order, the
 * bytes columns it does not compare (1, 2, 3, 5, 6, 34) left out. Equal to what the IT asserts
 * but for f_bit64.
 */
const SINK2_EXPECTED = [
  [1, '112.345', '22', '2013'],
  [2, '112.345', '22', '2013'],
  [3, '112.345', '22', '2021'],
].map(([id, real, tinyintUnsigned, year]) => [
  String(id),
  null, // f_longblob
  '12345',
  '54321',
  '123456',
  '654321',
  '1234567',
  '7654321',
  '1234567',
  '7654321',
  '123456789',
  '987654321',
  '123',
  '789',
  '12.34',
  '56.78',
  '90.12',
  'This is a long text field',
  'This is a medium text field',
  'This is a text field',
  'This is a tiny text field',
  'This is a varchar field',
  '2022-04-27',
  '2022-04-27 14:30:00',
  '2023-04-27 03:08:40',
  'true',
  // f_bit64 (bit(64) 0x5555555555555555): the IT expects 0, SeaTunnel's integer of a text node; Tideway decodes
  // Debezium's Bits and narrows them as Java does (docs/seatunnel-differences.md, "Debezium `Bits`").
  '85',
  'C',
  'enum2',
  'This is a long varchar field',
  id === 1 ? '12.345' : real,
  '14:30:00',
  '-128',
  id === 1 ? '255' : tinyintUnsigned,
  '{"key": "value"}',
  id === 1 ? '2022' : year,
]);

function configs(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.conf')) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

const t = (kind: string): DataType => ({ kind }) as DataType;

const COMPATIBLE_CASE = 'compatibleFormatIT/kafkasource_jdbc_record_to_pgsql.conf';

const AVRO_CASES = ['avro/fake_source_to_kafka_avro_format.conf', 'avro/kafka_avro_to_assert.conf'];
const PROTOBUF_CASES = ['protobuf/fake_to_kafka_protobuf.conf', 'protobuf/kafka_protobuf_to_assert.conf'];

/** KafkaIT's buildSeaTunnelRowType (the rows of both protobuf configs). */
const PERSON: { name: string; type: DataType }[] = [
  { name: 'c_int32', type: t('int') },
  { name: 'c_int64', type: t('bigint') },
  { name: 'c_float', type: t('float') },
  { name: 'c_double', type: t('double') },
  { name: 'c_bool', type: t('boolean') },
  { name: 'c_string', type: t('string') },
  { name: 'c_bytes', type: t('bytes') },
  { name: 'Address', type: { kind: 'row', fields: ['city', 'state', 'street'].map((name) => ({ name, type: t('string') })) } },
  { name: 'attributes', type: { kind: 'map', key: t('string'), value: t('float') } },
  { name: 'phone_numbers', type: { kind: 'array', element: t('string') } },
];

/** The Person message of a protobuf config (its protobuf_schema), as KafkaIT takes it from the config. */
function personMessage(config: string) {
  const text = readFileSync(join(kafkaDir, config), 'utf8');
  const schema = /protobuf_schema\s*=\s*"""([\s\S]*?)"""/.exec(text)?.[1];
  const type = protobufType({ messageName: 'Person', schema: schema ?? '' });
  if (typeof type === 'string') throw new Error(`${config}: ${type}`);
  return type;
}

/** FakeSource's row of the avro config (KafkaIT's fake_source_row_type), a nested row of the same fields last. */
const FAKE_AVRO_FIELDS: { name: string; type: DataType }[] = [
  { name: 'c_map', type: { kind: 'map', key: t('string'), value: t('string') } },
  { name: 'c_array', type: { kind: 'array', element: t('int') } },
  ...['c_string', 'c_boolean', 'c_tinyint', 'c_smallint', 'c_int', 'c_bigint', 'c_float', 'c_double', 'c_bytes', 'c_date'].map((n) => ({
    name: n,
    type: t(n.slice(2) === 'bytes' ? 'bytes' : n.slice(2)),
  })),
  { name: 'c_decimal', type: { kind: 'decimal', precision: 38, scale: 18 } },
  { name: 'c_timestamp', type: t('timestamp') },
];

/** KafkaIT's SEATUNNEL_ROW_TYPE, the rows of kafka_avro_to_assert.conf's input. */
const IT_ROW_TYPE: { name: string; type: DataType }[] = [
  { name: 'id', type: t('bigint') },
  { name: 'c_map', type: { kind: 'map', key: t('string'), value: t('smallint') } },
  { name: 'c_array', type: { kind: 'array', element: t('tinyint') } },
  ...['c_string', 'c_boolean', 'c_tinyint', 'c_smallint', 'c_int', 'c_bigint', 'c_float', 'c_double'].map((n) => ({
    name: n,
    type: t(n.slice(2)),
  })),
  { name: 'c_decimal', type: { kind: 'decimal', precision: 2, scale: 1 } },
  { name: 'c_bytes', type: t('bytes') },
  { name: 'c_date', type: t('date') },
  { name: 'c_timestamp', type: t('timestamp') },
];

/**
 * The configs whose input KafkaIT makes with SeaTunnel's Java serializers (JSON, or text with
 * ","): here SeaTunnel itself makes it, its Kafka sink writing KafkaIT's rows (generateTestData:
 * ids 0..99, and 100..149 for the group-offsets topic) with the same serializers, before Tideway
 * runs the config. What each IT asserts is the exit code (the configs' Assert sinks check the
 * rows' values); the rows read are checked too, so that no config passes by reading nothing.
 */
const SEATUNNEL_FED: readonly { config: string; exitCode: number; rows?: number }[] = [
  { config: 'kafka/kafkasource_earliest_to_console.conf', exitCode: 0, rows: 100 },
  { config: 'kafka/kafkasource_latest_to_console.conf', exitCode: 0, rows: 0 },
  { config: 'kafka/kafkasource_specific_offsets_to_console.conf', exitCode: 0, rows: 50 },
  { config: 'kafka/kafkasource_group_offset_to_console.conf', exitCode: 0, rows: 50 },
  { config: 'jsonFormatIT/kafka_source_json_to_console.conf', exitCode: 0, rows: 100 },
  { config: 'textFormatIT/kafka_source_text_to_console.conf', exitCode: 0, rows: 100 },
  { config: 'textFormatIT/kafka_source_text_to_console_assert_catalog_table.conf', exitCode: 0, rows: 100 },
  { config: 'kafka/kafka_source_to_assert_with_max_poll_records_1.conf', exitCode: 0, rows: 100 },
  // JSON records read as text: skip drops them all (exit 0), fail fails the job (KafkaIT: exit 1).
  { config: 'kafka/kafkasource_format_error_handle_way_skip_to_console.conf', exitCode: 0, rows: 0 },
  { config: 'kafka/kafkasource_format_error_handle_way_fail_to_console.conf', exitCode: 1 },
];

/** KafkaIT's generateTestData row for id `i`, as FakeSource `rows` (bytes in base64). */
const itRow = (i: number) =>
  `{ kind = INSERT, fields = [${i}, {"key": 1}, [1], "string", false, 1, 1, 1, 1, 1.1, 1.1, 1.1, "dGVzdA==", "2024-01-01", "2024-01-01T12:59:23"] }`;

const IT_SCHEMA = `schema = { fields {
        id = bigint
        c_map = "map<string, smallint>"
        c_array = "array<tinyint>"
        c_string = string
        c_boolean = boolean
        c_tinyint = tinyint
        c_smallint = smallint
        c_int = int
        c_bigint = bigint
        c_float = float
        c_double = double
        c_decimal = "decimal(2, 1)"
        c_bytes = bytes
        c_date = date
        c_timestamp = timestamp
      } }`;

/** The SeaTunnel job that writes every topic those configs read. */
function seaTunnelProducer(bootstrap: string): string {
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `        ${itRow(from + k)}`).join(',\n');
  const sink = (table: string, topic: string, format: string) =>
    `  Kafka {\n    source_table_name = "${table}"\n    bootstrap.servers = "${bootstrap}"\n    topic = "${topic}"\n    format = ${format}\n  }`;
  return `env {
  parallelism = 1
  job.mode = "BATCH"
}
source {
  FakeSource {
    result_table_name = "ids"
    ${IT_SCHEMA}
    rows = [
${range(0, 100)}
    ]
  }
  FakeSource {
    result_table_name = "group_ids"
    ${IT_SCHEMA}
    rows = [
${range(100, 150)}
    ]
  }
}
sink {
${[
  sink('ids', 'test_topic_source', 'json'),
  sink('ids', 'test_topic_json', 'json'),
  sink('ids', 'test_topic_error_message', 'json'),
  sink('ids', 'test_topic_text', 'text'),
  sink('ids', 'test_topic_text_max_poll_records_1', 'text'),
  sink('group_ids', 'test_topic_group', 'json'),
].join('\n')}
}
`;
}

describe.skipIf(kafkaSkipped() || !shared)("SeaTunnel's Kafka e2e configs", () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
  }, 200_000);

  it('runs or lists every config of the folder', () => {
    const listed = [
      ...CASES.map((c) => c.config),
      ...AVRO_CASES,
      ...PROTOBUF_CASES,
      ...SEATUNNEL_FED.map((c) => c.config),
      COMPATIBLE_CASE,
      ...DEBEZIUM_CASES,
    ].sort();
    expect(listed).toEqual(configs(kafkaDir));
  });

  it('avro/kafka_avro_to_assert.conf reads the 100 records KafkaIT sends (its serializer is byte for byte what avro-seatunnel.test.ts checks)', async () => {
    const topic = 'test_avro_topic';
    await createTopic(bootstrap, topic, 1);
    const encode = compileAvroEncoder(IT_ROW_TYPE);
    await produce(
      bootstrap,
      topic,
      Array.from({ length: 100 }, (_, i) => ({
        value: encode([
          BigInt(i),
          new Map([['key', 1]]),
          [1],
          'string',
          false,
          1,
          1,
          1,
          1n,
          Math.fround(1.1),
          1.1,
          '1.1',
          new Uint8Array(Buffer.from('test')),
          '2024-01-01',
          '2024-01-01T12:59:23',
        ]),
      })),
    );
    const text = readFileSync(join(kafkaDir, AVRO_CASES[1]), 'utf8').replaceAll('kafkaCluster:9092', bootstrap);
    const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
    expect(res.code, res.stderr).toBe(0);
  }, 150_000);

  it("avro/fake_source_to_kafka_avro_format.conf writes 90 records of SeaTunnel's avro schema (KafkaIT reads them back by it)", async () => {
    const text = readFileSync(join(kafkaDir, AVRO_CASES[0]), 'utf8').replaceAll('kafkaCluster:9092', bootstrap);
    const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const topic = 'test_avro_topic_fake_source';
    const got = await consumeRaw(bootstrap, topic, await endOffset(bootstrap, topic));
    expect(got).toHaveLength(90);
    const decode = compileAvroDecoder([...FAKE_AVRO_FIELDS, { name: 'c_row', type: { kind: 'row', fields: FAKE_AVRO_FIELDS } }]);
    for (const m of got) {
      const row = decode(m.value);
      expect(row[0]).toBeInstanceOf(Map);
      expect(Array.isArray(row[1])).toBe(true);
      expect(row[2]).toBe('fake_source_avro');
      expect(typeof row[7]).toBe('bigint');
      expect(row[10]).toBeInstanceOf(Uint8Array);
      expect(row[11]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row[13]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
      expect(Array.isArray(row[14])).toBe(true);
    }
  }, 150_000);

  it('protobuf/kafka_protobuf_to_assert.conf reads the 20 Person records KafkaIT sends', async () => {
    const topic = 'test_protobuf_topic_fake_source';
    await createTopic(bootstrap, topic, 1);
    const encode = compileProtobufEncoder(personMessage(PROTOBUF_CASES[1]), PERSON);
    const row = [
      123,
      123123123123n,
      Math.fround(0.123),
      0.123,
      false,
      'test data',
      Uint8Array.of(1, 2, 3),
      ['city_value', 'state_value', 'street_value'],
      new Map([
        ['k1', Math.fround(0.1)],
        ['k2', Math.fround(2.3)],
      ]),
      ['1', '2'],
    ];
    await produce(
      bootstrap,
      topic,
      Array.from({ length: 20 }, () => ({ value: encode(row) })),
    );
    const text = readFileSync(join(kafkaDir, PROTOBUF_CASES[1]), 'utf8').replaceAll('kafkaCluster:9092', bootstrap);
    const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
    expect(res.code, res.stderr).toBe(0);
    // As KafkaIT: the topic's records read back by the config's schema are the row sent.
    const decode = compileProtobufDecoder(personMessage(PROTOBUF_CASES[1]), PERSON);
    const got = await consumeRaw(bootstrap, topic, 20);
    for (const m of got) expect(decode(m.value)).toEqual(row);
  }, 150_000);

  it('protobuf/fake_to_kafka_protobuf.conf writes 16 Person records (KafkaIT reads them back by the schema)', async () => {
    const text = readFileSync(join(kafkaDir, PROTOBUF_CASES[0]), 'utf8').replaceAll('kafkaCluster:9092', bootstrap);
    const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
    expect(res.code, res.stderr).toBe(0);
    const topic = 'test_protobuf_topic_fake_source';
    // kafka_protobuf_to_assert.conf's case (above, in this file) sent 20 records to the same topic first.
    const got = await consumeRaw(bootstrap, topic, await endOffset(bootstrap, topic));
    expect(got).toHaveLength(36);
    const decode = compileProtobufDecoder(personMessage(PROTOBUF_CASES[0]), PERSON);
    for (const m of got.slice(20)) {
      const row = decode(m.value);
      expect(typeof row[0]).toBe('number');
      expect(typeof row[1]).toBe('bigint');
      expect(typeof row[5]).toBe('string');
      expect(row[6]).toBeInstanceOf(Uint8Array);
      expect(Array.isArray(row[7]) && (row[7] as unknown[]).every((x) => typeof x === 'string' && x !== '')).toBe(true);
      expect(row[8]).toBeInstanceOf(Map);
      expect(Array.isArray(row[9])).toBe(true);
    }
  }, 150_000);

  it(`${COMPATIBLE_CASE}: the Kafka Connect JSON records of compatible_data.txt upserted into PostgreSQL`, async () => {
    const server = await startPostgres({ database: 'test', password: 'test' });
    const client = new pg.Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: 'test' });
    try {
      await client.connect();
      // KafkaFormatIT's initializeJdbcTable
      await client.query(
        'create table if not exists sink(id INT NOT NULL PRIMARY KEY, name varchar(255), description varchar(255), weight varchar(255))',
      );
      await produceDataFile(bootstrap, 'jdbc_source_record', 'compatible/compatible_data.txt');
      const text = readFileSync(join(kafkaDir, COMPATIBLE_CASE), 'utf8')
        .replaceAll('kafka_e2e:9092', bootstrap)
        .replace('jdbc:postgresql://postgresql:5432/test', `jdbc:postgresql://${server.host}:${server.port}/test`)
        .replace(/user = test/, `user = ${server.user}`);
      const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
      expect(res.code, res.stderr).toBe(0);
      // KafkaFormatIT's checkCompatibleFormat.
      const { rows } = await client.query<{ id: number; name: string; description: string; weight: string }>(
        'select * from sink order by id',
      );
      expect(rows.map((r) => [r.id, r.name, r.description, r.weight])).toEqual([
        [15, 'test', 'test', '20'],
        [16, 'test-001', 'test', '30'],
        [18, 'sdc', 'sdc', 'sdc'],
      ]);
    } finally {
      await client.end().catch(() => undefined);
      await server.stop();
    }
  }, 180_000);

  it(`${DEBEZIUM_CASES[1]}: after ${DEBEZIUM_CASES[0]}, debezium_data.txt's records upserted into PostgreSQL as KafkaFormatIT checks them`, async () => {
    const server = await startPostgres({ database: 'test', password: 'test' });
    const client = new pg.Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: 'test' });
    try {
      await client.connect();
      // The IT's PostgreSQL user, so that the config runs with only its addresses replaced.
      await client.query("CREATE ROLE test LOGIN PASSWORD 'test'");
      await client.query(SINK2);
      await client.query('ALTER TABLE sink2 OWNER TO test');
      await produceDataFile(bootstrap, 'dbserver1.debezium.products', 'debezium/debezium_data.txt');
      const run = async (config: string) => {
        const text = readFileSync(join(kafkaDir, config), 'utf8')
          .replaceAll('kafka_e2e:9092', bootstrap)
          .replace('postgresql:5432', `${server.host}:${server.port}`);
        const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
        expect(res.code, res.stderr).toBe(0);
      };
      // The three snapshot records come out (the IT counts 3).
      await run(DEBEZIUM_CASES[0]);
      expect(await consumeAll(bootstrap, 'test-debezium-sink', await endOffset(bootstrap, 'test-debezium-sink'))).toHaveLength(3);
      await run(DEBEZIUM_CASES[1]);
      const columns = (
        await client.query<{ column_name: string }>(
          "SELECT column_name FROM information_schema.columns WHERE table_name = 'sink2' ORDER BY ordinal_position",
        )
      ).rows.map((r) => r.column_name);
      const compared = columns.filter((_, i) => ![1, 2, 3, 5, 6, 34].includes(i));
      const { rows } = await client.query<string[]>({
        text: `SELECT ${compared.map((c) => `${c}::text`).join(', ')} FROM sink2 ORDER BY id`,
        rowMode: 'array',
      });
      expect(rows).toEqual(SINK2_EXPECTED);
    } finally {
      await client.end().catch(() => undefined);
      await server.stop();
    }
  }, 240_000);

  it.each(CASES)(
    '$config',
    async (c) => {
      if (c.input) {
        const lines = readFileSync(join(kafkaDir, c.input.file), 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '');
        await createTopic(bootstrap, c.input.topic, 1);
        await produce(
          bootstrap,
          c.input.topic,
          lines.map((value) => ({ value })),
        );
      }
      // The output topic is not created first (nor by the ITs): the sink creates it, as SeaTunnel's does.
      const text = readFileSync(join(kafkaDir, c.config), 'utf8')
        .replaceAll('kafkaCluster:9092', bootstrap)
        .replaceAll('kafka_e2e:9092', bootstrap);
      const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
      expect(res.code, res.stderr).toBe(0);
      const n = await endOffset(bootstrap, c.output.topic);
      const got = await consumeAll(bootstrap, c.output.topic, n);
      if (c.output.values) expect(got.map((m) => m.value)).toEqual(c.output.values);
      if (c.output.count !== undefined) expect(got).toHaveLength(c.output.count);
      if (c.output.keyed) {
        const keys = new Set(got.map((m) => m.key));
        expect(keys.size).toBe(c.output.count);
        for (const k of keys) expect(Object.keys(JSON.parse(k ?? '{}') as object)).toEqual(c.output.keyed);
      }
    },
    150_000,
  );
});

const home = kafkaSkipped() || !shared ? undefined : seaTunnelHome();

describe.skipIf(home === undefined)("SeaTunnel's Kafka source configs, their input made by SeaTunnel itself", () => {
  let bootstrap = '';
  beforeAll(async () => {
    bootstrap = await sharedKafka();
    for (const topic of [
      'test_topic_source',
      'test_topic_json',
      'test_topic_error_message',
      'test_topic_text',
      'test_topic_text_max_poll_records_1',
      'test_topic_group',
    ])
      await createTopic(bootstrap, topic, 1);
    const st = await runSeaTunnelLocal(home!, writeJob(dirs.make(), seaTunnelProducer(bootstrap)), { timeoutMs: 300_000 });
    if (st.exitCode !== 0) throw new Error(`SeaTunnel's producer job failed:\n${st.output.slice(-3000)}`);
  }, 400_000);

  it.each(SEATUNNEL_FED)(
    '$config exits $exitCode',
    async (c) => {
      const text = readFileSync(join(kafkaDir, c.config), 'utf8').replaceAll('kafkaCluster:9092', bootstrap);
      const res = await runCli(['run', '-c', writeJob(dirs.make(), text)], 120_000);
      expect(res.code, res.stderr).toBe(c.exitCode);
      if (c.rows !== undefined) expect(Number(/Total Read Count\s*:\s*(\d+)/.exec(res.stdout)?.[1]), res.stdout).toBe(c.rows);
    },
    150_000,
  );
});
