import { Readable } from 'node:stream';
import avro from 'avsc';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  bytesUnscaled,
  CompressionKind,
  dateText,
  decimalText,
  decompressChunk,
  type FileSystemAdapter,
  orcColumns,
  type OrcTail,
  type OrcType,
  orcStripeRows,
  readOrcTail,
  timestampText,
} from '@tideway/connector-file-common';
import { type AvroSchema, avroType } from './avro.js';
import type { IcebergFileIO } from './file-io.js';
import type { IcebergType } from './schema.js';
import { decimalScale } from './values.js';

/**
 * The Iceberg source's reading of ORC and Avro data and delete files: columns found by Iceberg's
 * field ids (ORC: the iceberg.id type attribute; Avro: field-id, element-id, key-id, value-id),
 * renamed columns read, columns a file predates read as null, int/float/decimal promotions read
 * widened, values made into the engine values the Parquet path gives. ORC stripes are read by
 * Tideway's ORC reader (file-common), Avro blocks by avsc.
 */

/** A batch of rows read from a file: values per field, the file position of the first row, and the rows it stands for. */
export interface FileBatch {
  readonly rows: unknown[][];
  readonly start: number;
  readonly consumed: number;
}

/** A field to read: its id and its type in the schema read. */
export interface FieldToRead {
  readonly id: number;
  readonly type: IcebergType;
}

const nil = (v: unknown): boolean => v === null || v === undefined;

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** A uuid's text of its 16 bytes. */
const uuidText = (v: unknown): string =>
  typeof v === 'string' ? v : hex(v as Uint8Array).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/** A zoned timestamp text as the engine's timestamp_tz of UTC ('+00:00'). */
const utcText = (text: string): string => `${text.replace(/(Z|[+-]\d{2}:\d{2})$/, '')}+00:00`;

/** Conversions shared by both formats: a primitive's value as the file's reader gave it into the engine value of Iceberg type `t`. */
function primitive(t: string): (v: unknown) => unknown {
  if (t === 'long') return (v) => (nil(v) ? null : BigInt(v as number | bigint));
  if (t === 'int' || t === 'float' || t === 'double') return (v) => (nil(v) ? null : Number(v));
  if (t === 'uuid') return (v) => (nil(v) ? null : uuidText(v));
  if (t === 'binary' || t.startsWith('fixed')) return (v) => (nil(v) ? null : Buffer.from(v as Uint8Array));
  return (v) => (v === undefined ? null : v);
}

// ---- ORC ----

/** The iceberg.id attribute of an ORC type (undefined: none). */
function orcId(t: OrcType | undefined): number | undefined {
  const a = t?.attributes.find((x) => x.key === 'iceberg.id');
  return a ? Number(a.value) : undefined;
}

/** The converter of a value Tideway's ORC reader gave for ORC type `at` into the engine value of Iceberg type `t`. */
function orcConverter(types: readonly OrcType[], at: number, t: IcebergType): (v: unknown) => unknown {
  const node = types[at];
  if (typeof t !== 'string') {
    switch (t.type) {
      case 'list': {
        const el = orcConverter(types, node.subtypes[0], t.element);
        return (v) => (nil(v) ? null : (v as unknown[]).map(el));
      }
      case 'map': {
        const key = orcConverter(types, node.subtypes[0], t.key);
        const value = orcConverter(types, node.subtypes[1], t.value);
        return (v) => (nil(v) ? null : new Map([...(v as Map<unknown, unknown>)].map(([k, x]) => [key(k), value(x)])));
      }
      case 'struct': {
        const at2 = t.fields.map((f) => {
          const i = node.subtypes.findIndex((s) => orcId(types[s]) === f.id);
          return { i, conv: i < 0 ? () => null : orcConverter(types, node.subtypes[i], f.type) };
        });
        return (v) => (nil(v) ? null : at2.map(({ i, conv }) => (i < 0 ? null : conv((v as unknown[])[i]))));
      }
    }
  }
  if (t === 'time') return (v) => (nil(v) ? null : timestampText(BigInt(v as bigint | number)).slice(11));
  if (t === 'timestamptz') return (v) => (nil(v) ? null : utcText(v as string));
  return primitive(t);
}

