import { crc32 } from 'node:zlib';
import type { Column, DataType } from '@tideway/api';
import {
  columnError,
  CompressionKind,
  compressChunk,
  dateDays,
  decimalByteCount,
  OrcFileWriter,
  ORC_STRIPE_BYTES,
  type OrcType,
  ParquetFileWriter,
  PARQUET_ROW_GROUP_BYTES,
  timeMicros,
  timestampMicros,
  unscaledBytes,
  unscaledDecimal,
} from '@tideway/connector-file-common';
import type avro from 'avsc';
import { avroBlock, avroHeader, type AvroSchema, avroType } from './avro.js';
import type { FileFormat } from './data-format.js';
import type { IcebergField, IcebergType } from './schema.js';
import { compareInternal, decimalScale, type Internal, internalOf, serializeValue } from './values.js';

/**
 * The encoders of an Iceberg data or delete file in each format, with the column statistics its
 * manifest entry carries: Parquet (Tideway's writer, field ids on its schema elements, statistics
 * from its row groups), ORC (Tideway's writer, Iceberg's type attributes iceberg.id,
 * iceberg.required, iceberg.long-type for time, iceberg.binary-type for uuid/fixed/binary,
 * iceberg.timestamp-unit) and Avro (avsc's encoder in container blocks, the schema by Iceberg's
 * Avro rules: field-id on every field, element-id/key-id/value-id, optional fields as unions with
 * null, decimals as fixed, date/time/timestamps by logical type). ORC and Avro statistics are
 * counted from the values as they are added.
 */

/** Column statistics of a file, per top-level primitive field id: value and null counts, bounds (single-value serialized, base64). */
export interface FileStats {
  readonly valueCounts: readonly (readonly [number, number])[];
  readonly nullCounts: readonly (readonly [number, number])[];
  readonly lower: readonly (readonly [number, string])[];
  readonly upper: readonly (readonly [number, string])[];
}

/** A file's encoder: rows of the fields' values in (the job's engine values), the file's bytes out. */
export interface DataFileEncoder {
  add(values: readonly unknown[]): void;
  /**
   * Row-level errors (the sink's handleRowErrors): throws what `add` would throw for these values
   * because of themselves (a value its field's type cannot hold in this format), naming the
   * field, and keeps nothing of them.
   */
  probe(values: readonly unknown[]): void;
  /** The bytes finished since the last call. */
  take(): Uint8Array | undefined;
  /** The rest of the file. */
  finish(): Uint8Array | undefined;
  stats(): FileStats;
}

/** Bounds of strings and binaries longer than this are left out of manifests (a bound is optional; a long one only makes manifests big). */
const MAX_BOUND_BYTES = 256;

/** Per field, its values counted and bounded as they come (ORC and Avro). */
class ValueStats {
  private readonly values: number[];
  private readonly nulls: number[];
  private readonly min: (Internal | undefined)[];
  private readonly max: (Internal | undefined)[];
  private readonly unbounded: boolean[];

  constructor(private readonly fields: readonly { id: number; type: IcebergType }[]) {
    this.values = fields.map(() => 0);
    this.nulls = fields.map(() => 0);
    this.min = fields.map(() => undefined);
    this.max = fields.map(() => undefined);
    this.unbounded = fields.map((f) => typeof f.type !== 'string' || f.type === 'uuid' || f.type.startsWith('fixed'));
  }

  add(row: readonly unknown[]): void {
    for (let i = 0; i < this.fields.length; i++) {
      const v = row[i];
      this.values[i]++;
      if (v === null || v === undefined) {
        this.nulls[i]++;
        continue;
      }
      if (this.unbounded[i]) continue;
      const x = internalOf(this.fields[i].type as string, v);
      if (x === null || (typeof x === 'number' && Number.isNaN(x))) continue;
      const lo = this.min[i];
      const hi = this.max[i];
      if (lo === undefined || compareInternal(x, lo) < 0) this.min[i] = x;
      if (hi === undefined || compareInternal(x, hi) > 0) this.max[i] = x;
    }
  }

