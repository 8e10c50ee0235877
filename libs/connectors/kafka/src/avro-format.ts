import type { DataType } from '@tideway/api';
import {
  BIGINT_AVRO_LONG,
  bytesUnscaled,
  dateDays,
  dateText,
  decimalText,
  timestampMicros,
  timestampText,
  unscaledBytes,
  unscaledDecimal,
} from '@tideway/connector-file-common/formats';
import type avro from 'avsc';
import { onFirstUse } from '@tideway/common';

/**
 * SeaTunnel's `format = avro` for Kafka: each message value is one Avro datum (binary encoding,
 * no container, no schema registry) of the record schema SeaTunnel derives from the table's row
 * type: a record `SeaTunnelRecord` with a field per column, none of them nullable; tinyint (as
 * its unsigned byte, as SeaTunnel writes it) and smallint as int, decimal(p,s) as bytes (decimal logical type: big-endian two's complement of
 * the unscaled value), date as int days, timestamp as long milliseconds of the wall time
 * (local-timestamp-millis), arrays, string-keyed maps and nested rows (a record named after its
 * field). Writer and reader use the same schema, so Tideway's records and SeaTunnel's are
 * byte-for-byte the same.
 */

type Column = { readonly name: string; readonly type: DataType };
type AvroSchema = string | Record<string, unknown>;

const AVRO_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** avsc, loaded by the first job with format = avro (about 12 ms of CPU at every import otherwise). */
const avsc = onFirstUse<typeof avro>('avsc', import.meta.url);

/** Avro longs as JavaScript bigints, made with avsc on first use. */
let long: avro.types.LongType | undefined;
const LONG = () => (long ??= avsc().types.LongType.__with(BIGINT_AVRO_LONG));

/** Why the columns cannot be written as SeaTunnel's avro records, or undefined when they can. */
export function avroColumnsProblem(columns: readonly Column[]): string | undefined {
  const names = new Set<string>();
  const check = (name: string, type: DataType, path: string): string | undefined => {
    if (!AVRO_NAME.test(name)) return `column '${path}' is not an Avro name (letters, digits and _, not starting with a digit)`;
    switch (type.kind) {
      case 'time':
      case 'timestamp_tz':
        return `column '${path}' is of type ${type.kind}, which SeaTunnel's avro format does not have`;
      case 'array':
        return check(name, type.element, `${path}[]`);
      case 'map':
        if (type.key.kind !== 'string') return `column '${path}' is a map with ${type.key.kind} keys; Avro maps have string keys`;
        return check(name, type.value, `${path}{}`);
      case 'row': {
        if (names.has(name)) return `nested row '${path}' repeats the record name ${name}, which Avro does not allow`;
        names.add(name);
        for (const f of type.fields) {
          const p = check(f.name, f.type, `${path}.${f.name}`);
          if (p) return p;
        }
        return undefined;
      }
      default:
        return undefined;
    }
  };
  names.add('SeaTunnelRecord');
  for (const c of columns) {
    const p = check(c.name, c.type, c.name);
    if (p) return p;
  }
  return undefined;
}

function schemaOf(name: string, type: DataType): AvroSchema {
  switch (type.kind) {
    case 'null':
      return 'null';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'date':
      return 'int';
    case 'bigint':
    case 'timestamp':
      return 'long';
    case 'float':
      return 'float';
    case 'double':
      return 'double';
    case 'bytes':
    case 'decimal':
      return 'bytes';
    case 'array':
      return { type: 'array', items: schemaOf(name, type.element) };
    case 'map':
      return { type: 'map', values: schemaOf(name, type.value) };
    case 'row':
      return { type: 'record', name, fields: type.fields.map((f) => ({ name: f.name, type: schemaOf(f.name, f.type) })) };
    default:
      throw new Error(`avro format: type ${type.kind} has no Avro form`);
  }
}

function avroTypeOf(columns: readonly Column[]): avro.Type {
  // Plain types for the logical ones (date, decimal, local-timestamp-millis): their bytes are the
  // plain type's, and the values are converted here.
  const schema = {
    type: 'record',
    name: 'SeaTunnelRecord',
    fields: columns.map((c) => ({ name: c.name, type: schemaOf(c.name, c.type) })),
  };
  return avsc().Type.forSchema(schema as avro.Schema, { registry: { long: LONG() } });
}

