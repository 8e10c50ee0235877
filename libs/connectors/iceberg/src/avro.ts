import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { deflateRawSync } from 'node:zlib';
import avro from 'avsc';
import { BIGINT_AVRO_LONG } from '@tideway/connector-file-common/formats';

/**
 * Iceberg's Avro files (manifests and manifest lists) through avsc: the schemas of the table
 * spec (format version 2) with the field ids readers resolve fields by, longs as bigints
 * (snapshot ids use all 63 bits), container files written and read whole.
 */

/** Avro longs as JavaScript bigints (avsc's own long type stops at 2^53). */
const LONG = avro.types.LongType.__with(BIGINT_AVRO_LONG);

export type AvroSchema = Record<string, unknown> | string | unknown[];

export function avroType(schema: AvroSchema): avro.Type {
  return avro.Type.forSchema(plainLongs(schema) as avro.Schema, { registry: { long: LONG }, wrapUnions: false });
}

/**
 * The schema with longs of a logical type (timestamp-micros, time-micros) as plain longs: avsc
 * would make those its own number longs, not the bigint LONG. Values are the same; a file's header
 * keeps the schema as given.
 */
function plainLongs(schema: AvroSchema): AvroSchema {
  if (Array.isArray(schema)) return schema.map((s) => plainLongs(s as AvroSchema));
  if (typeof schema !== 'object' || schema === null) return schema;
  if (schema.type === 'long' && schema.logicalType !== undefined && schema.name === undefined) return 'long'; // a type, not a field named so
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, typeof v === 'object' && v !== null ? plainLongs(v as AvroSchema) : v]),
  );
}

const optional = (type: AvroSchema): AvroSchema => ['null', type];

/** Iceberg's map<int, T> in Avro: an array of key/value records (logicalType map). */
function intMap(name: string, keyId: number, valueId: number, value: string): AvroSchema {
  return {
    type: 'array',
    logicalType: 'map',
    items: {
      type: 'record',
      name,
      fields: [
        { name: 'key', type: 'int', 'field-id': keyId },
        { name: 'value', type: value, 'field-id': valueId },
      ],
    },
  };
}

/** One partition field of a manifest's partition record. */
export interface AvroPartitionField {
  readonly name: string;
  readonly fieldId: number;
  readonly type: AvroSchema;
}

/** The manifest_entry schema of a manifest whose partition spec has these fields. */
export function manifestEntrySchema(partition: readonly AvroPartitionField[]): AvroSchema {
  return {
    type: 'record',
    name: 'manifest_entry',
    fields: [
      { name: 'status', type: 'int', 'field-id': 0 },
      { name: 'snapshot_id', type: optional('long'), default: null, 'field-id': 1 },
      { name: 'sequence_number', type: optional('long'), default: null, 'field-id': 3 },
      { name: 'file_sequence_number', type: optional('long'), default: null, 'field-id': 4 },
      {
        name: 'data_file',
        'field-id': 2,
        type: {
          type: 'record',
          name: 'r2',
          fields: [
            { name: 'content', type: 'int', 'field-id': 134 },
            { name: 'file_path', type: 'string', 'field-id': 100 },
            { name: 'file_format', type: 'string', 'field-id': 101 },
            {
              name: 'partition',
              'field-id': 102,
              type: {
                type: 'record',
                name: 'r102',
                fields: partition.map((p) => ({ name: p.name, type: optional(p.type), default: null, 'field-id': p.fieldId })),
              },
            },
            { name: 'record_count', type: 'long', 'field-id': 103 },
            { name: 'file_size_in_bytes', type: 'long', 'field-id': 104 },
            { name: 'column_sizes', type: optional(intMap('k117_v118', 117, 118, 'long')), default: null, 'field-id': 108 },
            { name: 'value_counts', type: optional(intMap('k119_v120', 119, 120, 'long')), default: null, 'field-id': 109 },
            { name: 'null_value_counts', type: optional(intMap('k121_v122', 121, 122, 'long')), default: null, 'field-id': 110 },
            { name: 'nan_value_counts', type: optional(intMap('k138_v139', 138, 139, 'long')), default: null, 'field-id': 137 },
            { name: 'lower_bounds', type: optional(intMap('k126_v127', 126, 127, 'bytes')), default: null, 'field-id': 125 },
            { name: 'upper_bounds', type: optional(intMap('k129_v130', 129, 130, 'bytes')), default: null, 'field-id': 128 },
            { name: 'key_metadata', type: optional('bytes'), default: null, 'field-id': 131 },
            { name: 'split_offsets', type: optional({ type: 'array', items: 'long', 'element-id': 133 }), default: null, 'field-id': 132 },
            { name: 'equality_ids', type: optional({ type: 'array', items: 'int', 'element-id': 136 }), default: null, 'field-id': 135 },
            { name: 'sort_order_id', type: optional('int'), default: null, 'field-id': 140 },
          ],
        },
      },
    ],
  };
}

