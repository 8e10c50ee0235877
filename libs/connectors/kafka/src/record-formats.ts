/**
 * The two Kafka formats whose rows are whole records rather than decoded values:
 *
 * - `native` (SeaTunnel 2.3.9+): the source gives each record as a row of the fixed table
 *   NATIVE_COLUMNS (headers as a map of strings, key and value as bytes, partition, timestamp and
 *   its type); the sink writes such rows back as records, each to its row's partition with its
 *   row's key, value, headers and timestamp.
 * - `compatible_debezium_json` (sink only, as SeaTunnel): rows of (topic, key, value) strings, as
 *   the CDC sources give them with the same format, are written with the row's key and value
 *   bytes unchanged to the row's topic.
 */
import type { DataType } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { BatchCursor } from './fetch-records.js';

/** The columns of a native row, SeaTunnel's names and types (the sink needs all but timestampType). */
export const NATIVE_COLUMNS: readonly { name: string; type: DataType }[] = [
  { name: 'headers', type: { kind: 'map', key: { kind: 'string' }, value: { kind: 'string' } } },
  { name: 'key', type: { kind: 'bytes' } },
  { name: 'partition', type: { kind: 'int' } },
  { name: 'timestamp', type: { kind: 'bigint' } },
  { name: 'timestampType', type: { kind: 'string' } },
  { name: 'value', type: { kind: 'bytes' } },
];

/** The columns the native sink reads, by name. */
const NATIVE_SINK_COLUMNS = ['headers', 'key', 'partition', 'timestamp', 'value'] as const;

/** SeaTunnel's compatible_debezium_json row: the record's topic, key and value (Debezium's JSON), all strings. */
export const COMPATIBLE_DEBEZIUM_COLUMNS: readonly { name: string; type: DataType }[] = [
  { name: 'topic', type: { kind: 'string' } },
  { name: 'key', type: { kind: 'string' } },
  { name: 'value', type: { kind: 'string' } },
];

/** The record formats: rows are records, not values to encode. */
export const RECORD_FORMATS = ['native', 'compatible_debezium_json'] as const;
export type RecordFormat = (typeof RECORD_FORMATS)[number];

export function isRecordFormat(format: string): format is RecordFormat {
  return (RECORD_FORMATS as readonly string[]).includes(format);
}

// Record batch attribute bit 3: the timestamps are the broker's log-append time.
const LOG_APPEND_TIME = 0x08;

/** A record's row of the native table: Kafka's Java TimestampType names (CreateTime, LogAppendTime). */
export function nativeRow(record: BatchCursor): unknown[] {
  const headers = new Map<string, string | null>();
  // As SeaTunnel (a HashMap of the headers): a key given twice keeps its last value.
  for (const [k, v] of record.headers()) headers.set(k === null ? '' : k.toString('utf8'), v === null ? null : v.toString('utf8'));
  const logAppend = (record.attributes & LOG_APPEND_TIME) !== 0;
  const timestamp = logAppend ? record.maxTimestamp() : record.firstTimestamp() + BigInt(record.timestampDelta);
  return [
    headers,
    record.key(),
    undefined, // the partition, set by the reader
    timestamp,
    logAppend ? 'LogAppendTime' : 'CreateTime',
    record.value(),
  ];
}

/** Why an input table cannot be written in a record format (its missing or mistyped column), or undefined. */
export function recordColumnsProblem(columns: readonly { name: string; type: DataType }[], format: RecordFormat): string | undefined {
  const needed =
    format === 'native'
      ? NATIVE_COLUMNS.filter((c) => (NATIVE_SINK_COLUMNS as readonly string[]).includes(c.name))
      : COMPATIBLE_DEBEZIUM_COLUMNS.filter((c) => c.name !== 'topic');
  for (const n of needed) {
    const c = columns.find((x) => x.name === n.name);
    const want = n.type.kind === 'map' ? 'map<string, string>' : n.type.kind;
    if (!c) return `column '${n.name}' (${want}) is missing: format ${format} writes rows of ${needed.map((x) => x.name).join(', ')}`;
    const same = c.type.kind === n.type.kind && (c.type.kind !== 'map' || (c.type.key.kind === 'string' && c.type.value.kind === 'string'));
    if (!same) return `column '${n.name}' must be ${want} for format ${format}`;
  }
  return undefined;
}

/** One record to produce, its topic decided by the route. */
export interface EncodedRecord {
  readonly key?: Buffer;
  /** undefined: a tombstone. */
  readonly value?: Buffer;
  readonly headers?: Map<Buffer, Buffer>;
  readonly partition?: number;
  readonly timestamp?: bigint;
  /** compatible_debezium_json: the row's topic. */
  readonly topic?: string;
}

function text(v: unknown): Buffer | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return Buffer.from(String(v), 'utf8');
  return Buffer.from(JSON.stringify(v), 'utf8');
}

function bytes(v: unknown): Buffer | undefined {
  if (v === null || v === undefined) return undefined;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return text(v);
}

/** Turns a row of a record format into its record (its columns checked by recordColumnsProblem). */
export function compileRecordEncoder(
  columns: readonly { name: string; type: DataType }[],
  format: RecordFormat,
  tableId: string,
): (fields: readonly unknown[]) => EncodedRecord {
  const at = (name: string) => columns.findIndex((c) => c.name === name);
  if (format === 'compatible_debezium_json') {
    const [topic, key, value] = [at('topic'), at('key'), at('value')];
    return (fields) => {
      const t = topic < 0 ? undefined : fields[topic];
      return { topic: text(t)?.toString('utf8'), key: text(fields[key]), value: text(fields[value]) };
    };
  }
  const [headers, key, partition, timestamp, value] = NATIVE_SINK_COLUMNS.map(at);
  return (fields) => {
    const h = fields[headers];
    let out: Map<Buffer, Buffer> | undefined;
    if (h instanceof Map && h.size > 0) {
      out = new Map();
      for (const [k, v] of h as Map<unknown, unknown>) out.set(Buffer.from(String(k), 'utf8'), text(v) ?? Buffer.alloc(0));
    }
    const p = fields[partition];
    const ts = fields[timestamp];
    if (p !== null && p !== undefined && (typeof p !== 'number' || p < 0))
      throw new TidewayError(
        ErrorCode.TASK_FAILED,
        `a row of table ${tableId} has partition ${JSON.stringify(p, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}, which is not a partition number.`,
      );
    return {
      headers: out,
      key: bytes(fields[key]),
      value: bytes(fields[value]),
      partition: p === null || p === undefined ? undefined : p,
      timestamp: ts === null || ts === undefined ? undefined : BigInt(ts as bigint | number),
    };
  };
}
