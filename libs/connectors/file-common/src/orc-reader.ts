import { isAscii } from 'node:buffer';
import { type Column, type DataType, Types } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { FileSystemAdapter } from './file-system.js';
import { CODEC_NAMES, decompress, isReadCodec } from './orc-compression.js';
import { type ColumnData, decodeStripeColumns, type StripeColumns, type Streams } from './orc-decode.js';
import { CompressionKind, Footer, PostScript, StripeFooter, Stream_Kind, type Type, Type_Kind } from './gen/orc_file.js';
import { type Ints, OrcCorruptError } from './orc-rle.js';
import { dateText } from './parquet-values.js';
import { decodeOrcStripeOnThread } from './row-group-thread.js';
import { Arena, acquireArena, arenaRelease, decodeInArena } from './orc-arena.js';

/**
 * Tideway's ORC reader (docs/decisions/0011-orc.md): the file tail (postscript, footer) through
 * the protobuf messages of proto/orc_file.proto, then one stripe at a time, reading only the
 * streams of the columns asked for. A stripe's streams are decoded whole into compact arrays
 * (numbers, bytes and offsets; timestamps and decimals as their texts' bytes), on the row-group
 * thread while this thread makes the stripe before's values (orc-decode.ts); JS values are made a
 * batch of rows at a time.
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

// ---- making a stripe's values ----

/**
 * A column of a stripe, decoded (orc-decode.ts) with its present bits; `read(n, into)` makes its
 * next n values into into[0, n), `readRows(n, rows, c)` into field c of rows[0, n).
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
    const p = this.present;
    const m = this.take(n);
    // the non-null values first, then moved to their rows (from the last, so none is overwritten before it moves)
    this.values(m, into);
    this.k += m;
    if (m < n) for (let i = n - 1, j = m; i >= 0; i--) into[i] = p![row + i] === 1 ? into[--j] : null;
    this.row = row + n;
  }

  /**
   * Makes its next n values into field c of rows[0, n): straight, by the type's own loop, when
   * the column has no nulls (no array a batch and column to copy them from, decision 0011, "Speed").
   */
  readRows(n: number, rows: unknown[][], c: number): void {
    if (this.present !== undefined) {
      const vals = new Array<unknown>(n);
      this.read(n, vals);
      for (let i = 0; i < n; i++) rows[i][c] = vals[i];
      return;
    }
    this.take(n);
    this.rowValues(n, rows, c);
    this.k += n;
    this.row += n;
  }

  /** How many of the next n rows have a value; throws when the column has fewer rows or values left. */
  private take(n: number): number {
    const row = this.row;
    if (row + n > this.rows) throw new OrcCorruptError(`more values are asked than the stream's ${this.rows}`);
    const p = this.present;
    let m = n;
    if (p !== undefined) {
      m = 0;
      for (let i = row; i < row + n; i++) m += p[i];
    }
    if (this.k + m > this.count) throw new OrcCorruptError(`more values are asked than the stream's ${this.count}`);
    return m;
  }

  /** As values, into field c of rows[0, m) (the column has no nulls): through values, unless the type has a loop of its own. */
  protected rowValues(m: number, rows: unknown[][], c: number): void {
    const vals = new Array<unknown>(m);
    this.values(m, vals);
    for (let i = 0; i < m; i++) rows[i][c] = vals[i];
  }

  /** Makes the non-null values k, k + 1, ... k + m - 1 into into[0, m): a loop of each type's own. */
  protected abstract values(m: number, into: unknown[]): void;
}

/** A node whose non-null values are made from one array. */
abstract class DataNode<T> extends ColumnNode {
  constructor(
    c: ColumnData,
    protected readonly data: T,
  ) {
    super(c.present, c.rows, c.count);
  }
}