/** An ORC data or delete file opened: its tail, and its stripes' row counts. */
export class OrcDataFile {
  private constructor(
    private readonly fs: FileSystemAdapter,
    readonly tail: OrcTail,
  ) {}

  static async open(io: IcebergFileIO, path: string, size: number): Promise<OrcDataFile> {
    const fs = orcFileSystem(io, path, size);
    return new OrcDataFile(fs, await readOrcTail(fs, path));
  }

  get stripes(): number {
    return this.tail.footer.stripes.length;
  }

  /** Whether the file's columns carry Iceberg field ids. */
  get hasFieldIds(): boolean {
    const root = this.tail.types[0];
    return root.subtypes.length === 0 || root.subtypes.some((s) => orcId(this.tail.types[s]) !== undefined);
  }

  /** The values of `fields` in stripes [range[0], range[1]) after `offset` rows of the range, in batches; `names` finds columns without ids by name. */
  async *batches(
    fields: readonly FieldToRead[],
    range: readonly [number, number],
    offset: number,
    batchRows: number,
    names?: readonly string[],
  ): AsyncGenerator<FileBatch> {
    const { types } = this.tail;
    const root = types[0];
    const columns = orcColumns(this.tail);
    const read: typeof columns = [];
    const at = fields.map((f, i) => {
      let k = root.subtypes.findIndex((s) => orcId(types[s]) === f.id);
      if (k < 0 && names) k = root.fieldNames.findIndex((n, j) => n === names[i] && orcId(types[root.subtypes[j]]) === undefined);
      if (k < 0) return { column: -1, convert: (): null => null };
      read.push(columns[k]);
      return { column: read.length - 1, convert: orcConverter(types, root.subtypes[k], f.type) };
    });
    const stripes = this.tail.footer.stripes;
    let start = 0;
    for (let s = 0; s < range[0]; s++) start += Number(stripes[s].numberOfRows ?? 0n);
    let skip = offset;
    for (let s = range[0]; s < range[1]; s++) {
      const n = Number(stripes[s].numberOfRows ?? 0n);
      if (skip >= n) {
        skip -= n;
        start += n;
        continue;
      }
      let position = start + skip;
      if (read.length === 0) {
        // no column of the file is read (every field predates it): rows of nulls
        for (let r = skip; r < n; r += batchRows) {
          const m = Math.min(batchRows, n - r);
          yield { rows: Array.from({ length: m }, () => at.map(() => null)), start: position, consumed: m };
          position += m;
        }
      } else {
        for await (const batch of orcStripeRows(this.fs, this.tail.path, s, skip, read, batchRows, this.tail)) {
          const rows = batch.map((raw) => at.map((a) => (a.column < 0 ? null : a.convert(raw[a.column]))));
          yield { rows, start: position, consumed: batch.length };
          position += batch.length;
        }
      }
      skip = 0;
      start += n;
    }
  }
}

/** The FileSystemAdapter of one file of a FileIO, for Tideway's ORC reader (which lists the file for its size and reads ranges). */
function orcFileSystem(io: IcebergFileIO, path: string, size: number): FileSystemAdapter {
  const unused = (what: string) => () => Promise.reject(new Error(`the Iceberg ORC reader does not ${what}`));
  return {
    description: 'Iceberg FileIO',
    listFiles: async () => [{ path, size }],
    readRange: (p: string, from: number, to: number) => io.readRange(p, from, to),
    create: unused('create files'),
    rename: unused('rename files'),
    exists: async () => true,
    delete: unused('delete files'),
    mkdirs: unused('make folders'),
    children: async () => [],
    deleteIfEmpty: unused('delete folders'),
  } as unknown as FileSystemAdapter;
}

/** The compressed sizes of an ORC file's stripes (scan planning's splits, when the manifest has no split offsets). */
export async function orcStripeBytes(io: IcebergFileIO, path: string, size: number): Promise<number[]> {
  const file = await OrcDataFile.open(io, path, size);
  return file.tail.footer.stripes.map((s) => Number(s.indexLength ?? 0n) + Number(s.dataLength ?? 0n) + Number(s.footerLength ?? 0n));
}