  /** Converts each bounded value as `add` does (a date or timestamp text that does not parse throws), keeping nothing. */
  probe(row: readonly unknown[], names: readonly string[]): void {
    for (let i = 0; i < this.fields.length; i++) {
      const v = row[i];
      if (v === null || v === undefined || this.unbounded[i]) continue;
      try {
        internalOf(this.fields[i].type as string, v);
      } catch (err) {
        throw columnError(names[i], err);
      }
    }
  }

  stats(): FileStats {
    const valueCounts: [number, number][] = [];
    const nullCounts: [number, number][] = [];
    const lower: [number, string][] = [];
    const upper: [number, string][] = [];
    this.fields.forEach((f, i) => {
      if (typeof f.type !== 'string') return;
      valueCounts.push([f.id, this.values[i]]);
      nullCounts.push([f.id, this.nulls[i]]);
      const min = this.min[i];
      const max = this.max[i];
      if (min === undefined || max === undefined) return;
      const lo = serializeValue(f.type, min);
      const hi = serializeValue(f.type, max);
      if (lo.length <= MAX_BOUND_BYTES && hi.length <= MAX_BOUND_BYTES) {
        lower.push([f.id, Buffer.from(lo).toString('base64')]);
        upper.push([f.id, Buffer.from(hi).toString('base64')]);
      }
    });
    return { valueCounts, nullCounts, lower, upper };
  }
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * Throws, naming the field, for a top-level int or long value outside Iceberg's 32 or 64 bits
 * (the writers would wrap it, or fail the file's statistics at its end), so `probe` refuses it.
 */
function probeRanges(fields: readonly IcebergField[], values: readonly unknown[]): void {
  for (let i = 0; i < fields.length; i++) {
    const t = fields[i].type;
    const v = values[i];
    if (v === null || v === undefined || (t !== 'int' && t !== 'long')) continue;
    const n = typeof v === 'bigint' ? v : typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : undefined;
    const fits = n !== undefined && (t === 'int' ? n >= INT_MIN && n <= INT_MAX : n >= LONG_MIN && n <= LONG_MAX);
    if (!fits)
      throw columnError(
        fields[i].name,
        new RangeError(
          `${typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string' ? String(v) : `A ${typeof v}`} is not a value of Iceberg's ${t} (${t === 'int' ? 32 : 64}-bit integer).`,
        ),
      );
  }
}

// ---- Parquet ----

/** How many Parquet leaves (column chunks) a field spans. */
function leaves(t: IcebergType): number {
  if (typeof t === 'string') return 1;
  if (t.type === 'list') return leaves(t.element);
  if (t.type === 'map') return leaves(t.key) + leaves(t.value);
  return t.fields.reduce((n, f) => n + leaves(f.type), 0);
}

/** A row-group statistic as an Iceberg internal value; undefined when it cannot bound (NaN). */
function boundOf(type: string, v: unknown): Internal | undefined {
  switch (type) {
    case 'long':
    case 'time':
    case 'timestamp':
      return BigInt(v as number | bigint);
    case 'int':
    case 'date':
      return Number(v);
    case 'float':
    case 'double':
      return Number.isNaN(v) ? undefined : Number(v);
    case 'boolean':
      return Boolean(v);
    case 'string':
    case 'binary':
      return v instanceof Uint8Array ? v : typeof v === 'string' ? Buffer.from(v) : undefined;
    default:
      if (type.startsWith('decimal')) return typeof v === 'bigint' ? v : undefined;
      return undefined;
  }
}

class ParquetEncoder implements DataFileEncoder {
  private readonly writer: ParquetFileWriter;

  constructor(
    columns: readonly Column[],
    fieldIds: readonly (number | undefined)[],
    private readonly fields: readonly IcebergField[],
    format: FileFormat,
    targetFileBytes: number,
  ) {
    this.writer = new ParquetFileWriter(columns, format.parquetCodec, Math.min(PARQUET_ROW_GROUP_BYTES, targetFileBytes), true, fieldIds);
  }

  add(values: readonly unknown[]): void {
    this.writer.add(values);
  }

  probe(values: readonly unknown[]): void {
    probeRanges(this.fields, values);
    this.writer.probe(values);
  }

  take(): Uint8Array | undefined {
    return this.writer.take();
  }

  finish(): Uint8Array | undefined {
    return this.writer.finish();
  }

  /** Value and null counts and bounds of the primitive top-level columns, from the row groups' statistics. */
  stats(): FileStats {
    const groups = this.writer.writtenRowGroups;
    const valueCounts: [number, number][] = [];
    const nullCounts: [number, number][] = [];
    const lower: [number, string][] = [];
    const upper: [number, string][] = [];
    let leaf = 0;
    for (const f of this.fields) {
      const at = leaf;
      leaf += leaves(f.type);
      if (typeof f.type !== 'string') continue;
      const type = f.type;
      let values = 0;
      let nulls = 0;
      let min: Internal | undefined;
      let max: Internal | undefined;
      let bounded = true;
      for (const g of groups) {
        const meta = g.columns[at].meta_data!;
        values += Number(meta.num_values);
        const s = meta.statistics;
        nulls += Number(s?.null_count ?? 0n);
        const lo = s?.min_value;
        const hi = s?.max_value;
        if (lo === undefined || lo === null || hi === undefined || hi === null) {
          if (Number(meta.num_values) > Number(s?.null_count ?? 0n)) bounded = false;
          continue;
        }
        const a = boundOf(type, lo);
        const b = boundOf(type, hi);
        if (a === undefined || b === undefined) {
          bounded = false;
          continue;
        }
        if (min === undefined || compareInternal(a, min) < 0) min = a;
        if (max === undefined || compareInternal(b, max) > 0) max = b;
      }
      valueCounts.push([f.id, values]);
      nullCounts.push([f.id, nulls]);
      if (bounded && min !== undefined && max !== undefined) {
        const lo = serializeValue(type, min);
        const hi = serializeValue(type, max);
        if (lo.length <= MAX_BOUND_BYTES && hi.length <= MAX_BOUND_BYTES) {
          lower.push([f.id, Buffer.from(lo).toString('base64')]);
          upper.push([f.id, Buffer.from(hi).toString('base64')]);
        }
      }
    }
    return { valueCounts, nullCounts, lower, upper };
  }
}

// ---- ORC ----

const nil = (v: unknown): boolean => v === null || v === undefined;

/** The ORC writer's column type of an Iceberg type, and the conversion of an engine value into what that writer takes. */
function orcColumn(t: IcebergType): { type: DataType; convert: (v: unknown) => unknown } {
  const same = (type: DataType) => ({ type, convert: (v: unknown) => v });
  if (typeof t !== 'string') {
    switch (t.type) {
      case 'list': {
        const el = orcColumn(t.element);
        return { type: { kind: 'array', element: el.type }, convert: (v) => (nil(v) ? null : (v as unknown[]).map(el.convert)) };
      }
      case 'map': {
        const k = orcColumn(t.key);
        const x = orcColumn(t.value);
        return {
          type: { kind: 'map', key: k.type, value: x.type },
          convert: (v) => (nil(v) ? null : new Map([...(v as Map<unknown, unknown>)].map(([a, b]) => [k.convert(a), x.convert(b)]))),
        };
      }
      case 'struct': {
        const fs = t.fields.map((f) => orcColumn(f.type));
        return {
          type: { kind: 'row', fields: t.fields.map((f, i) => ({ name: f.name, type: fs[i].type })) },
          convert: (v) => (nil(v) ? null : fs.map((f, i) => f.convert((v as unknown[])[i]))),
        };
      }
    }
  }
  switch (t) {
    case 'boolean':
      return same({ kind: 'boolean' });
    case 'int':
      return same({ kind: 'int' });
    case 'long':
      return { type: { kind: 'bigint' }, convert: (v) => (nil(v) ? null : BigInt(v as number | bigint)) };
    case 'float':
      return same({ kind: 'float' });
    case 'double':
      return same({ kind: 'double' });
    case 'date':
      return same({ kind: 'date' });
    case 'time':
      return { type: { kind: 'bigint' }, convert: (v) => (nil(v) ? null : timeMicros(v as string)) };
    case 'timestamp':
      return same({ kind: 'timestamp' });
    case 'timestamptz':
      return same({ kind: 'timestamp_tz' });
    case 'string':
      return same({ kind: 'string' });
    case 'binary':
      return same({ kind: 'bytes' });
    case 'uuid':
      return { type: { kind: 'bytes' }, convert: (v) => (nil(v) ? null : uuidBytes(v)) };
    default:
      if (t.startsWith('fixed')) return same({ kind: 'bytes' });
      if (t.startsWith('decimal')) {
        const [p, s] = (/\((\d+),\s*(\d+)\)/.exec(t) ?? []).slice(1).map(Number);
        return same({ kind: 'decimal', precision: p, scale: s });
      }
      throw new Error(`Iceberg type ${t} has no ORC column here.`);
  }
}

/** A uuid's 16 bytes from its text (or its bytes). */
function uuidBytes(v: unknown): Buffer {
  return v instanceof Uint8Array ? Buffer.from(v) : Buffer.from(String(v).replace(/-/g, ''), 'hex');
}

/** Puts Iceberg's attributes on the ORC types of a field from type index `at` (pre-order); returns the index after its subtree. */
function annotateOrc(types: OrcType[], at: number, t: IcebergType, id: number, required: boolean): number {
  const attrs = types[at].attributes;
  attrs.push({ key: 'iceberg.id', value: String(id) }, { key: 'iceberg.required', value: String(required) });
  if (typeof t === 'string') {
    if (t === 'time') attrs.push({ key: 'iceberg.long-type', value: 'TIME' });
    if (t === 'timestamp' || t === 'timestamptz') attrs.push({ key: 'iceberg.timestamp-unit', value: 'MICROS' });
    if (t === 'uuid') attrs.push({ key: 'iceberg.binary-type', value: 'UUID' });
    if (t === 'binary') attrs.push({ key: 'iceberg.binary-type', value: 'BINARY' });
    if (t.startsWith('fixed')) {
      attrs.push({ key: 'iceberg.binary-type', value: 'FIXED' }, { key: 'iceberg.length', value: /\[(\d+)\]/.exec(t)?.[1] ?? '0' });
    }
    return at + 1;
  }
  if (t.type === 'list') return annotateOrc(types, at + 1, t.element, t['element-id'], t['element-required']);
  if (t.type === 'map') {
    const next = annotateOrc(types, at + 1, t.key, t['key-id'], true);
    return annotateOrc(types, next, t.value, t['value-id'], t['value-required']);
  }
  let next = at + 1;
  for (const f of t.fields) next = annotateOrc(types, next, f.type, f.id, f.required);
  return next;
}

class OrcEncoder implements DataFileEncoder {
  private readonly writer: OrcFileWriter;
  private readonly converts: ((v: unknown) => unknown)[];
  private readonly names: string[];
  private readonly counted: ValueStats;

  constructor(
    private readonly fields: readonly IcebergField[],
    format: FileFormat,
    targetFileBytes: number,
  ) {
    const columns = fields.map((f) => orcColumn(f.type));
    this.converts = columns.map((c) => c.convert);
    this.names = fields.map((f) => f.name);
    this.writer = new OrcFileWriter(
      fields.map((f, i) => ({ name: f.name, type: columns[i].type, nullable: !f.required })),
      format.orcCodec,
      Math.min(ORC_STRIPE_BYTES, targetFileBytes),
      false, // encoded on the writing thread, as the Parquet files of a writer with many partitions open
    );
    let at = 1;
    for (const f of fields) at = annotateOrc(this.writer.orcTypes, at, f.type, f.id, f.required);
    this.counted = new ValueStats(fields);
  }

  add(values: readonly unknown[]): void {
    this.counted.add(values);
    this.writer.add(values.map((v, i) => this.converts[i](v)));
  }

  probe(values: readonly unknown[]): void {
    probeRanges(this.fields, values);
    this.counted.probe(values, this.names);
    const converted = values.map((v, i) => {
      try {
        return this.converts[i](v);
      } catch (err) {
        throw columnError(this.names[i], err);
      }
    });
    this.writer.probe(converted); // names the column of a value the ORC column refuses
  }

  take(): Uint8Array | undefined {
    return this.writer.take();
  }

  finish(): Uint8Array | undefined {
    return this.writer.finish();
  }

  stats(): FileStats {
    return this.counted.stats();
  }
}

// ---- Avro ----

/**
 * An Avro name for an Iceberg name (Iceberg's AvroSchemaUtil.makeCompatibleName's rule: a first
 * character that is not a letter or '_' and any later one that is not a letter, digit or '_'
 * become '_x' and the character's code in upper-case hex; a leading digit becomes '_' and the
 * digit). Readers resolve fields by field-id; the original name is kept in iceberg-field-name.
 */
export function avroName(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (/[A-Za-z_]/.test(c) || (i > 0 && /[0-9]/.test(c))) out += c;
    else if (i === 0 && /[0-9]/.test(c)) out += `_${c}`;
    else out += `_x${c.codePointAt(0)!.toString(16).toUpperCase()}`;
  }
  return out;
}

/** Builds the Avro schema of Iceberg types, each named type defined once. */
/**
 * Iceberg types as Avro schemas (Iceberg's Avro rules), each named type (decimal, fixed, uuid)
 * defined once per builder: for data files' schemas and manifests' partition fields.
 */
export class AvroSchemaBuilder {
  private readonly named = new Set<string>();

