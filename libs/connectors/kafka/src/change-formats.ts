import type { DataType, RowKind } from '@tideway/api';
import { ValueConversionError, ErrorCode } from '@tideway/common';
import { compileJsonLineWriter, compileJsonObjectReader, parseJsonObject } from '@tideway/connector-file-common/formats';

/**
 * The change-log JSON formats SeaTunnel reads from and writes to Kafka (canal_json,
 * debezium_json, maxwell_json, ogg_json, and the payload of compatible_kafka_connect_json):
 * one message is one change (or, for Canal, several rows of one statement), decoded into rows
 * with their kind (+I, -U, +U, -D). What each writes is what SeaTunnel's serializers write.
 */

export type Columns = readonly { name: string; type: DataType }[];

/** One decoded row: its kind and its fields in the table's column order. */
export interface ChangeRow {
  readonly kind: RowKind;
  readonly fields: unknown[];
}

export const CHANGE_FORMATS = ['canal_json', 'debezium_json', 'maxwell_json', 'ogg_json', 'compatible_kafka_connect_json'] as const;
export type ChangeFormat = (typeof CHANGE_FORMATS)[number];

/** The change formats the sink writes (SeaTunnel has no compatible_kafka_connect_json serializer). */
export const CHANGE_SINK_FORMATS = ['canal_json', 'debezium_json', 'maxwell_json', 'ogg_json'] as const;

