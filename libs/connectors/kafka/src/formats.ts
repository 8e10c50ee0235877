import type { CatalogTable, DataType, RowKind } from '@tideway/api';
import type protobuf from 'protobufjs';
import { avroColumnsProblem, compileAvroDecoder, compileAvroEncoder } from './avro-format.js';
import { compileProtobufDecoder, compileProtobufEncoder } from './protobuf-format.js';
import { RECORD_FORMATS, type RecordFormat } from './record-formats.js';
import {
  type DebeziumTableFilter,
  CHANGE_FORMATS,
  CHANGE_SINK_FORMATS,
  type ChangeRow,
  compileChangeDecoder,
  compileChangeEncoder,
} from './change-formats.js';
import { compileJsonLineWriter, compileTextFieldParsers, compileTextLineWriter } from '@tideway/connector-file-common/formats';
import { compileJsonBytesParser } from './json-bytes.js';

/** The formats the source reads (native: whole records as rows of a fixed table). */
export const KAFKA_FORMATS = ['json', 'text', 'avro', 'protobuf', ...CHANGE_FORMATS, 'native'] as const;
export type KafkaFormat = (typeof KAFKA_FORMATS)[number];

/** The formats the sink writes (native and compatible_debezium_json: rows that are records). */
export const KAFKA_SINK_FORMATS = ['json', 'text', 'avro', 'protobuf', ...CHANGE_SINK_FORMATS, ...RECORD_FORMATS] as const;
export type KafkaSinkFormat = (typeof KAFKA_SINK_FORMATS)[number];
/** The sink formats that encode a row's values (the others take the record from the row). */
export type KafkaValueFormat = Exclude<KafkaSinkFormat, RecordFormat>;

/**
 * Every format name either side accepts (the option's enum); each side refuses the other's
 * own by name: the source has no compatible_debezium_json (SeaTunnel's neither: its rows are
 * written by the CDC sources), the sink no compatible_kafka_connect_json.
 */
export const KAFKA_FORMAT_NAMES = [...new Set<string>([...KAFKA_FORMATS, ...KAFKA_SINK_FORMATS])];

/** SeaTunnel's table of a Kafka source without `schema`: the message value as one text column. */
export const CONTENT_COLUMN = 'content';

function columnsOf(table: CatalogTable): { name: string; type: DataType }[] {
  return table.columns.map((c) => ({ name: c.name, type: c.type }));
}

/** Why the table cannot be read or written in `format`, or undefined (avro's types and names). */
export function formatProblem(columns: readonly { name: string; type: DataType }[], format: string): string | undefined {
  return format === 'avro' ? avroColumnsProblem(columns) : undefined;
}

/** Whether the table is the schema-less one (a single `content` string: the raw value). */
export function isContentTable(table: CatalogTable, hasSchema: boolean): boolean {
  return !hasSchema && table.columns.length === 1 && table.columns[0]?.name === CONTENT_COLUMN;
}

/**
 * How one message value becomes rows of the table: `one` for the formats whose every value is
 * one insert (its fields, no wrapper objects), `many` for the change formats (none for their
 * DDL events, two for an update). Both throw on bytes that do not fit. `one` reads the value at
 * bytes [start, end) of a buffer (the fetched batch's, without a slice per record).
 */
export type ValueDecoder =
  | { readonly one: (bytes: Buffer, start: number, end: number) => unknown[]; readonly many?: undefined }
  | { readonly one?: undefined; readonly many: (value: Buffer) => ChangeRow[] };

export function compileDecoder(
  table: CatalogTable,
  format: Exclude<KafkaFormat, 'native'>,
  fieldDelimiter: string,
  raw: boolean,
  message?: protobuf.Type,
  debeziumFilter?: DebeziumTableFilter,
): ValueDecoder {
  if (raw) return { one: (bytes, start, end) => [bytes.toString('utf8', start, end)] };
  if (format === 'protobuf') return { one: onSlice(compileProtobufDecoder(message!, columnsOf(table))) };
  if (format === 'json') return { one: compileJsonBytesParser(columnsOf(table)) };
  if (format === 'avro') return { one: onSlice(compileAvroDecoder(columnsOf(table))) };
  if (format === 'text') {
    const parsers = compileTextFieldParsers(columnsOf(table), fieldDelimiter);
    return {
      one: (bytes, start, end) => {
        const parts = bytes.toString('utf8', start, end).split(fieldDelimiter);
        return parsers.map((p, i) => p(parts[i]));
      },
    };
  }
  const decode = compileChangeDecoder(columnsOf(table), format, debeziumFilter);
  return { many: (value) => decode(value.toString('utf8')) };
}

/** A decoder of a whole Buffer as one of bytes [start, end) of a buffer (a view for it, no copy). */
function onSlice(decode: (value: Buffer) => unknown[]): (bytes: Buffer, start: number, end: number) => unknown[] {
  return (bytes, start, end) => decode(bytes.subarray(start, end));
}

const TEXT_TEMPORAL = { dateFormat: 'yyyy-MM-dd', dateTimeFormat: 'yyyy-MM-dd HH:mm:ss', timeFormat: 'HH:mm:ss' } as const;

/**
 * Encodes a row (its kind and the fields of `columns`) as a message value; json and text write
 * the fields alone, as SeaTunnel does, and the change formats the kind too.
 */
export function compileEncoder(
  columns: readonly { name: string; type: DataType }[],
  format: KafkaValueFormat,
  fieldDelimiter: string,
  message?: protobuf.Type,
): (fields: readonly unknown[], kind?: RowKind) => Buffer {
  if (format === 'avro') return compileAvroEncoder(columns);
  if (format === 'protobuf') return compileProtobufEncoder(message!, columns);
  if (format !== 'json' && format !== 'text') {
    const encode = compileChangeEncoder(columns, format);
    return (fields, kind = '+I') => Buffer.from(encode(kind, fields), 'utf8');
  }
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