  private namedType(name: string, make: () => Record<string, unknown>): AvroSchema {
    if (this.named.has(name)) return name;
    this.named.add(name);
    return { ...make(), name };
  }

  optional(t: IcebergType, required: boolean, id: number): AvroSchema {
    const s = this.type(t, id);
    return required ? s : ['null', s];
  }

  record(name: string, fields: readonly IcebergField[]): AvroSchema {
    return {
      type: 'record',
      name,
      fields: fields.map((f) => {
        const n = avroName(f.name);
        return {
          name: n,
          type: this.optional(f.type, f.required, f.id),
          ...(f.required ? {} : { default: null }),
          'field-id': f.id,
          ...(n !== f.name ? { 'iceberg-field-name': f.name } : {}),
        };
      }),
    };
  }

  type(t: IcebergType, id: number): AvroSchema {
    if (typeof t !== 'string') {
      switch (t.type) {
        case 'list':
          return { type: 'array', items: this.optional(t.element, t['element-required'], t['element-id']), 'element-id': t['element-id'] };
        case 'map':
          if (t.key === 'string') {
            return {
              type: 'map',
              values: this.optional(t.value, t['value-required'], t['value-id']),
              'key-id': t['key-id'],
              'value-id': t['value-id'],
            };
          }
          return {
            type: 'array',
            logicalType: 'map',
            items: {
              type: 'record',
              name: `k${t['key-id']}_v${t['value-id']}`,
              fields: [
                { name: 'key', type: this.type(t.key, t['key-id']), 'field-id': t['key-id'] },
                {
                  name: 'value',
                  type: this.optional(t.value, t['value-required'], t['value-id']),
                  ...(t['value-required'] ? {} : { default: null }),
                  'field-id': t['value-id'],
                },
              ],
            },
          };
        case 'struct':
          return this.record(`r${id}`, t.fields);
      }
    }
    switch (t) {
      case 'boolean':
      case 'int':
      case 'long':
      case 'float':
      case 'double':
      case 'string':
        return t;
      case 'binary':
        return 'bytes';
      case 'date':
        return { type: 'int', logicalType: 'date' };
      case 'time':
        return { type: 'long', logicalType: 'time-micros' };
      case 'timestamp':
        return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': false };
      case 'timestamptz':
        return { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true };
      case 'uuid':
        return this.namedType('uuid_fixed', () => ({ type: 'fixed', size: 16, logicalType: 'uuid' }));
      default: {
        if (t.startsWith('fixed')) {
          const n = Number(/\[(\d+)\]/.exec(t)?.[1]);
          return this.namedType(`fixed_${n}`, () => ({ type: 'fixed', size: n }));
        }
        if (t.startsWith('decimal')) {
          const [p, s] = (/\((\d+),\s*(\d+)\)/.exec(t) ?? []).slice(1).map(Number);
          return this.namedType(`decimal_${p}_${s}`, () => ({
            type: 'fixed',
            size: decimalByteCount(p),
            logicalType: 'decimal',
            precision: p,
            scale: s,
          }));
        }
        throw new Error(`Iceberg type ${t} has no Avro type here.`);
      }
    }
  }
}

/** The Avro schema of an Iceberg file of `fields` (the top-level record named as Iceberg's writers name it). */
export function avroSchemaOf(fields: readonly IcebergField[], name = 'table'): AvroSchema {
  return new AvroSchemaBuilder().record(avroName(name), fields);
}

/** A decimal's unscaled value as `size` big-endian two's-complement bytes (Avro's fixed). */
export function fixedDecimal(unscaled: bigint, size: number): Buffer {
  const min = unscaledBytes(unscaled);
  const out = Buffer.alloc(size, unscaled < 0n ? 0xff : 0);
  out.set(min, size - min.length);
  return out;
}

/** The conversion of an engine value of Iceberg type `t` into avsc's value of its Avro type. */
function avroValue(t: IcebergType): (v: unknown) => unknown {
  if (typeof t !== 'string') {
    switch (t.type) {
      case 'list': {
        const el = avroValue(t.element);
        return (v) => (nil(v) ? null : (v as unknown[]).map(el));
      }
      case 'map': {
        const k = avroValue(t.key);
        const x = avroValue(t.value);
        if (t.key === 'string')
          return (v) => (nil(v) ? null : Object.fromEntries([...(v as Map<string, unknown>)].map(([a, b]) => [a, x(b)])));
        return (v) => (nil(v) ? null : [...(v as Map<unknown, unknown>)].map(([a, b]) => ({ key: k(a), value: x(b) })));
      }
      case 'struct': {
        const fs = t.fields.map((f) => ({ name: avroName(f.name), conv: avroValue(f.type) }));
        return (v) => (nil(v) ? null : Object.fromEntries(fs.map((f, i) => [f.name, f.conv((v as unknown[])[i])])));
      }
    }
  }
  const opt = (f: (v: unknown) => unknown) => (v: unknown) => (nil(v) ? null : f(v));
  switch (t) {
    case 'int':
    case 'float':
    case 'double':
      return opt(Number);
    case 'long':
      return opt((v) => BigInt(v as number | bigint));
    case 'boolean':
      return opt(Boolean);
    case 'string':
      return opt(String);
    case 'binary':
      return opt((v) => Buffer.from(v as Uint8Array));
    case 'date':
      return opt((v) => dateDays(v as string));
    case 'time':
      return opt((v) => timeMicros(v as string));
    case 'timestamp':
      return opt((v) => timestampMicros(v as string));
    case 'uuid':
      return opt(uuidBytes);
    default:
      if (t.startsWith('fixed')) return opt((v) => Buffer.from(v as Uint8Array));
      if (t.startsWith('decimal')) {
        const precision = Number(/\((\d+),/.exec(t)?.[1]);
        const size = decimalByteCount(precision);
        const scale = decimalScale(t);
        const limit = 10n ** BigInt(precision);
        return opt((v) => {
          const unscaled = typeof v === 'bigint' ? v : unscaledDecimal(String(v), scale);
          // the fixed bytes of the precision may hold a wider number; readers take the precision as the bound
          if (unscaled >= limit || -unscaled >= limit) throw new RangeError(`The decimal ${String(v)} has more digits than ${t} holds.`);
          return fixedDecimal(unscaled, size);
        });
      }
      throw new Error(`Iceberg type ${t} has no Avro value here.`);
  }
}

/** Bytes of encoded records after which a block is closed. */
const AVRO_BLOCK_BYTES = 1024 * 1024;

const AVRO_CODEC_KINDS = { deflate: CompressionKind.ZLIB, snappy: CompressionKind.SNAPPY, zstandard: CompressionKind.ZSTD } as const;

/** A block's bytes compressed by the container's codec (Avro's snappy: the raw block, then the CRC-32 of the input, big-endian). */
function avroCompress(codec: FileFormat['avroCodec'], bytes: Buffer): Uint8Array {
  if (codec === 'null') return bytes;
  const out = compressChunk(AVRO_CODEC_KINDS[codec], bytes);
  if (codec !== 'snappy') return out;
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(bytes) >>> 0);
  return Buffer.concat([out, crc]);
}

class AvroEncoder implements DataFileEncoder {
  private readonly type: ReturnType<typeof avroType>;
  private readonly names: string[];
  /** The fields' Iceberg names, as errors name them. */
  private readonly fieldNames: string[];
  private readonly converts: ((v: unknown) => unknown)[];
  private readonly header: Buffer;
  private readonly sync: Buffer;
  private headerTaken = false;
  private records: Buffer[] = [];
  private bytes = 0;
  private readonly blocks: Uint8Array[] = [];
  private readonly counted: ValueStats;