export const MANIFEST_FILE_SCHEMA: AvroSchema = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    { name: 'manifest_path', type: 'string', 'field-id': 500 },
    { name: 'manifest_length', type: 'long', 'field-id': 501 },
    { name: 'partition_spec_id', type: 'int', 'field-id': 502 },
    { name: 'content', type: 'int', 'field-id': 517 },
    { name: 'sequence_number', type: 'long', 'field-id': 515 },
    { name: 'min_sequence_number', type: 'long', 'field-id': 516 },
    { name: 'added_snapshot_id', type: 'long', 'field-id': 503 },
    { name: 'added_files_count', type: 'int', 'field-id': 504 },
    { name: 'existing_files_count', type: 'int', 'field-id': 505 },
    { name: 'deleted_files_count', type: 'int', 'field-id': 506 },
    { name: 'added_rows_count', type: 'long', 'field-id': 512 },
    { name: 'existing_rows_count', type: 'long', 'field-id': 513 },
    { name: 'deleted_rows_count', type: 'long', 'field-id': 514 },
    {
      name: 'partitions',
      type: optional({
        type: 'array',
        'element-id': 508,
        items: {
          type: 'record',
          name: 'r508',
          fields: [
            { name: 'contains_null', type: 'boolean', 'field-id': 509 },
            { name: 'contains_nan', type: optional('boolean'), default: null, 'field-id': 518 },
            { name: 'lower_bound', type: optional('bytes'), default: null, 'field-id': 510 },
            { name: 'upper_bound', type: optional('bytes'), default: null, 'field-id': 511 },
          ],
        },
      }),
      default: null,
      'field-id': 507,
    },
    { name: 'key_metadata', type: optional('bytes'), default: null, 'field-id': 519 },
  ],
};

const HEADER = avro.Type.forSchema({
  type: 'record',
  name: 'org.apache.avro.file.Header',
  fields: [
    { name: 'magic', type: { type: 'fixed', name: 'Magic', size: 4 } },
    { name: 'meta', type: { type: 'map', values: 'bytes' } },
    { name: 'sync', type: { type: 'fixed', name: 'Sync', size: 16 } },
  ],
});
const PLAIN_LONG = avro.Type.forSchema('long');

/**
 * An Avro object container file of `records` (one deflated block), with `metadata` in its header.
 * The header's schema is `schema` as given, field ids and logical types included (avsc's own
 * encoder writes the parsed schema, which drops them).
 */
export function avroFile(schema: AvroSchema, records: readonly unknown[], metadata: Record<string, string>): Buffer {
  const type = avroType(schema);
  const { header, sync } = avroHeader(schema, 'deflate', metadata);
  if (records.length === 0) return header;
  const block = deflateRawSync(Buffer.concat(records.map((r) => type.toBuffer(r))));
  return Buffer.concat([header, avroBlock(records.length, block, sync)]);
}

/** An Avro container file's header: `schema` as given (field ids and logical types kept), the codec, more metadata; and its sync marker. */
export function avroHeader(schema: AvroSchema, codec: string, metadata: Record<string, string> = {}): { header: Buffer; sync: Buffer } {
  const sync = randomBytes(16);
  const meta: Record<string, Buffer> = { 'avro.schema': Buffer.from(JSON.stringify(schema)), 'avro.codec': Buffer.from(codec) };
  for (const [k, v] of Object.entries(metadata)) meta[k] = Buffer.from(v);
  return { header: HEADER.toBuffer({ magic: Buffer.from('Obj\x01', 'latin1'), meta, sync }), sync };
}

/** One data block of a container file: its record count, its (compressed) bytes' length, the bytes and the sync marker. */
export function avroBlock(count: number, bytes: Uint8Array, sync: Buffer): Buffer {
  return Buffer.concat([PLAIN_LONG.toBuffer(count), PLAIN_LONG.toBuffer(bytes.length), bytes, sync]);
}

/** The records of an Avro container file (read with its own schema; longs as bigints) and its header metadata. */
export async function readAvroFile(bytes: Uint8Array): Promise<{ records: Record<string, unknown>[]; metadata: Record<string, string> }> {
  const decoder = new avro.streams.BlockDecoder({
    parseHook: (schema: avro.Schema) => avroType(schema as AvroSchema),
  });
  const records: Record<string, unknown>[] = [];
  let metadata: Record<string, string> = {};
  return new Promise((resolve, reject) => {
    decoder.on('metadata', (_type: unknown, _codec: unknown, header: { meta: Record<string, Buffer> }) => {
      metadata = Object.fromEntries(Object.entries(header.meta).map(([k, v]) => [k, v.toString()]));
    });
    decoder.on('data', (r: Record<string, unknown>) => records.push(r));
    decoder.on('end', () => resolve({ records, metadata }));
    decoder.on('error', reject);
    Readable.from([Buffer.from(bytes)]).pipe(decoder);
  });
}