class BooleanNode extends DataNode<Uint8Array> {
  protected values(m: number, into: unknown[]): void {
    const { data: bits, k } = this;
    for (let i = 0; i < m; i++) into[i] = bits[k + i] === 1;
  }
  protected override rowValues(m: number, rows: unknown[][], c: number): void {
    const { data: bits, k } = this;
    for (let i = 0; i < m; i++) rows[i][c] = bits[k + i] === 1;
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
  protected override rowValues(m: number, rows: unknown[][], c: number): void {
    const { data: ints, k } = this;
    for (let i = 0; i < m; i++) rows[i][c] = Number(ints[k + i]);
  }
}

class LongNode extends DataNode<Ints> {
  protected values(m: number, into: unknown[]): void {
    const { data: ints, k } = this;
    for (let i = 0; i < m; i++) into[i] = BigInt(ints[k + i]);
  }
  protected override rowValues(m: number, rows: unknown[][], c: number): void {
    const { data: ints, k } = this;
    for (let i = 0; i < m; i++) rows[i][c] = BigInt(ints[k + i]);
  }
}

/** Dates' texts already made, by day (a column's dates repeat). */
const dateTexts = new Map<number, string>();

/** The text of a day, from dateTexts. */
function dateTextOf(day: number): string {
  let text = dateTexts.get(day);
  if (text === undefined) {
    if (dateTexts.size >= 100_000) dateTexts.clear();
    text = dateText(day);
    dateTexts.set(day, text);
  }
  return text;
}

/** Days looked up by index from the stripe's first day on (a stripe's dates mostly lie within a few years). */
const DATE_SPAN = 4096;

class DateNode extends DataNode<Ints> {
  private base = Number.NaN;
  private readonly near: (string | undefined)[] = new Array<string | undefined>(DATE_SPAN);
  protected values(m: number, into: unknown[]): void {
    const { data: ints, k, near } = this;
    if (m > 0 && Number.isNaN(this.base)) this.base = Number(ints[k]) - DATE_SPAN / 2;
    const base = this.base;
    for (let i = 0; i < m; i++) {
      const day = Number(ints[k + i]);
      const at = day - base;
      if (at >= 0 && at < DATE_SPAN) into[i] = near[at] ??= dateTextOf(day);
      else into[i] = dateTextOf(day);
    }
  }
}

class FloatNode extends DataNode<Float32Array | Float64Array> {
  protected values(m: number, into: unknown[]): void {
    const { data: floats, k } = this;
    for (let i = 0; i < m; i++) into[i] = floats[k + i];
  }
  protected override rowValues(m: number, rows: unknown[][], c: number): void {
    const { data: floats, k } = this;
    for (let i = 0; i < m; i++) rows[i][c] = floats[k + i];
  }
}

/** Node's Buffer#utf8Slice and latin1Slice (what toString('utf8') and toString('latin1') call, without their argument handling). */
type SliceBuffer = Buffer & { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

const sliceBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength) as SliceBuffer;

/** A dictionary's entries (checked: every index is one of them). */
class DictionaryNode extends ColumnNode {
  private readonly entries: (string | Uint8Array)[];
  constructor(
    c: ColumnData & { kind: 'dictionary' },
    private readonly ids: Ints,
  ) {
    super(c.present, c.rows, c.count);
    const { starts } = c;
    const buf = sliceBuffer(c.buf);
    const size = starts.length - 1;
    this.entries = new Array<string | Uint8Array>(size);
    for (let e = 0; e < size; e++)
      this.entries[e] = c.binary ? Buffer.from(buf.subarray(starts[e], starts[e + 1])) : buf.utf8Slice(starts[e], starts[e + 1]);
  }
  protected values(m: number, into: unknown[]): void {
    const { entries, ids, k } = this;
    for (let i = 0; i < m; i++) into[i] = entries[ids[k + i] as number];
  }
  protected override rowValues(m: number, rows: unknown[][], c: number): void {
    const { entries, ids, k } = this;
    for (let i = 0; i < m; i++) rows[i][c] = entries[ids[k + i] as number];
  }
}

/** Direct strings (bytes for binary; timestamps' and decimals' texts): value i is the bytes from starts[i] to starts[i + 1]. */
class DirectNode extends ColumnNode {
  private readonly buf: SliceBuffer;
  private readonly starts: Float64Array;
  private readonly binary: boolean;
  private readonly ascii: boolean;
  constructor(c: ColumnData & { kind: 'direct' }) {
    super(c.present, c.rows, c.count);
    this.buf = sliceBuffer(c.buf);
    this.starts = c.starts;
    this.binary = c.binary;
    this.ascii = c.ascii;
  }
  protected values(m: number, into: unknown[]): void {
    const { buf, starts, k } = this;
    if (this.binary) {
      for (let i = 0; i < m; i++) into[i] = Buffer.from(buf.subarray(starts[k + i], starts[k + i + 1]));
      return;
    }
    const from = starts[k];
    const to = starts[k + m];
    if (m > 1 && (this.ascii || isAscii(buf.subarray(from, to)))) {
      // ASCII: a character a byte, so the batch's values are one string's substrings (no native call a value)
      const all = buf.latin1Slice(from, to);
      for (let i = 0; i < m; i++) into[i] = all.substring(starts[k + i] - from, starts[k + i + 1] - from);
    } else for (let i = 0; i < m; i++) into[i] = buf.utf8Slice(starts[k + i], starts[k + i + 1]);
  }
  protected override rowValues(m: number, rows: unknown[][], c: number): void {
    const { buf, starts, k } = this;
    const from = starts[k];
    const to = starts[k + m];
    if (this.binary || m <= 1 || !(this.ascii || isAscii(buf.subarray(from, to)))) {
      super.rowValues(m, rows, c);
      return;
    }
    const all = buf.latin1Slice(from, to); // as in values
    for (let i = 0; i < m; i++) rows[i][c] = all.substring(starts[k + i] - from, starts[k + i + 1] - from);
  }
}

class StructNode extends ColumnNode {
  constructor(
    c: ColumnData,
    private readonly children: readonly ColumnNode[],
  ) {
    super(c.present, c.rows, c.count);
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
    c: ColumnData,
    private readonly lengths: Ints,
    private readonly keys: ColumnNode,
    private readonly vals: ColumnNode | undefined,
  ) {
    super(c.present, c.rows, c.count);
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

/** The node that makes the values of a decoded column. */
function nodeOf(c: ColumnData): ColumnNode {
  switch (c.kind) {
    case 'boolean':
      return new BooleanNode(c, c.data);
    case 'byte':
      return new ByteNode(c, c.data);
    case 'int':
      return new IntNode(c, c.data);
    case 'long':
      return new LongNode(c, c.data);
    case 'date':
      return new DateNode(c, c.data);
    case 'float':
      return new FloatNode(c, c.data);
    case 'dictionary':
      return new DictionaryNode(c, c.ids);
    case 'direct':
      return new DirectNode(c);
    case 'struct':
      return new StructNode(c, c.children.map(nodeOf));
    case 'list':
      return new ListNode(c, c.lengths, nodeOf(c.keys), c.vals && nodeOf(c.vals));
  }
}

/** Every type id under `id`, itself included (pre-order ids: a subtree is a contiguous range). */
function subtreeIds(types: readonly Type[], id: number, into: Set<number>): void {
  if (into.has(id)) return;
  into.add(id);
  for (const c of types[id].subtypes) if (c > id && c < types.length) subtreeIds(types, c, into);
}

const DATA_KINDS = new Set([Stream_Kind.PRESENT, Stream_Kind.DATA, Stream_Kind.LENGTH, Stream_Kind.DICTIONARY_DATA, Stream_Kind.SECONDARY]);

/** A stripe as read from its file: its footer, and the columns asked for, decoded (orc-decode.ts). */
export interface OrcStripeData {
  readonly footer: StripeFooter;
  readonly columns: readonly ColumnData[];
  /** Gives back the arena the columns were decoded into (orc-arena.ts), once no value is being made from them. */
  readonly release?: () => void;
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
 * columns by name), decompressed and decoded (orc-decode.ts), on the row-group thread unless
 * `thread` is false or the thread is not up. A source reader calls it for the next stripe while
 * it makes the values of one (orc-source.ts), so the file's reads and the decoding wait behind that.
 */
export async function readOrcStripe(
  fs: FileSystemAdapter,
  tail: OrcTail,
  stripe: number,
  columns: readonly Column[],
  thread = true,
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
  const rows = Number(si.numberOfRows ?? 0n);
  const job: StripeColumns = {
    types: tail.types,
    encodings: sf.columns,
    writerZone: sf.writerTimezone ?? '',
    ids: columnIds(tail, columns),
    names: columns.map((c) => c.name),
    rows,
  };
  // decompressed and decoded on the row-group thread when it is there (decision 0011, "Speed");
  // else (or when it fails) here, naming the stream that does not decompress or the column that does not decode
  const keys = ranges.map((r) => r.key);
  const decoded = raws.length === 0 || !thread ? undefined : await decodeOrcStripeOnThread(tail.codec, raws, keys, job);
  if (decoded) return { footer: sf, columns: decoded.columns, release: decoded.release };
  // here, into an arena as the thread does (orc-arena.ts: no new ArrayBuffers for V8 to count), given back when its values are made
  let total = 0;
  for (const r of raws) total += r.byteLength;
  const arena = new Arena(acquireArena(total));
  const release = arenaRelease(arena.buffer, () => arena.wanted);
  const at = { column: '' };
  try {
    const columns = decodeInArena(arena, () => {
      const streams: Streams = new Map();
      for (let r = 0; r < ranges.length; r++) {
        try {
          streams.set(keys[r], decompress(tail.codec, raws[r]));
        } catch (err) {
          throw fail(`stream ${keys[r]} does not decompress (${(err as Error).message})`);
        }
      }
      return decodeStripeColumns(job, streams, at);
    });
    return { footer: sf, columns, release };
  } catch (err) {
    release();
    if (err instanceof TidewayError) throw err;
    throw fail((err as Error).message, at.column);
  }
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
  const { columns: decoded, release } = await (read ?? readOrcStripe(fs, tail, stripe, columns));
  const fail = stripeFail(path, stripe, tail.footer.stripes.length);
  const rows = Number(tail.footer.stripes[stripe].numberOfRows ?? 0n);
  try {
    const nodes = decoded.map(nodeOf);
    const skip = Math.min(offset, rows);
    if (skip > 0) for (const n of nodes) n.read(skip, new Array<unknown>(skip));
    // the rows first, then each column's values put in them
    const width = nodes.length;
    for (let row = skip; row < rows; row += batchRows) {
      const n = Math.min(batchRows, rows - row);
      const batch = new Array<unknown[]>(n);
      for (let r = 0; r < n; r++) batch[r] = new Array<unknown>(width);
      for (let c = 0; c < width; c++) nodes[c].readRows(n, batch, c);
      yield batch;
    }
  } catch (err) {
    if (err instanceof TidewayError) throw err;
    throw fail((err as Error).message);
  } finally {
    release?.(); // every value made was copied out of the decoded arrays
  }
}