  constructor(
    private readonly fields: readonly IcebergField[],
    private readonly codec: FileFormat['avroCodec'],
  ) {
    const schema = avroSchemaOf(fields);
    this.type = avroType(schema);
    ({ header: this.header, sync: this.sync } = avroHeader(schema, codec));
    this.names = fields.map((f) => avroName(f.name));
    this.fieldNames = fields.map((f) => f.name);
    this.converts = fields.map((f) => avroValue(f.type));
    this.counted = new ValueStats(fields);
  }

  probe(values: readonly unknown[]): void {
    probeRanges(this.fields, values);
    this.counted.probe(values, this.fieldNames);
    const fields = (this.type as avro.types.RecordType).fields;
    for (let i = 0; i < this.names.length; i++) {
      let value: unknown;
      try {
        value = this.converts[i](values[i]);
      } catch (err) {
        throw columnError(this.fieldNames[i], err);
      }
      if (!fields[i].type.isValid(value))
        throw columnError(
          this.fieldNames[i],
          new TypeError(`${String(values[i])} is not a value of Avro type ${JSON.stringify(fields[i].type.schema())}.`),
        );
    }
  }

  add(values: readonly unknown[]): void {
    this.counted.add(values);
    const record: Record<string, unknown> = {};
    for (let i = 0; i < this.names.length; i++) record[this.names[i]] = this.converts[i](values[i]);
    const buf = this.type.toBuffer(record);
    this.records.push(buf);
    this.bytes += buf.length;
    if (this.bytes >= AVRO_BLOCK_BYTES) this.closeBlock();
  }