// ---- Avro ----

type Schema = Record<string, unknown>;

/** The schema of a union's non-null branch (Iceberg's optional fields), named types resolved. */
function branch(s: unknown, named: Map<string, Schema>): Schema | string {
  let x = s;
  if (Array.isArray(x)) x = x.find((b) => b !== 'null') ?? 'null';
  if (typeof x === 'string') return named.get(x) ?? x;
  return x as Schema;
}

/** Every named type of a schema, by name (and full name). */
function collectNamed(s: unknown, out: Map<string, Schema>): void {
  if (Array.isArray(s)) {
    for (const b of s) collectNamed(b, out);
    return;
  }
  if (typeof s !== 'object' || s === null) return;
  const o = s as Schema;
  if (typeof o.name === 'string' && (o.type === 'record' || o.type === 'fixed' || o.type === 'enum')) {
    out.set(o.name, o);
    if (typeof o.namespace === 'string') out.set(`${o.namespace}.${o.name}`, o);
  }
  if (o.type === 'record') for (const f of o.fields as Schema[]) collectNamed(f.type, out);
  if (o.type === 'array') collectNamed(o.items, out);
  if (o.type === 'map') collectNamed(o.values, out);
}

/** The converter of an avsc value of Avro schema `s` into the engine value of Iceberg type `t`. */
function avroConverter(s: unknown, t: IcebergType, named: Map<string, Schema>): (v: unknown) => unknown {
  const node = branch(s, named);
  if (typeof t !== 'string') {
    const o = node as Schema;
    switch (t.type) {
      case 'list': {
        const el = avroConverter(o.items, t.element, named);
        return (v) => (nil(v) ? null : (v as unknown[]).map(el));
      }
      case 'map': {
        if (o.type === 'map') {
          const key = primitive(typeof t.key === 'string' ? t.key : 'string');
          const value = avroConverter(o.values, t.value, named);
          return (v) => (nil(v) ? null : new Map(Object.entries(v as object).map(([k, x]) => [key(k), value(x)])));
        }
        const kv = branch(o.items, named) as Schema;
        const [kf, vf] = kv.fields as Schema[];
        const key = avroConverter(kf.type, t.key, named);
        const value = avroConverter(vf.type, t.value, named);
        const kn = kf.name as string;
        const vn = vf.name as string;
        return (v) => (nil(v) ? null : new Map((v as Record<string, unknown>[]).map((e) => [key(e[kn]), value(e[vn])])));
      }
      case 'struct': {
        const fields = (o.fields ?? []) as Schema[];
        const at = t.fields.map((f) => {
          const af = fields.find((x) => Number(x['field-id']) === f.id);
          return af ? { name: af.name as string, conv: avroConverter(af.type, f.type, named) } : undefined;
        });
        return (v) => (nil(v) ? null : at.map((a) => (a ? a.conv((v as Record<string, unknown>)[a.name]) : null)));
      }
    }
  }
  const logical = typeof node === 'object' ? node.logicalType : undefined;
  switch (t) {
    case 'date':
      return (v) => (nil(v) ? null : dateText(Number(v)));
    case 'time':
      return (v) => (nil(v) ? null : timestampText(timeUnits(v, logical)).slice(11));
    case 'timestamp':
      return (v) => (nil(v) ? null : timestampText(timeUnits(v, logical)));
    case 'timestamptz':
      return (v) => (nil(v) ? null : `${timestampText(timeUnits(v, logical))}+00:00`);
    default:
      if (t.startsWith('decimal')) {
        const scale = typeof node === 'object' && node.scale !== undefined ? Number(node.scale) : decimalScale(t);
        return (v) => (nil(v) ? null : decimalText(bytesUnscaled(v as Uint8Array), scale));
      }
      return primitive(t);
  }
}

