import type { CatalogTable, DataType } from '@tideway/api';
import {
  compileJsonLineParser,
  compileJsonLineWriter,
  compileTextFieldParsers,
  compileTextLineWriter,
} from '@tideway/connector-file-common';

/** The formats this build reads and writes; SeaTunnel's others are refused by name. */
export const KAFKA_FORMATS = ['json', 'text'] as const;
export type KafkaFormat = (typeof KAFKA_FORMATS)[number];

/** SeaTunnel's other Kafka formats: refused at planning with "not supported yet". */
export const KAFKA_FORMATS_NOT_YET = [
  'canal_json',
  'debezium_json',
  'compatible_debezium_json',
  'compatible_kafka_connect_json',
  'maxwell_json',
  'ogg_json',
  'avro',
  'protobuf',
  'native',
] as const;

/** SeaTunnel's table of a Kafka source without `schema`: the message value as one text column. */
export const CONTENT_COLUMN = 'content';

function columnsOf(table: CatalogTable): { name: string; type: DataType }[] {
  return table.columns.map((c) => ({ name: c.name, type: c.type }));
}

/** Whether the table is the schema-less one (a single `content` string: the raw value). */
export function isContentTable(table: CatalogTable, hasSchema: boolean): boolean {
  return !hasSchema && table.columns.length === 1 && table.columns[0]?.name === CONTENT_COLUMN;
}

/** Decodes one message value into the table's fields; throws on bytes that do not fit. */
export function compileDecoder(
  table: CatalogTable,
  format: KafkaFormat,
  fieldDelimiter: string,
  raw: boolean,
): (value: Buffer) => unknown[] {
  if (raw) return (value) => [value.toString('utf8')];
  if (format === 'json') {
    const parse = compileJsonLineParser(columnsOf(table));
    return (value) => parse(value.toString('utf8'));
  }
  const parsers = compileTextFieldParsers(columnsOf(table), fieldDelimiter);
  return (value) => {
    const parts = value.toString('utf8').split(fieldDelimiter);
    return parsers.map((p, i) => p(parts[i]));
  };
}

const TEXT_TEMPORAL = { dateFormat: 'yyyy-MM-dd', dateTimeFormat: 'yyyy-MM-dd HH:mm:ss', timeFormat: 'HH:mm:ss' } as const;

/** Encodes a row's fields (of `columns`) as a message value or key. */
export function compileEncoder(
  columns: readonly { name: string; type: DataType }[],
  format: KafkaFormat,
  fieldDelimiter: string,
): (fields: readonly unknown[]) => Buffer {
  if (format === 'json') {
    const write = compileJsonLineWriter(columns);
    return (fields) => Buffer.from(write(fields), 'utf8');
  }
  const write = compileTextLineWriter(
    columns.map((c) => c.type),
    { fieldDelimiter, ...TEXT_TEMPORAL },
  );
  return (fields) => Buffer.from(write(fields), 'utf8');
}