  private closeBlock(): void {
    if (this.records.length === 0) return;
    this.blocks.push(avroBlock(this.records.length, avroCompress(this.codec, Buffer.concat(this.records)), this.sync));
    this.records = [];
    this.bytes = 0;
  }

  take(): Uint8Array | undefined {
    const parts: Uint8Array[] = this.headerTaken ? [] : [this.header];
    this.headerTaken = true;
    parts.push(...this.blocks.splice(0));
    return parts.length ? Buffer.concat(parts) : undefined;
  }

  finish(): Uint8Array | undefined {
    this.closeBlock();
    return this.take();
  }

  stats(): FileStats {
    return this.counted.stats();
  }
}

/**
 * An encoder of a file of `fields` in `format`; `columns` and `fieldIds` are the Parquet writer's
 * (the job's column types, the ids of every schema element).
 */
export function dataFileEncoder(
  format: FileFormat,
  fields: readonly IcebergField[],
  columns: readonly Column[],
  fieldIds: readonly (number | undefined)[],
  targetFileBytes: number,
): DataFileEncoder {
  switch (format.format) {
    case 'PARQUET':
      return new ParquetEncoder(columns, fieldIds, fields, format, targetFileBytes);
    case 'ORC':
      return new OrcEncoder(fields, format, targetFileBytes);
    case 'AVRO':
      return new AvroEncoder(fields, format.avroCodec);
  }
}
