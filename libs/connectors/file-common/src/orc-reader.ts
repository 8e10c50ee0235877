import { isAscii } from 'node:buffer';
import { endianness } from 'node:os';
import { type Column, type DataType, Types } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { FileSystemAdapter } from './file-system.js';
import {
  ColumnEncoding_Kind,
  type ColumnEncoding,
  CompressionKind,
  Footer,
  PostScript,
  StripeFooter,
  Stream_Kind,
  type Type,
  Type_Kind,
} from './gen/orc_file.js';
import { CODEC_NAMES, decompress, isReadCodec } from './orc-compression.js';
import { ByteSource, type Ints, OrcCorruptError, type OrcInt, readBooleans, readByteRle, readIntRleV1, readIntRleV2 } from './orc-rle.js';
import { dateText, decimalText, timestampText } from './parquet-values.js';
import { decompressOrcOnThread } from './row-group-thread.js';

/**
 * Tideway's ORC reader (docs/decisions/0011-orc.md): the file tail (postscript, footer) through
 * the protobuf messages of proto/orc_file.proto, then one stripe at a time, reading only the
 * streams of the columns asked for. A stripe's streams are decoded whole into compact arrays
 * (numbers, bytes and offsets); JS values are made a batch of rows at a time.
 *
 * | ORC                         | Tideway                      |
 * |-----------------------------|------------------------------|
 * | boolean                     | boolean                      |
 * | tinyint, smallint, int      | tinyint, smallint, int       |
 * | bigint                      | bigint                       |
 * | float, double               | float, double                |
 * | string, varchar, char       | string                       |
 * | binary                      | bytes                        |
 * | decimal(p,s)                | decimal(p,s)                 |
 * | date                        | date                         |
 * | timestamp                   | timestamp (the writer's wall clock, its time zone applied) |
 * | timestamp with local time zone | timestamp_tz (UTC)        |
 * | array, map, struct          | array, map, row              |
 * | uniontype                   | refused                      |
 */

/** A file's tail, read once per file. */
export interface OrcTail {
  readonly path: string;
  readonly size: number;
  readonly codec: CompressionKind;
  readonly footer: Footer;
  readonly types: readonly Type[];
}

const TAIL_GUESS = 16 * 1024;

function corrupt(path: string, what: string): TidewayError {
  return new TidewayError(ErrorCode.VALUE_CONVERSION, `${path} is not a readable ORC file: ${what}.`);
}