/** Microseconds of a time or timestamp value (millis logical types scaled). */
function timeUnits(v: unknown, logical: unknown): bigint {
  const n = BigInt(v as number | bigint);
  return logical === 'time-millis' || logical === 'timestamp-millis' ? n * 1000n : n;
}

/** Avro's codecs of a container file's blocks (avro.codec), decompressed with file-common's decoders. */
const AVRO_DECODERS: Record<string, (buf: Buffer, cb: (err: Error | null, out?: Buffer) => void) => void> = {
  null: (buf, cb) => cb(null, buf),
  deflate: (buf, cb) => decode(() => decompressChunk(CompressionKind.ZLIB, buf), cb),
  snappy: (buf, cb) => decode(() => decompressChunk(CompressionKind.SNAPPY, buf.subarray(0, buf.length - 4)), cb), // the CRC-32 after the block
  zstandard: (buf, cb) => decode(() => decompressChunk(CompressionKind.ZSTD, buf), cb),
};

function decode(f: () => Uint8Array, cb: (err: Error | null, out?: Buffer) => void): void {
  let out: Uint8Array;
  try {
    out = f();
  } catch (err) {
    cb(err as Error);
    return;
  }
  cb(null, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
}

/** Bytes of an Avro file read at a time. */
const AVRO_READ_BYTES = 4 * 1024 * 1024;

/**
 * The values of `fields` of an Avro data or delete file after `offset` rows, in batches; `names`
 * finds fields without ids by name. An Avro file is read whole, as one split.
 */
export async function* avroBatches(
  io: IcebergFileIO,
  path: string,
  size: number,
  fields: readonly FieldToRead[],
  offset: number,
  batchRows: number,
  names?: readonly string[],
): AsyncGenerator<FileBatch> {
  const decoder = new avro.streams.BlockDecoder({
    parseHook: (schema: avro.Schema) => avroType(schema as AvroSchema),
    codecs: AVRO_DECODERS,
  });
  let writerSchema: Schema | undefined;
  decoder.on('metadata', (_type: unknown, _codec: unknown, header: { meta: Record<string, Buffer> }) => {
    writerSchema = JSON.parse(header.meta['avro.schema'].toString()) as Schema;
  });
  const source = Readable.from(
    (async function* () {
      for (let at = 0; at < size; at += AVRO_READ_BYTES)
        yield Buffer.from(await io.readRange(path, at, Math.min(size, at + AVRO_READ_BYTES)));
    })(),
  );
  source.on('error', (err) => decoder.destroy(err));
  source.pipe(decoder);
  let at: { name: string; conv: (v: unknown) => unknown }[] | undefined;
  let position = 0;
  let rows: unknown[][] = [];
  let start = 0;
  let consumed = 0;
  try {
    for await (const record of decoder as AsyncIterable<Record<string, unknown>>) {
      if (!at) {
        if (writerSchema?.type !== 'record') throw new Error(`Avro file ${path} does not hold records.`);
        const named = new Map<string, Schema>();
        collectNamed(writerSchema, named);
        const own = writerSchema.fields as Schema[];
        if (!names && own.length > 0 && own.every((x) => x['field-id'] === undefined)) {
          throw new ConfigError(
            ErrorCode.UNSUPPORTED_TYPE,
            `Iceberg data file ${path} has no Avro field ids (a file added to the table from elsewhere): Tideway's Iceberg source maps columns by field id and does not read name mappings.`,
          );
        }
        at = fields.map((f, i) => {
          let af = own.find((x) => Number(x['field-id']) === f.id);
          if (!af && names) af = own.find((x) => x['field-id'] === undefined && x.name === names[i]);
          return af ? { name: af.name as string, conv: avroConverter(af.type, f.type, named) } : { name: '', conv: () => null };
        });
      }
      if (position++ < offset) continue;
      if (rows.length === 0) start = position - 1;
      rows.push(at.map((a) => (a.name === '' ? null : a.conv(record[a.name]))));
      consumed++;
      if (rows.length >= batchRows) {
        yield { rows, start, consumed };
        rows = [];
        consumed = 0;
      }
    }
  } finally {
    source.destroy();
  }
  if (rows.length) yield { rows, start, consumed };
}