/** A message's text field (its type or op), or '' when absent or not text. */
function textField(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function fail(message: string): never {
  throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, message);
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(`${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

/** `data` with the fields `old` names replaced by their old values (Canal's and Maxwell's update before-image). */
function overlay(data: Record<string, unknown>, old: unknown): Record<string, unknown> {
  return old && typeof old === 'object' && !Array.isArray(old) ? { ...data, ...(old as Record<string, unknown>) } : data;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Epoch microseconds as the held timestamp text (UTC wall clock). */
function timestampFromMicros(micros: bigint): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = Number(micros - ms * 1000n);
  const iso = new Date(Number(ms)).toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const frac = `${iso.slice(20, 23)}${pad(rest, 3)}`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${frac ? `.${frac}` : ''}`;
}

/** Microseconds since midnight as the held time text. */
function timeFromMicros(micros: bigint): string {
  const s = micros / 1_000_000n;
  const frac = String(micros % 1_000_000n)
    .padStart(6, '0')
    .replace(/0+$/, '');
  const n = Number(s);
  return `${pad(Math.floor(n / 3600))}:${pad(Math.floor(n / 60) % 60)}:${pad(n % 60)}${frac ? `.${frac}` : ''}`;
}

/** A Kafka Connect Decimal's bytes (base64 big-endian two's complement unscaled value) as decimal text. */
function connectDecimal(base64: string, scale: number): string {
  const bytes = Buffer.from(base64, 'base64');
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  if (bytes.length > 0 && (bytes[0] & 0x80) !== 0) n -= 1n << BigInt(bytes.length * 8);
  const neg = n < 0n;
  const digits = (neg ? -n : n).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${text}` : text;
}

interface ConnectField {
  readonly name?: string;
  readonly parameters?: Record<string, string>;
}

/**
 * Debezium's encodings of temporal and decimal values (numbers of days, milliseconds or
 * microseconds; Kafka Connect Decimal bytes; zoned timestamps), turned into the text the
 * column's type reads. `logical` is the field's Connect schema when the message carries one.
 */
function debeziumValue(v: unknown, type: DataType, logical: ConnectField | undefined): unknown {
  if (v === null || v === undefined) return v;
  const name = logical?.name ?? '';
  switch (type.kind) {
    case 'date':
      if (typeof v === 'number') return new Date(v * 86_400_000).toISOString().slice(0, 10);
      return v;
    case 'timestamp':
      if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v))) {
        const n = BigInt(v);
        if (name.endsWith('NanoTimestamp')) return timestampFromMicros(n / 1000n);
        if (name.endsWith('MicroTimestamp')) return timestampFromMicros(n);
        return timestampFromMicros(n * 1000n);
      }
      if (typeof v === 'string' && /(Z|[+-]\d\d:?\d\d)$/.test(v)) {
        const ms = Date.parse(v);
        if (!Number.isNaN(ms)) return timestampFromMicros(BigInt(ms) * 1000n);
      }
      return v;
    case 'time':
      if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v))) {
        const n = BigInt(v);
        if (name.endsWith('NanoTime')) return timeFromMicros(n / 1000n);
        if (name === 'io.debezium.time.Time' || name === 'org.apache.kafka.connect.data.Time') return timeFromMicros(n * 1000n);
        return timeFromMicros(n);
      }
      return v;
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      // io.debezium.data.Bits: the bits as little-endian bytes (base64), narrowed to the column as Java narrows.
      if (typeof v === 'string' && name === 'io.debezium.data.Bits') {
        let n = 0n;
        const bytes = Buffer.from(v, 'base64');
        for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
        const width = { tinyint: 8, smallint: 16, int: 32, bigint: 64 }[type.kind];
        const wrapped = BigInt.asIntN(width, n);
        return type.kind === 'bigint' ? wrapped.toString() : Number(wrapped);
      }
      return v;
    case 'decimal':
      if (typeof v === 'string' && name === 'org.apache.kafka.connect.data.Decimal' && !/^[+-]?[\d.]+$/.test(v))
        return connectDecimal(v, Number(logical?.parameters?.scale ?? 0));
      return v;
    default:
      return v;
  }
}

/** The Connect schemas of the fields of a Debezium envelope's `after` (or `before`) struct, by field name. */
function connectFields(schema: unknown): Map<string, ConnectField> {
  const out = new Map<string, ConnectField>();
  const fields = (schema as { fields?: unknown } | undefined)?.fields;
  if (!Array.isArray(fields)) return out;
  for (const part of fields as { field?: string; fields?: unknown }[]) {
    if ((part.field === 'after' || part.field === 'before') && Array.isArray(part.fields)) {
      for (const f of part.fields as (ConnectField & { field?: string })[]) if (f.field) out.set(f.field, f);
    }
  }
  return out;
}

/** Compiles the decoder of one change format into rows of `columns`. */
/** debezium_record_table_filter: the table whose records a debezium_json source keeps (by the envelope's `source`). */
export interface DebeziumTableFilter {
  readonly database?: string;
  readonly schema?: string;
  readonly table: string;
}

export function compileChangeDecoder(columns: Columns, format: ChangeFormat, filter?: DebeziumTableFilter): (text: string) => ChangeRow[] {
  const { read, exactNumbers } = compileJsonObjectReader(columns);
  const row = (kind: RowKind, o: unknown, what: string): ChangeRow => ({ kind, fields: read(object(o, what)) });
  switch (format) {
    case 'canal_json':
      return (text) => {
        const m = parseJsonObject(text, exactNumbers);
        const type = textField(m.type);
        if (m.isDdl === true || !['INSERT', 'UPDATE', 'DELETE'].includes(type)) return []; // DDL and other events carry no rows
        // Canal's own messages hold an array of rows; SeaTunnel's (and this) sink writes one row as an object.
        const single = typeof m.data === 'object' && m.data !== null && !Array.isArray(m.data);
        if (!Array.isArray(m.data) && !single) fail(`a Canal ${type} message has no "data" array`);
        const data = single ? [m.data] : (m.data as unknown[]);
        const old = Array.isArray(m.old) ? (m.old as unknown[]) : [];
        const out: ChangeRow[] = [];
        data.forEach((d, i) => {
          if (type === 'INSERT') out.push(row('+I', d, 'a Canal data row'));
          else if (type === 'DELETE') out.push(row('-D', d, 'a Canal data row'));
          else {
            const after = object(d, 'a Canal data row');
            out.push(row('-U', overlay(after, old[i]), 'a Canal old row'), row('+U', after, 'a Canal data row'));
          }
        });
        return out;
      };
    case 'maxwell_json':
      return (text) => {
        const m = parseJsonObject(text, exactNumbers);
        const type = textField(m.type);
        switch (type) {
          case 'insert':
          case 'bootstrap-insert':
            return [row('+I', m.data, 'Maxwell "data"')];
          case 'delete':
            return [row('-D', m.data, 'Maxwell "data"')];
          case 'update': {
            const after = object(m.data, 'Maxwell "data"');
            return [row('-U', overlay(after, m.old), 'Maxwell "old"'), row('+U', after, 'Maxwell "data"')];
          }
          default:
            // DDL (table-create, ...) and bootstrap-start / bootstrap-complete carry no row
            if (type.includes('-') || type === 'ddl') return [];
            return fail(`a Maxwell message has type '${type}' (insert, update or delete were expected)`);
        }
      };
    case 'ogg_json':
      return (text) => {
        const m = parseJsonObject(text, exactNumbers);
        const op = textField(m.op_type);
        switch (op) {
          case 'I':
            return [row('+I', m.after, 'OGG "after"')];
          case 'U':
            return [row('-U', m.before, 'OGG "before"'), row('+U', m.after, 'OGG "after"')];
          case 'D':
            return [row('-D', m.before, 'OGG "before"')];
          case 'T':
            return []; // a truncate carries no row
          default:
            return fail(`an OGG message has op_type '${op}' (I, U, D or T were expected)`);
        }
      };
    case 'debezium_json': {
      const types = new Map(columns.map((c) => [c.name, c.type]));
      const convert = (o: unknown, logical: Map<string, ConnectField>, what: string): Record<string, unknown> => {
        const rec = object(o, what);
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(rec)) {
          const t = types.get(k);
          out[k] = t ? debeziumValue(v, t, logical.get(k)) : v;
        }
        return out;
      };
      return (text) => {
        const m = parseJsonObject(text, exactNumbers);
        // With the Connect schema (JsonConverter schemas.enable), the envelope is in "payload".
        const schema = 'payload' in m && 'schema' in m ? m.schema : undefined;
        const env = schema !== undefined ? m.payload : m;
        if (env === null) return []; // a tombstone-like empty payload
        const e = object(env, 'the Debezium payload');
        if (filter && !fromTable(e.source, filter)) return [];
        const logical = connectFields(schema);
        switch (textField(e.op)) {
          case 'c':
          case 'r':
            return [row('+I', convert(e.after, logical, 'Debezium "after"'), 'Debezium "after"')];
          case 'u':
            // As SeaTunnel: PostgreSQL sends an update's old row only with REPLICA IDENTITY FULL.
            if (e.before === null || e.before === undefined)
              return fail(
                'a Debezium UPDATE message has no "before" row (a PostgreSQL source table needs REPLICA IDENTITY FULL for Debezium to send it)',
              );
            return [
              row('-U', convert(e.before, logical, 'Debezium "before"'), 'Debezium "before"'),
              row('+U', convert(e.after, logical, 'Debezium "after"'), 'Debezium "after"'),
            ];
          case 'd':
            return [row('-D', convert(e.before, logical, 'Debezium "before"'), 'Debezium "before"')];
          case 't':
            return [];
          default:
            return fail(`a Debezium message has op '${textField(e.op)}' (c, r, u, d or t were expected)`);
        }
      };
    }
    case 'compatible_kafka_connect_json':
      return (text) => {
        const m = parseJsonObject(text, exactNumbers);
        const payload = 'payload' in m && 'schema' in m ? m.payload : m;
        if (payload === null) return [];
        return [row('+I', payload, 'the Kafka Connect payload')];
      };
  }
}

/** Whether a Debezium envelope's `source` names the filter's table (each part the filter gives). */
function fromTable(source: unknown, f: DebeziumTableFilter): boolean {
  const s = typeof source === 'object' && source !== null ? (source as Record<string, unknown>) : {};
  return s.table === f.table && (f.database === undefined || s.db === f.database) && (f.schema === undefined || s.schema === f.schema);
}

/** Compiles the encoder of one change format: a row of `columns` with its kind -> the message value. */
export function compileChangeEncoder(
  columns: Columns,
  format: (typeof CHANGE_SINK_FORMATS)[number],
): (kind: RowKind, fields: readonly unknown[]) => string {
  const write = compileJsonLineWriter(columns);
  if (format === 'debezium_json') {
    // Debezium's envelope as SeaTunnel writes it: an insert or an update's after-image is a
    // create, a delete or an update's before-image a delete.
    return (kind, fields) =>
      kind === '+I' || kind === '+U'
        ? `{"before":null,"after":${write(fields)},"op":"c"}`
        : `{"before":${write(fields)},"after":null,"op":"d"}`;
  }
  // canal_json, maxwell_json and ogg_json: SeaTunnel writes all three as {"data":..., "type":...}.
  return (kind, fields) => `{"data":${write(fields)},"type":"${kind === '+I' || kind === '+U' ? 'INSERT' : 'DELETE'}"}`;
}