/** Reads and checks the postscript and footer of an ORC file. */
export async function readOrcTail(fs: FileSystemAdapter, path: string): Promise<OrcTail> {
  const entry = (await fs.listFiles(path))[0];
  if (!entry) throw new Error(`${path} does not exist`);
  const size = entry.size;
  if (size < 4) throw corrupt(path, `it has ${size} bytes, fewer than an ORC file's smallest`);
  const tailStart = Math.max(0, size - TAIL_GUESS);
  let tail = await fs.readRange(path, tailStart, size);
  const psLen = tail[tail.length - 1];
  if (psLen === 0 || psLen + 1 > size)
    throw corrupt(path, `its last byte gives a postscript of ${psLen} bytes (the file is truncated or not ORC)`);
  let ps: PostScript;
  try {
    ps = PostScript.decode(tail.subarray(tail.length - 1 - psLen, tail.length - 1));
  } catch (err) {
    throw corrupt(path, `its postscript does not decode (${(err as Error).message}; the file is truncated or not ORC)`);
  }
  if (ps.magic !== 'ORC') throw corrupt(path, `its postscript has no ORC magic (the file is truncated or not ORC)`);
  const codec = ps.compression ?? 0;
  if (!isReadCodec(codec))
    throw corrupt(path, `its codec ${CODEC_NAMES[codec] ?? `#${codec}`} is not one Tideway reads (none, zlib, snappy, lz4, zstd)`);
  const footerLen = Number(ps.footerLength ?? 0n);
  const footerEnd = size - 1 - psLen;
  const footerStart = footerEnd - footerLen;
  if (footerLen === 0 || footerStart < 3)
    throw corrupt(path, `its postscript gives a footer of ${footerLen} bytes in a file of ${size} (truncated?)`);
  if (footerStart < tailStart) {
    tail = await fs.readRange(path, footerStart, size);
  }
  const base = size - tail.length;
  let footer: Footer;
  try {
    footer = Footer.decode(decompress(codec, tail.subarray(footerStart - base, footerEnd - base)));
  } catch (err) {
    throw corrupt(path, `its footer does not decode (${(err as Error).message})`);
  }
  const types = footer.types;
  if (types.length === 0 || types[0].kind !== Type_Kind.STRUCT) throw corrupt(path, 'its root type is not a struct');
  for (const [i, s] of footer.stripes.entries()) {
    const end = Number(s.offset ?? 0n) + Number(s.indexLength ?? 0n) + Number(s.dataLength ?? 0n) + Number(s.footerLength ?? 0n);
    if (end > footerStart)
      throw corrupt(path, `stripe ${i} ends at byte ${end}, past the footer at ${footerStart} (the file is truncated)`);
  }
  return { path, size, codec, footer, types };
}

/** The Tideway type of ORC type `id`; subtypes must come after their parent (no cycles in a corrupt file). */
function dataTypeOf(types: readonly Type[], id: number, path: string, name: string): DataType {
  const t = types[id];
  const child = (k: number): number => {
    const c = t.subtypes[k];
    if (c === undefined || c <= id || c >= types.length) throw corrupt(path, `type ${id} (${name}) has a bad subtype`);
    return c;
  };
  switch (t.kind) {
    case Type_Kind.BOOLEAN:
      return Types.BOOLEAN;
    case Type_Kind.BYTE:
      return Types.TINYINT;
    case Type_Kind.SHORT:
      return Types.SMALLINT;
    case Type_Kind.INT:
      return Types.INT;
    case Type_Kind.LONG:
      return Types.BIGINT;
    case Type_Kind.FLOAT:
      return Types.FLOAT;
    case Type_Kind.DOUBLE:
      return Types.DOUBLE;
    case Type_Kind.STRING:
    case Type_Kind.VARCHAR:
    case Type_Kind.CHAR:
      return Types.STRING;
    case Type_Kind.BINARY:
      return Types.BYTES;
    case Type_Kind.TIMESTAMP:
      return Types.TIMESTAMP;
    case Type_Kind.TIMESTAMP_INSTANT:
      return Types.TIMESTAMP_TZ;
    case Type_Kind.DATE:
      return Types.DATE;
    case Type_Kind.DECIMAL:
      return Types.decimal(t.precision ?? 38, t.scale ?? 0);
    case Type_Kind.LIST:
      return Types.array(dataTypeOf(types, child(0), path, `${name}.element`));
    case Type_Kind.MAP:
      return Types.map(dataTypeOf(types, child(0), path, `${name}.key`), dataTypeOf(types, child(1), path, `${name}.value`));
    case Type_Kind.STRUCT:
      return Types.row(
        t.subtypes.map((_, k) => {
          const fieldName = t.fieldNames[k] ?? `_col${k}`;
          return { name: fieldName, type: dataTypeOf(types, child(k), path, `${name}.${fieldName}`) };
        }),
      );
    case Type_Kind.UNION:
      throw new TidewayError(
        ErrorCode.UNSUPPORTED_TYPE,
        `${path}: column ${name} is an ORC uniontype, which no SeaTunnel type holds (SeaTunnel's ORC reader refuses it too).`,
      );
    default:
      throw new TidewayError(
        ErrorCode.UNSUPPORTED_TYPE,
        `${path}: column ${name} has ORC type kind ${String(t.kind)}, which Tideway does not know.`,
      );
  }
}

/** The table columns of an ORC file (its root struct's fields). */
export function orcColumns(tail: OrcTail): Column[] {
  const root = tail.types[0];
  return root.subtypes.map((id, k) => {
    const name = root.fieldNames[k] ?? `_col${k}`;
    if (id <= 0 || id >= tail.types.length) throw corrupt(tail.path, `the root struct's field ${name} has a bad type id ${id}`);
    return { name, type: dataTypeOf(tail.types, id, tail.path, name), nullable: true };
  });
}

// ---- decoding one stripe ----

/**
 * A column of a stripe, decoded whole into compact arrays (typed where the values allow) with its
 * present bits; `read(n, into)` makes its next n values into into[0, n).
 */
abstract class ColumnNode {
  private row = 0;
  /** The next non-null value. */
  protected k = 0;

  constructor(
    private readonly present: Uint8Array | undefined,
    private readonly rows: number,
    private readonly count: number,
  ) {}

  read(n: number, into: unknown[]): void {
    const row = this.row;
    if (row + n > this.rows) throw new OrcCorruptError(`more values are asked than the stream's ${this.rows}`);
    const p = this.present;
    let m = n;
    if (p !== undefined) {
      m = 0;
      for (let i = row; i < row + n; i++) m += p[i];
    }
    if (this.k + m > this.count) throw new OrcCorruptError(`more values are asked than the stream's ${this.count}`);
    // the non-null values first, then moved to their rows (from the last, so none is overwritten before it moves)
    this.values(m, into);
    this.k += m;
    if (m < n) for (let i = n - 1, j = m; i >= 0; i--) into[i] = p![row + i] === 1 ? into[--j] : null;
    this.row = row + n;
  }

  /** Makes the non-null values k, k + 1, ... k + m - 1 into into[0, m): a loop of each type's own. */
  protected abstract values(m: number, into: unknown[]): void;
}

/** A node whose non-null values are made from one array. */
abstract class DataNode<T> extends ColumnNode {
  constructor(
    present: Uint8Array | undefined,
    rows: number,
    count: number,
    protected readonly data: T,
  ) {
    super(present, rows, count);
  }
}

class BooleanNode extends DataNode<Uint8Array> {
  protected values(m: number, into: unknown[]): void {
    const { data: bits, k } = this;
    for (let i = 0; i < m; i++) into[i] = bits[k + i] === 1;
  }
}

class ByteNode extends DataNode<Uint8Array> {
  protected values(m: number, into: unknown[]): void {
    const { data: bytes, k } = this;
    for (let i = 0; i < m; i++) into[i] = (bytes[k + i] << 24) >> 24;
  }
}

class IntNode extends DataNode<Ints> {
  protected values(m: number, into: unknown[]): void {
    const { data: ints, k } = this;
    for (let i = 0; i < m; i++) into[i] = Number(ints[k + i]);
  }
}

class LongNode extends DataNode<Ints> {
  protected values(m: number, into: unknown[]): void {
    const { data: ints, k } = this;
    for (let i = 0; i < m; i++) into[i] = BigInt(ints[k + i]);
  }
}

/** 10^0 to 10^9. */
const POW10 = Array.from({ length: 10 }, (_, i) => 10 ** i);

/** Dates' texts already made, by day (a column's dates repeat). */
const dateTexts = new Map<number, string>();

class DateNode extends DataNode<Ints> {
  protected values(m: number, into: unknown[]): void {
    const { data: ints, k } = this;
    for (let i = 0; i < m; i++) {
      const day = Number(ints[k + i]);
      let text = dateTexts.get(day);
      if (text === undefined) {
        if (dateTexts.size >= 100_000) dateTexts.clear();
        text = dateText(day);
        dateTexts.set(day, text);
      }
      into[i] = text;
    }
  }
}

class FloatNode extends DataNode<Float32Array | Float64Array> {
  protected values(m: number, into: unknown[]): void {
    const { data: floats, k } = this;
    for (let i = 0; i < m; i++) into[i] = floats[k + i];
  }
}

/** A dictionary's entries (checked: every index is one of them). */
class DictionaryNode extends ColumnNode {
  constructor(
    present: Uint8Array | undefined,
    rows: number,
    count: number,
    private readonly entries: readonly (string | Uint8Array)[],
    private readonly ids: Ints,
  ) {
    super(present, rows, count);
  }
  protected values(m: number, into: unknown[]): void {
    const { entries, ids, k } = this;
    for (let i = 0; i < m; i++) into[i] = entries[ids[k + i] as number];
  }
}

/** Node's Buffer#utf8Slice and latin1Slice (what toString('utf8') and toString('latin1') call, without their argument handling). */
type SliceBuffer = Buffer & { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

/** Direct strings (bytes for binary): value i is the bytes from starts[i] to starts[i + 1]. */
class DirectNode extends ColumnNode {
  constructor(
    present: Uint8Array | undefined,
    rows: number,
    count: number,
    private readonly buf: SliceBuffer,
    private readonly starts: Float64Array,
    private readonly binary: boolean,
  ) {
    super(present, rows, count);
  }
  protected values(m: number, into: unknown[]): void {
    const { buf, starts, k } = this;
    if (this.binary) {
      for (let i = 0; i < m; i++) into[i] = Buffer.from(buf.subarray(starts[k + i], starts[k + i + 1]));
      return;
    }
    const from = starts[k];
    const to = starts[k + m];
    if (m > 1 && isAscii(buf.subarray(from, to))) {
      // ASCII: a character a byte, so the batch's values are one string's substrings (no native call a value)
      const all = buf.latin1Slice(from, to);
      for (let i = 0; i < m; i++) into[i] = all.substring(starts[k + i] - from, starts[k + i + 1] - from);
    } else for (let i = 0; i < m; i++) into[i] = buf.utf8Slice(starts[k + i], starts[k + i + 1]);
  }
}

class DecimalNode extends ColumnNode {
  constructor(
    present: Uint8Array | undefined,
    rows: number,
    count: number,
    private readonly unscaled: Ints,
    private readonly scales: Ints,
    private readonly scale: number,
  ) {
    super(present, rows, count);
  }
  protected values(m: number, into: unknown[]): void {
    const { unscaled, scales, scale, k } = this;
    texts.start(m);
    for (let i = 0; i < m; i++) {
      const raw = unscaled[k + i];
      const sc = Number(scales[k + i]);
      if (typeof raw === 'number' && sc === scale) {
        texts.decimal(raw, scale); // the common case, without a BigInt
        continue;
      }
      let v = BigInt(raw);
      if (sc < scale) v *= 10n ** BigInt(scale - sc);
      else if (sc > scale) v /= 10n ** BigInt(sc - scale);
      texts.text(decimalText(v, scale));
    }
    texts.strings(m, into);
  }
}

class TimestampNode extends ColumnNode {
  constructor(
    present: Uint8Array | undefined,
    rows: number,
    count: number,
    private readonly secs: Ints,
    private readonly nanos: Ints,
    private readonly instant: boolean,
    private readonly epoch: number,
    private readonly offset: ((utc: number) => number) | undefined,
  ) {
    super(present, rows, count);
  }
  protected values(m: number, into: unknown[]): void {
    const { secs, nanos, instant, epoch, offset, k } = this;
    texts.start(m);
    for (let i = 0; i < m; i++) {
      const raw = nanos[k + i];
      let zeros: number;
      let ns: number;
      if (typeof raw === 'number') {
        zeros = raw % 8;
        ns = (raw - zeros) / 8;
      } else {
        // Arrow's writer gives instants before 1970 negative nanoseconds, stored as 64-bit two's complement
        const signed = BigInt.asIntN(64, raw);
        zeros = Number(signed & 7n);
        ns = Number(signed >> 3n);
      }
      if (zeros !== 0) ns *= POW10[zeros + 1];
      if (ns > 999_999_999 || ns < -999_999_999) throw new OrcCorruptError(`a timestamp has ${ns} nanoseconds`);
      let utc = Number(secs[k + i]) + epoch;
      // ORC's writers store seconds truncated toward zero for instants before 1970
      if (utc < 0 && ns > 999_999) utc -= 1;
      if (ns < 0) {
        utc -= 1;
        ns += 1_000_000_000;
      }
      texts.timestamp(offset ? utc + offset(utc) : utc, ns, instant);
    }
    texts.strings(m, into);
  }
}

class StructNode extends ColumnNode {
  constructor(
    present: Uint8Array | undefined,
    rows: number,
    count: number,
    private readonly children: readonly ColumnNode[],
  ) {
    super(present, rows, count);
  }
  protected values(m: number, into: unknown[]): void {
    const cols = this.children.map((c) => {
      const vals = new Array<unknown>(m);
      c.read(m, vals);
      return vals;
    });
    for (let i = 0; i < m; i++) into[i] = cols.map((c) => c[i]);
  }
}

/** Lists, and maps (with `vals`): each value's entries are the next lengths[k] of the children's. */
class ListNode extends ColumnNode {
  constructor(
    present: Uint8Array | undefined,
    rows: number,
    count: number,
    private readonly lengths: Ints,
    private readonly keys: ColumnNode,
    private readonly vals: ColumnNode | undefined,
  ) {
    super(present, rows, count);
  }
  protected values(m: number, into: unknown[]): void {
    const { lengths, k } = this;
    let sum = 0;
    for (let i = 0; i < m; i++) sum += Number(lengths[k + i]);
    const ks = new Array<unknown>(sum);
    this.keys.read(sum, ks);
    const vals = this.vals;
    const vs = vals && new Array<unknown>(sum);
    if (vals && vs) vals.read(sum, vs);
    let p = 0;
    for (let i = 0; i < m; i++) {
      const len = Number(lengths[k + i]);
      if (vs) {
        const map = new Map<unknown, unknown>();
        for (let j = 0; j < len; j++) map.set(ks[p + j], vs[p + j]);
        into[i] = map;
      } else into[i] = ks.slice(p, p + len);
      p += len;
    }
  }
}

const ORC_EPOCH = 1_420_070_400; // 2015-01-01T00:00:00Z
const LITTLE_ENDIAN = endianness() === 'LE';

/** Seconds a zone is ahead of UTC at an instant, through Intl, cached per quarter hour. */
function zoneOffsets(zone: string): (utc: number) => number {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
  const cache = new Map<number, number>();
  return (utc) => {
    const key = Math.floor(utc / 900);
    let off = cache.get(key);
    if (off === undefined) {
      const t = key * 900;
      const p = Object.fromEntries(fmt.formatToParts(new Date(t * 1000)).map((x) => [x.type, x.value]));
      const year = p.era === 'BC' || p.era === 'B' ? 1 - Number(p.year) : Number(p.year);
      const d = new Date(0);
      d.setUTCFullYear(year, Number(p.month) - 1, Number(p.day));
      d.setUTCHours(Number(p.hour), Number(p.minute), Number(p.second), 0);
      off = Math.round(d.getTime() / 1000) - t;
      cache.set(key, off);
    }
    return off;
  };
}

const UTC_ZONES = new Set([
  '',
  'GMT',
  'UTC',
  'Etc/UTC',
  'Etc/GMT',
  'Z',
  'Zulu',
  'Etc/Universal',
  'Universal',
  'Etc/Zulu',
  'GMT0',
  'Etc/GMT0',
]);

/** The streams of one stripe's columns, decompressed, by column and kind. */
type Streams = Map<string, Uint8Array>;

class StripeDecoder {
  /** Where in the file tree decoding is, for errors. */
  column = '';

  constructor(
    private readonly tail: OrcTail,
    private readonly streams: Streams,
    private readonly encodings: readonly ColumnEncoding[],
    private readonly writerZone: string,
  ) {}

  private stream(id: number, kind: Stream_Kind, what: string): ByteSource {
    return new ByteSource(this.streams.get(`${id}:${kind}`) ?? new Uint8Array(0), what);
  }

  private v2(id: number): boolean {
    const k = this.encodings[id]?.kind ?? ColumnEncoding_Kind.DIRECT;
    return k === ColumnEncoding_Kind.DIRECT_V2 || k === ColumnEncoding_Kind.DICTIONARY_V2;
  }

  private ints(id: number, kind: Stream_Kind, what: string, count: number, signed: boolean): Ints {
    const s = this.stream(id, kind, what);
    return this.v2(id) ? readIntRleV2(s, count, signed) : readIntRleV1(s, count, signed);
  }

  /** A node of `rows` values of type `id` (named `name`), with its present stream. */
  node(id: number, rows: number, name: string): ColumnNode {
    this.column = name;
    const t = this.tail.types[id];
    const hasPresent = this.streams.has(`${id}:${Stream_Kind.PRESENT}`);
    const present = hasPresent ? readBooleans(this.stream(id, Stream_Kind.PRESENT, `${name} PRESENT`), rows) : undefined;
    let k = rows;
    if (present) {
      k = 0;
      for (let i = 0; i < rows; i++) k += present[i];
    }
    const node = this.values(id, t, present, rows, k, name);
    this.column = name;
    return node;
  }

  /** The node of a column of `rows` rows, `k` of them not null. */
  private values(id: number, t: Type, present: Uint8Array | undefined, rows: number, k: number, name: string): ColumnNode {
    const data = `${name} DATA`;
    switch (t.kind) {
      case Type_Kind.BOOLEAN:
        return new BooleanNode(present, rows, k, readBooleans(this.stream(id, Stream_Kind.DATA, data), k));
      case Type_Kind.BYTE:
        return new ByteNode(present, rows, k, readByteRle(this.stream(id, Stream_Kind.DATA, data), k));
      case Type_Kind.SHORT:
      case Type_Kind.INT:
        return new IntNode(present, rows, k, this.ints(id, Stream_Kind.DATA, data, k, true));
      case Type_Kind.LONG:
        return new LongNode(present, rows, k, this.ints(id, Stream_Kind.DATA, data, k, true));
      case Type_Kind.DATE:
        return new DateNode(present, rows, k, this.ints(id, Stream_Kind.DATA, data, k, true));
      case Type_Kind.FLOAT:
      case Type_Kind.DOUBLE: {
        const width = t.kind === Type_Kind.FLOAT ? 4 : 8;
        const bytes = this.stream(id, Stream_Kind.DATA, data).bytes(k * width);
        // copied to an aligned array (IEEE 754, little-endian: read through a DataView on a big-endian machine)
        const floats = width === 4 ? new Float32Array(k) : new Float64Array(k);
        if (LITTLE_ENDIAN) new Uint8Array(floats.buffer).set(bytes);
        else {
          const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          for (let i = 0; i < k; i++) floats[i] = width === 4 ? view.getFloat32(i * 4, true) : view.getFloat64(i * 8, true);
        }
        return new FloatNode(present, rows, k, floats);
      }
      case Type_Kind.STRING:
      case Type_Kind.VARCHAR:
      case Type_Kind.CHAR:
      case Type_Kind.BINARY: {
        const binary = t.kind === Type_Kind.BINARY;
        const enc = this.encodings[id]?.kind ?? ColumnEncoding_Kind.DIRECT;
        if (enc === ColumnEncoding_Kind.DICTIONARY || enc === ColumnEncoding_Kind.DICTIONARY_V2) {
          const size = this.encodings[id]?.dictionarySize ?? 0;
          const [buf, starts] = this.bytesAndStarts(id, Stream_Kind.DICTIONARY_DATA, size, name);
          const entries = new Array<string | Uint8Array>(size);
          for (let e = 0; e < size; e++)
            entries[e] = binary ? Buffer.from(buf.subarray(starts[e], starts[e + 1])) : buf.utf8Slice(starts[e], starts[e + 1]);
          const ids = this.ints(id, Stream_Kind.DATA, data, k, false);
          for (let i = 0; i < k; i++) {
            const j = ids[i];
            if (typeof j !== 'number' || j >= size)
              throw new OrcCorruptError(`dictionary index ${j} is past the dictionary's ${size} entries`);
          }
          return new DictionaryNode(present, rows, k, entries, ids);
        }
        const [buf, starts] = this.bytesAndStarts(id, Stream_Kind.DATA, k, name);
        return new DirectNode(present, rows, k, buf, starts, binary);
      }
      case Type_Kind.DECIMAL: {
        const s = this.stream(id, Stream_Kind.DATA, data);
        const unscaled = new Float64Array(k);
        let big: OrcInt[] | undefined;
        for (let i = 0; i < k; i++) {
          const v = s.svarint();
          if (big === undefined && typeof v === 'number') unscaled[i] = v;
          else {
            big ??= Array.from(unscaled.subarray(0, i));
            big.push(v);
          }
        }
        const scales = this.ints(id, Stream_Kind.SECONDARY, `${name} SECONDARY`, k, true);
        return new DecimalNode(present, rows, k, big ?? unscaled, scales, t.scale ?? 0);
      }
      case Type_Kind.TIMESTAMP:
      case Type_Kind.TIMESTAMP_INSTANT: {
        const secs = this.ints(id, Stream_Kind.DATA, data, k, true);
        const nanos = this.ints(id, Stream_Kind.SECONDARY, `${name} SECONDARY`, k, false);
        const instant = t.kind === Type_Kind.TIMESTAMP_INSTANT;
        const zone = instant ? '' : this.writerZone;
        let offset: ((utc: number) => number) | undefined;
        if (!UTC_ZONES.has(zone)) {
          try {
            offset = zoneOffsets(zone);
          } catch {
            throw new OrcCorruptError(`the stripe's writer time zone '${zone}' is not one this machine knows`);
          }
        }
        const epoch = offset ? ORC_EPOCH - offset(ORC_EPOCH - offset(ORC_EPOCH)) : ORC_EPOCH;
        return new TimestampNode(present, rows, k, secs, nanos, instant, epoch, offset);
      }
      case Type_Kind.STRUCT: {
        const children = t.subtypes.map((c, j) => this.node(c, k, `${name}.${t.fieldNames[j] ?? `_col${j}`}`));
        return new StructNode(present, rows, k, children);
      }
      case Type_Kind.LIST:
      case Type_Kind.MAP: {
        const lengths = this.ints(id, Stream_Kind.LENGTH, `${name} LENGTH`, k, false);
        let total = 0;
        for (let i = 0; i < k; i++) total += Number(lengths[i]);
        const isMap = t.kind === Type_Kind.MAP;
        const keys = this.node(t.subtypes[0], total, isMap ? `${name}.key` : `${name}.element`);
        const vals = isMap ? this.node(t.subtypes[1], total, `${name}.value`) : undefined;
        return new ListNode(present, rows, k, lengths, keys, vals);
      }
      default:
        throw new OrcCorruptError(`type kind ${String(t.kind)} cannot be read`);
    }
  }

  /** A bytes stream and where each of its `count` values starts (the LENGTH stream summed; starts[count] is the end). */
  private bytesAndStarts(id: number, kind: Stream_Kind, count: number, name: string): [SliceBuffer, Float64Array] {
    const lengths = this.ints(id, Stream_Kind.LENGTH, `${name} LENGTH`, count, false);
    const s = this.stream(id, kind, `${name} ${kind === Stream_Kind.DATA ? 'DATA' : 'DICTIONARY_DATA'}`);
    const buf = Buffer.from(s.buf.buffer, s.buf.byteOffset, s.buf.byteLength) as SliceBuffer;
    const starts = new Float64Array(count + 1);
    let at = 0;
    for (let i = 0; i < count; i++) {
      starts[i] = at;
      at += Number(lengths[i]);
    }
    if (at > buf.length) throw new OrcCorruptError(`the ${name} values pass the end of their stream (${buf.length} bytes)`);
    starts[count] = at;
    return [buf, starts];
  }
}

type LatinBuffer = Buffer & { latin1Slice(start: number, end: number): string; latin1Write(s: string, offset: number): number };

/** Digits of a decimal are written here from the last, then copied into the batch's texts. */
const digitBuf = Buffer.alloc(64);
const DIGITS_END = 60;

/** Writes the decimal digits of `v` (a non-negative integer below 2^53) to end before `end` in digitBuf; returns where they start. */
function digitsBefore(v: number, end: number): number {
  let at = end;
  do {
    const q = Math.floor(v / 10);
    digitBuf[--at] = 48 + v - q * 10;
    v = q;
  } while (v > 0);
  return at;
}

/** The canonical decimal text of an unscaled integer held exactly in a number, in digitBuf[at, DIGITS_END) (decimalText's, without a BigInt); -1 past 38 digits of scale. */
function decimalDigits(unscaled: number, scale: number): number {
  const neg = unscaled < 0;
  let a = neg ? -unscaled : unscaled;
  if (scale > 38) return -1;
  // the digits from the last: `scale` of the fraction, the point, then the whole part (at least a 0)
  let at = DIGITS_END;
  if (scale > 0) {
    for (let i = 0; i < scale; i++) {
      const q = Math.floor(a / 10);
      digitBuf[--at] = 48 + a - q * 10;
      a = q;
    }
    digitBuf[--at] = 46; // '.'
  }
  at = digitsBefore(a, at);
  if (neg) digitBuf[--at] = 45; // '-'
  return at;
}

/** The day whose 'YYYY-MM-DDT' is in dayPrefix. */
let textDay = Number.NaN;
const dayPrefix = Buffer.alloc(11) as LatinBuffer;

/**
 * A batch's texts (timestamps, decimals) written one after the other as bytes, then made into
 * strings by one latin1Slice and a substring each (`strings`): flat strings (substrings of one,
 * not concatenations), without a native call a value.
 */
class BatchTexts {
  private buf = Buffer.allocUnsafe(1 << 16) as LatinBuffer;
  private pos = 0;
  private ends = new Int32Array(1024);
  private n = 0;

  /** Starts a batch of `m` texts. */
  start(m: number): void {
    this.pos = 0;
    this.n = 0;
    if (this.ends.length < m) this.ends = new Int32Array(m);
  }

  private room(bytes: number): void {
    if (this.pos + bytes > this.buf.length) {
      const b = Buffer.allocUnsafe(Math.max(this.pos + bytes, this.buf.length * 2)) as LatinBuffer;
      this.buf.copy(b, 0, 0, this.pos);
      this.buf = b;
    }
  }

  /** An ASCII text made another way. */
  text(s: string): void {
    this.room(s.length);
    this.pos += this.buf.latin1Write(s, this.pos);
    this.ends[this.n++] = this.pos;
  }

  /** A decimal's canonical text (decimalText's) of an unscaled integer held exactly in a number. */
  decimal(unscaled: number, scale: number): void {
    const at = decimalDigits(unscaled, scale);
    if (at < 0) {
      this.text(decimalText(BigInt(unscaled), scale));
      return;
    }
    this.room(DIGITS_END - at);
    // a loop: Buffer#copy's checks cost more than these few bytes
    const b = this.buf;
    let p = this.pos;
    for (let i = at; i < DIGITS_END; i++) b[p++] = digitBuf[i];
    this.pos = p;
    this.ends[this.n++] = p;
  }

  /** The text of a timestamp: wall-clock seconds since 1970 and nanoseconds (0 to 999,999,999; the fraction's trailing zeros dropped), '+00:00' after an instant's. */
  timestamp(wall: number, ns: number, instant: boolean): void {
    const day = Math.floor(wall / 86400);
    if (day !== textDay) {
      const date = dateText(day);
      if (date.length !== 10) {
        // years outside 0000-9999
        this.text(`${timestampText(BigInt(wall) * 1_000_000n)}${ns === 0 ? '' : fractionText(ns)}${instant ? '+00:00' : ''}`);
        return;
      }
      dayPrefix.latin1Write(date, 0);
      dayPrefix[10] = 84; // 'T'
      textDay = day;
    }
    this.room(40);
    const b = this.buf;
    const p = this.pos;
    for (let i = 0; i < 11; i++) b[p + i] = dayPrefix[i];
    // small integers from here on: 32-bit arithmetic
    let rest = (wall - day * 86400) | 0;
    const h = (rest / 3600) | 0;
    rest -= h * 3600;
    const m = (rest / 60) | 0;
    const sec = rest - m * 60;
    b[p + 11] = 48 + ((h / 10) | 0);
    b[p + 12] = 48 + (h % 10);
    b[p + 13] = 58; // ':'
    b[p + 14] = 48 + ((m / 10) | 0);
    b[p + 15] = 48 + (m % 10);
    b[p + 16] = 58;
    b[p + 17] = 48 + ((sec / 10) | 0);
    b[p + 18] = 48 + (sec % 10);
    let len = 19;
    if (ns !== 0) {
      let v = ns | 0;
      let digits = 9;
      while (v % 10 === 0) {
        v = (v / 10) | 0;
        digits--;
      }
      b[p + 19] = 46; // '.'
      len = 20 + digits;
      for (let i = len - 1; i >= 20; i--) {
        const q = (v / 10) | 0;
        b[p + i] = 48 + v - q * 10;
        v = q;
      }
    }
    if (instant) len += b.latin1Write('+00:00', p + len);
    this.pos = p + len;
    this.ends[this.n++] = this.pos;
  }

  /** The batch's `m` texts into into[0, m). */
  strings(m: number, into: unknown[]): void {
    if (this.n !== m) throw new Error(`${this.n} texts made for ${m} values`);
    const all = this.buf.latin1Slice(0, this.pos);
    const ends = this.ends;
    let from = 0;
    for (let i = 0; i < m; i++) {
      into[i] = all.substring(from, ends[i]);
      from = ends[i];
    }
  }
}

const texts = new BatchTexts();

/** '.f' of nanoseconds (1 to 999,999,999), trailing zeros dropped. */
function fractionText(ns: number): string {
  const digits = String(ns + 1_000_000_000).slice(1);
  let end = 9;
  while (digits.charCodeAt(end - 1) === 48) end--; // '0'
  return `.${end === 9 ? digits : digits.slice(0, end)}`;
}

/** Every type id under `id`, itself included (pre-order ids: a subtree is a contiguous range). */
function subtreeIds(types: readonly Type[], id: number, into: Set<number>): void {
  if (into.has(id)) return;
  into.add(id);
  for (const c of types[id].subtypes) if (c > id && c < types.length) subtreeIds(types, c, into);
}

const DATA_KINDS = new Set([Stream_Kind.PRESENT, Stream_Kind.DATA, Stream_Kind.LENGTH, Stream_Kind.DICTIONARY_DATA, Stream_Kind.SECONDARY]);

/** A stripe as read from its file: its footer, and the streams of the columns asked for, decompressed. */
export interface OrcStripeData {
  readonly footer: StripeFooter;
  readonly streams: Streams;
}

/** Where in a file a stripe is, for errors, and the error of a stripe that does not decode. */
function stripeFail(path: string, stripe: number, stripes: number): (what: string, column?: string) => TidewayError {
  const where = `${path}: stripe ${stripe} of ${stripes}`;
  return (what, column) =>
    new TidewayError(ErrorCode.VALUE_CONVERSION, `${where}${column ? `, column ${column}` : ''}: ${what} (the file is corrupt).`);
}

/** The type ids of `columns` (file columns by name), in the file's root struct. */
function columnIds(tail: OrcTail, columns: readonly Column[]): number[] {
  const root = tail.types[0];
  return columns.map((c) => {
    const k = root.fieldNames.indexOf(c.name);
    if (k < 0)
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${tail.path} has no column ${c.name} (its columns: ${root.fieldNames.join(', ')}).`,
      );
    return root.subtypes[k];
  });
}

/**
 * Reads stripe `stripe` of an ORC file: its footer and the streams of `columns` only (file
 * columns by name), decompressed. A source reader calls it for the next stripe while it decodes
 * one (orc-source.ts), so the file's reads wait behind the decoding.
 */
export async function readOrcStripe(
  fs: FileSystemAdapter,
  tail: OrcTail,
  stripe: number,
  columns: readonly Column[],
): Promise<OrcStripeData> {
  const path = tail.path;
  const stripes = tail.footer.stripes;
  if (stripe >= stripes.length) {
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${path} has ${stripes.length} stripes, not ${stripe + 1}: the file changed after the job listed it.`,
    );
  }
  const fail = stripeFail(path, stripe, stripes.length);
  const si = stripes[stripe];
  const start = Number(si.offset ?? 0n);
  const dataEnd = start + Number(si.indexLength ?? 0n) + Number(si.dataLength ?? 0n);
  const footerLen = Number(si.footerLength ?? 0n);
  const wanted = new Set<number>();
  for (const id of columnIds(tail, columns)) subtreeIds(tail.types, id, wanted);
  // every column asked for: the stripe's data (its row index aside) and footer in one read; else the footer, then the streams wanted
  const dataStart = start + Number(si.indexLength ?? 0n);
  const whole = wanted.size === tail.types.length ? await fs.readRange(path, dataStart, dataEnd + footerLen) : undefined;
  let sf: StripeFooter;
  try {
    const footerBytes = whole ? whole.subarray(dataEnd - dataStart) : await fs.readRange(path, dataEnd, dataEnd + footerLen);
    sf = StripeFooter.decode(decompress(tail.codec, footerBytes));
  } catch (err) {
    throw fail(`its stripe footer does not decode (${(err as Error).message})`);
  }
  // where each stream is; the wanted ones are read, adjacent ones in one read
  const ranges: { key: string; from: number; to: number }[] = [];
  let pos = start;
  for (const s of sf.streams) {
    const len = Number(s.length ?? 0n);
    const from = pos;
    pos += len;
    if (pos > dataEnd) throw fail(`its streams run past the stripe's data (${pos} > ${dataEnd})`);
    if (wanted.has(s.column ?? 0) && DATA_KINDS.has(s.kind ?? Stream_Kind.DATA) && len > 0) {
      ranges.push({ key: `${s.column ?? 0}:${s.kind ?? Stream_Kind.DATA}`, from, to: pos });
    }
  }
  const raws: Uint8Array[] = [];
  for (let i = 0; i < ranges.length; ) {
    let j = i;
    while (j + 1 < ranges.length && ranges[j + 1].from === ranges[j].to) j++;
    const inWhole = whole !== undefined && ranges[i].from >= dataStart && ranges[j].to <= dataEnd;
    const bytes = inWhole
      ? whole.subarray(ranges[i].from - dataStart, ranges[j].to - dataStart)
      : await fs.readRange(path, ranges[i].from, ranges[j].to);
    for (let r = i; r <= j; r++) raws.push(bytes.subarray(ranges[r].from - ranges[i].from, ranges[r].to - ranges[i].from));
    i = j + 1;
  }
  // decompressed on the row-group thread when it is there (decision 0011, "Speed"), else (or when it fails) here, naming the stream that does not decompress
  const done = tail.codec === CompressionKind.NONE || raws.length === 0 ? undefined : await decompressOrcOnThread(tail.codec, raws);
  const streams: Streams = new Map();
  for (let r = 0; r < ranges.length; r++) {
    try {
      streams.set(ranges[r].key, done ? done[r] : decompress(tail.codec, raws[r]));
    } catch (err) {
      throw fail(`stream ${ranges[r].key} does not decompress (${(err as Error).message})`);
    }
  }
  return { footer: sf, streams };
}

/**
 * The rows of stripe `stripe` of an ORC file from row `offset` on, `columns` (file columns by
 * name) only, in batches of `batchRows`. Only those columns' streams are read (or `read`, the
 * stripe read beforehand by readOrcStripe).
 */
export async function* orcStripeRows(
  fs: FileSystemAdapter,
  path: string,
  stripe: number,
  offset: number,
  columns: readonly Column[],
  batchRows: number,
  knownTail?: OrcTail,
  read?: Promise<OrcStripeData>,
): AsyncGenerator<unknown[][]> {
  const tail = knownTail ?? (await readOrcTail(fs, path));
  const { footer: sf, streams } = await (read ?? readOrcStripe(fs, tail, stripe, columns));
  const fail = stripeFail(path, stripe, tail.footer.stripes.length);
  const rows = Number(tail.footer.stripes[stripe].numberOfRows ?? 0n);
  const ids = columnIds(tail, columns);
  const decoder = new StripeDecoder(tail, streams, sf.columns, sf.writerTimezone ?? '');
  let nodes: ColumnNode[];
  try {
    nodes = ids.map((id, i) => decoder.node(id, rows, columns[i].name));
  } catch (err) {
    if (err instanceof TidewayError) throw err;
    throw fail((err as Error).message, decoder.column);
  }
  try {
    const skip = Math.min(offset, rows);
    if (skip > 0) for (const n of nodes) n.read(skip, new Array<unknown>(skip));
    // each column's values of a batch, in arrays kept from batch to batch
    const cols = nodes.map(() => new Array<unknown>(Math.min(batchRows, rows)));
    const width = cols.length;
    for (let row = skip; row < rows; row += batchRows) {
      const n = Math.min(batchRows, rows - row);
      for (let c = 0; c < width; c++) nodes[c].read(n, cols[c]);
      const batch = new Array<unknown[]>(n);
      for (let r = 0; r < n; r++) {
        const fields = new Array<unknown>(width);
        for (let c = 0; c < width; c++) fields[c] = cols[c][r];
        batch[r] = fields;
      }
      yield batch;
    }
  } catch (err) {
    if (err instanceof TidewayError) throw err;
    throw fail((err as Error).message);
  }
}