type Convert = (v: unknown) => unknown;

function toAvro(type: DataType, path: string): Convert {
  const notNull =
    (f: Convert): Convert =>
    (v) => {
      if (v === null || v === undefined)
        throw new TypeError(`avro format: '${path}' is null, and SeaTunnel's avro records have no nullable fields`);
      return f(v);
    };
  switch (type.kind) {
    case 'tinyint':
      // As SeaTunnel's RowToAvroConverter: Byte.toUnsignedInt (-1 goes out as 255, and is read back as -1).
      return notNull((v) => (v as number) & 0xff);
    case 'bigint':
      return notNull((v) => (typeof v === 'bigint' ? v : BigInt(v as number)));
    case 'bytes':
      return notNull((v) =>
        Buffer.isBuffer(v) ? v : Buffer.from((v as Uint8Array).buffer, (v as Uint8Array).byteOffset, (v as Uint8Array).byteLength),
      );
    case 'decimal': {
      const scale = type.scale;
      return notNull((v) => Buffer.from(unscaledBytes(unscaledDecimal(String(v), scale))));
    }
    case 'date':
      return notNull((v) => dateDays(v as string));
    case 'timestamp':
      // local-timestamp-millis: Java's LocalDateTime -> epoch millis at UTC, the sub-millisecond part dropped (floor).
      return notNull((v) => {
        const micros = timestampMicros(v as string);
        return micros >= 0n ? micros / 1000n : -((-micros + 999n) / 1000n);
      });
    case 'array': {
      const el = toAvro(type.element, `${path}[]`);
      return notNull((v) => (v as unknown[]).map(el));
    }
    case 'map': {
      const val = toAvro(type.value, `${path}{}`);
      return notNull((v) => {
        const out: Record<string, unknown> = {};
        for (const [k, x] of v instanceof Map ? v : Object.entries(v as object)) out[String(k)] = val(x);
        return out;
      });
    }
    case 'row': {
      const fields = type.fields.map((f) => ({ name: f.name, conv: toAvro(f.type, `${path}.${f.name}`) }));
      return notNull((v) => {
        const arr = v as unknown[];
        const out: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i++) out[fields[i].name] = fields[i].conv(arr[i]);
        return out;
      });
    }
    case 'null':
      return () => null;
    default:
      return notNull((v) => v);
  }
}

function fromAvro(type: DataType): Convert {
  switch (type.kind) {
    case 'tinyint':
      return (v) => ((v as number) << 24) >> 24;
    case 'bytes':
      return (v) => new Uint8Array(v as Buffer);
    case 'decimal': {
      const scale = type.scale;
      return (v) => decimalText(bytesUnscaled(v as Buffer), scale);
    }
    case 'date':
      return (v) => dateText(v as number);
    case 'timestamp':
      return (v) => timestampText((v as bigint) * 1000n);
    case 'array': {
      const el = fromAvro(type.element);
      return (v) => (v as unknown[]).map(el);
    }
    case 'map': {
      const val = fromAvro(type.value);
      return (v) => new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, val(x)]));
    }
    case 'row': {
      const fields = type.fields.map((f) => ({ name: f.name, conv: fromAvro(f.type) }));
      return (v) => fields.map((f) => f.conv((v as Record<string, unknown>)[f.name]));
    }
    default:
      return (v) => v;
  }
}

/** A column list's encoder: the row's fields as one Avro datum. */
export function compileAvroEncoder(columns: readonly Column[]): (fields: readonly unknown[]) => Buffer {
  const type = avroTypeOf(columns);
  const convs = columns.map((c) => ({ name: c.name, conv: toAvro(c.type, c.name) }));
  return (fields) => {
    const record: Record<string, unknown> = {};
    for (let i = 0; i < convs.length; i++) record[convs[i].name] = convs[i].conv(fields[i]);
    return type.toBuffer(record);
  };
}

/** A column list's decoder: one Avro datum (written with the same schema) to the row's fields; throws on bytes that do not fit. */
export function compileAvroDecoder(columns: readonly Column[]): (value: Buffer) => unknown[] {
  const type = avroTypeOf(columns);
  const convs = columns.map((c) => ({ name: c.name, conv: fromAvro(c.type) }));
  return (value) => {
    const record = type.fromBuffer(value) as Record<string, unknown>;
    return convs.map((c) => c.conv(record[c.name]));
  };
}
