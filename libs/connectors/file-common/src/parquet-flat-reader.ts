import type { ColumnChunk, DataPageHeader, DataReader, DecodedArray, Encoding, PageHeader } from 'hyparquet';
import { convert, convertWithDictionary } from 'hyparquet/src/convert.js';
import { readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { getMaxDefinitionLevel } from 'hyparquet/src/schema.js';
import { lengthAt } from './parquet-byte-dictionary.js';
import { ChunkPages } from './parquet-chunk-pages.js';

/** What hyparquet decodes a column chunk with (its type is not exported by name). */
export type ColumnDecoder = Parameters<typeof readDataPage>[2];

/**
 * A flat column chunk (a top-level column, not repeated, no children) read page by page, its
 * values converted as a batch of rows takes them. hyparquet's reader gathers a column chunk into
 * one array through its general assembly of nested values (Dremel levels), value by value: for a
 * flat column that assembly was a quarter of the read's time, and the row group's whole columns,
 * converted and alive at once, made the garbage collector a third of it (decision 0034). Here
 * only the current page's decoded values are alive, converted a batch at a time and put straight
 * into the rows. hyparquet still parses the headers, decompresses, decodes every encoding and
 * converts types: its modules are used as they are (its package exports them, src/*.js).
 */
export class FlatColumnPages {
  private readonly pages: ChunkPages;
  /** The current page's definition levels; empty when every value is present. */
  private defs: ArrayLike<number> = [];
  /** The current page's present values as decoded (dictionary indexes for a dictionary page), and its encoding. */
  private values: DecodedArray = [];
  private encoding: Encoding = 'PLAIN';
  /** Rows of the current page, the next one to take, and the next present value. */
  private rows = 0;
  private at = 0;
  private next = 0;
  /** Definition levels of the current page, reused page after page. */
  private levels = new Uint8Array(0);
  /**
   * How the current page's present values are held (hyparquet makes an array of the whole page's
   * values, which lived for as many batches as the page has rows, long enough to be promoted to
   * the old generation; the page kinds below are read a batch at a time instead):
   * - 'decoded': in `values`, as hyparquet decoded them;
   * - 'plain': a PLAIN page of byte arrays or booleans, its value bytes in `plain`, a value's view
   *   (or boolean) made as a batch takes it;
   * - 'indices': a dictionary-encoded page, its indexes decoded into `indices` (reused).
   */
  private held: 'decoded' | 'plain' | 'indices' = 'decoded';
  private plain: Uint8Array = new Uint8Array(0);
  /** Where each BYTE_ARRAY value's 4-byte length starts in `plain`, and past the last; reused. */
  private plainStarts = new Int32Array(0);
  private indices = new Int32Array(0);
  /** The decoder as of a required column: what hyparquet decodes a page's values with once its levels are read. */
  private readonly required: ColumnDecoder;
  /** The definition level of a present value (0 for a required column, 1 for an optional one). */
  private readonly maxDef: number;

  constructor(
    bytes: Uint8Array,
    private readonly decoder: ColumnDecoder,
    private readonly where: string,
  ) {
    this.pages = new ChunkPages(bytes, decoder, where);
    this.maxDef = getMaxDefinitionLevel(decoder.schemaPath);
    const path = decoder.schemaPath;
    const column = path[path.length - 1];
    const element = { ...column.element, repetition_type: 'REQUIRED' as const };
    this.required = { ...decoder, element, schemaPath: [...path.slice(0, -1), { ...column, element }] };
  }

  /** Skips `n` rows; whole pages are skipped undecoded. */
  skip(n: number): void {
    while (n > 0) {
      if (this.at === this.rows) n -= this.page(n);
      else {
        const take = Math.min(n, this.rows - this.at);
        for (let k = 0; k < take; k++) if (this.present(this.at + k)) this.next++;
        this.at += take;
        n -= take;
      }
    }
  }

  /** Puts the next batch.length values, converted by `conv`, at index `col` of each row of `batch` (null where the row has none). */
  fill(batch: unknown[][], col: number, conv: (v: unknown) => unknown): void {
    let r = 0;
    while (r < batch.length) {
      if (this.at === this.rows) {
        this.page(0);
        continue;
      }
      const take = Math.min(batch.length - r, this.rows - this.at);
      const defs = this.defs;
      const max = this.maxDef;
      const at = this.at;
      let present = take;
      if (defs.length > 0) for (let k = 0; k < take; k++) if (defs[at + k] !== max) present--;
      // converted a batch's worth at a time: a page's values all converted at once lived for
      // dozens of batches, long enough to be promoted to the old generation
      const values = this.valuesOf(this.next, this.next + present);
      let v = 0;
      if (defs.length === 0) for (let k = 0; k < take; k++) batch[r + k][col] = conv(values[v++]);
      else for (let k = 0; k < take; k++) batch[r + k][col] = defs[at + k] === max ? conv(values[v++]) : null;
      this.next += present;
      this.at += take;
      r += take;
    }
  }

  /**
   * A v1 data page: the definition levels of an optional column decoded here into a reused typed
   * array (hyparquet decodes them into a new array a page, 1 MB a page of 131,072 rows, and
   * counts the nulls in a second pass), then the values (pageValues).
   */
  private pageV1(compressed: Uint8Array, header: PageHeader, v1: DataPageHeader): void {
    const page = this.pages.decompress(compressed, header);
    const reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
    const present = this.maxDef === 1 ? this.readLevels(reader, v1.num_values) : this.noLevels(v1.num_values);
    this.pageValues(page.subarray(reader.offset), v1, present);
  }

  /**
   * A v2 data page: its definition levels (stored uncompressed, before the values) as pageV1's,
   * and its values decompressed on their own.
   */
  private pageV2(compressed: Uint8Array, header: PageHeader, v2: NonNullable<PageHeader['data_page_header_v2']>): void {
    const levelBytes = v2.repetition_levels_byte_length + v2.definition_levels_byte_length;
    const reader = {
      view: new DataView(compressed.buffer, compressed.byteOffset, compressed.byteLength),
      offset: v2.repetition_levels_byte_length,
    };
    const present =
      this.maxDef === 1 ? this.readLevels(reader, v2.num_values, v2.definition_levels_byte_length) : this.noLevels(v2.num_values);
    let values = compressed.subarray(levelBytes);
    if (v2.is_compressed !== false) {
      values = this.pages.decompress(values, header, Number(header.uncompressed_page_size) - levelBytes);
    }
    const asV1: DataPageHeader = {
      num_values: present,
      encoding: v2.encoding,
      definition_level_encoding: 'RLE',
      repetition_level_encoding: 'RLE',
    };
    this.pageValues(values, asV1, present);
  }

  /**
   * Decodes `rows` definition levels (width 1, RLE/bit-packed; `length` bytes, or a 4-byte length
   * first) into the reused array, notes them as the page's unless every row is present, and returns
   * how many are.
   */
  private readLevels(reader: DataReader, rows: number, length?: number): number {
    this.levels = atLeast(this.levels, rows);
    const levels = this.levels.subarray(0, rows);
    readRleBitPackedHybrid(reader, 1, levels, length);
    let present = 0;
    for (let i = 0; i < rows; i++) present += levels[i];
    this.defs = present === rows ? [] : levels;
    return present;
  }

  /** A required column's page of `rows` rows: every one present. */
  private noLevels(rows: number): number {
    this.defs = [];
    return rows;
  }

  /**
   * Takes the present values of a data page's value section (`count` of them): located or decoded
   * into reused arrays here for PLAIN byte arrays and booleans and for dictionary indexes, decoded
   * by hyparquet otherwise.
   */
  private pageValues(bytes: Uint8Array, v1: DataPageHeader, count: number): void {
    const { type, element } = this.decoder;
    const dictionary = v1.encoding === 'RLE_DICTIONARY' || v1.encoding === 'PLAIN_DICTIONARY';
    this.held = 'decoded';
    if (dictionary && type !== 'BOOLEAN') {
      this.indices = atLeast(this.indices, count);
      const indices = this.indices.subarray(0, count);
      const bitWidth = bytes.length > 0 ? bytes[0] : 0;
      const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 1 };
      if (bitWidth > 0) readRleBitPackedHybrid(reader, bitWidth, indices, bytes.length - 1);
      else indices.fill(0);
      this.held = 'indices';
    } else if (v1.encoding !== 'PLAIN' || (type !== 'BYTE_ARRAY' && type !== 'FIXED_LEN_BYTE_ARRAY' && type !== 'BOOLEAN')) {
      this.values = readDataPage(bytes, { ...v1, num_values: count }, this.required).dataPage;
    } else {
      const need =
        type === 'BOOLEAN'
          ? Math.ceil(count / 8)
          : type === 'FIXED_LEN_BYTE_ARRAY'
            ? count * element.type_length!
            : this.locate(bytes, count);
      if (need > bytes.length) throw new Error(`${this.where}: a page ends before its values do (a truncated or corrupt file)`);
      this.plain = bytes;
      this.held = 'plain';
    }
  }

  /** Notes where each of `count` PLAIN BYTE_ARRAY values of `bytes` starts; returns the bytes they take. */
  private locate(bytes: Uint8Array, count: number): number {
    this.plainStarts = atLeast(this.plainStarts, count + 1);
    const starts = this.plainStarts;
    let at = 0;
    for (let i = 0; i < count && at <= bytes.length; i++) {
      starts[i] = at;
      at += 4 + (at + 4 <= bytes.length ? lengthAt(bytes, at) : bytes.length);
    }
    starts[count] = at;
    return at;
  }

  /** Present values from..to of the current page, converted as hyparquet converts them (dictionary entries looked up). */
  private valuesOf(from: number, to: number): DecodedArray {
    if (this.held === 'decoded')
      return convertWithDictionary(this.values.slice(from, to), this.pages.dictionary, this.encoding, this.decoder);
    if (this.held === 'indices') {
      const dictionary = this.pages.dictionary!;
      const indices = this.indices;
      const out = new Array<unknown>(to - from);
      for (let i = from; i < to; i++) {
        const e = indices[i];
        if (e >= dictionary.length)
          throw new Error(`${this.where}: a value refers to dictionary entry ${e} of ${dictionary.length} (a corrupt file)`);
        out[i - from] = dictionary[e];
      }
      return out;
    }
    const bytes = this.plain;
    const type = this.decoder.type;
    if (type === 'BOOLEAN') {
      const out = new Array<boolean>(to - from);
      for (let i = from; i < to; i++) out[i - from] = (bytes[i >> 3] & (1 << (i & 7))) !== 0;
      return out;
    }
    const out = new Array<Uint8Array>(to - from);
    const base = bytes.byteOffset;
    if (type === 'FIXED_LEN_BYTE_ARRAY') {
      const w = this.decoder.element.type_length!;
      for (let i = from; i < to; i++) out[i - from] = new Uint8Array(bytes.buffer, base + i * w, w);
    } else {
      const starts = this.plainStarts;
      for (let i = from; i < to; i++) out[i - from] = new Uint8Array(bytes.buffer, base + starts[i] + 4, starts[i + 1] - starts[i] - 4);
    }
    return convert(out, this.decoder);
  }

  private present(row: number): boolean {
    return this.defs.length === 0 || this.defs[row] === this.maxDef;
  }

  /**
   * Reads page headers up to the next data page and decodes it, unless `skipRows` covers all of
   * it: then it is passed over and its row count returned (0 when it was decoded).
   */
  private page(skipRows: number): number {
    const d = this.decoder;
    const { header, encoding, compressed } = this.pages.nextData();
    const v1 = header.data_page_header;
    const v2 = header.data_page_header_v2;
    const rows = v1 ? v1.num_values : v2!.num_rows;
    if (skipRows >= rows) return rows;
    this.pages.decoding(() => {
      // a flat column's definition levels are 0 or 1 (isFlatColumn: a top-level column, not repeated)
      if (v1 && (this.maxDef === 0 || v1.definition_level_encoding === 'RLE')) this.pageV1(compressed, header, v1);
      else if (v2 && v2.repetition_levels_byte_length === 0) this.pageV2(compressed, header, v2);
      else {
        const { definitionLevels, dataPage } = v1
          ? readDataPage(this.pages.decompress(compressed, header), v1, d)
          : readDataPageV2(compressed, header, d);
        this.values = dataPage;
        this.held = 'decoded';
        this.defs = definitionLevels ?? [];
      }
    });
    this.encoding = encoding;
    this.rows = rows;
    this.at = 0;
    this.next = 0;
    return 0;
  }
}

/** `a`, or a new array of its kind (contents not kept) when it is shorter than `n`: the reader's arrays reused page after page. */
function atLeast<T extends Uint8Array | Int32Array>(a: T, n: number): T {
  if (a.length >= n) return a;
  return new (a.constructor as new (length: number) => T)(Math.max(n, a.length * 2));
}

/** The byte range of a column chunk in its file: from its dictionary page, if any, to its end. */
function chunkRange(chunk: ColumnChunk): [number, number] {
  const m = chunk.meta_data!;
  const start = Number(m.dictionary_page_offset || m.data_page_offset);
  return [start, start + Number(m.total_compressed_size)];
}

/** Unread bytes between two chunks that still go in one read (hyparquet's and Arrow's default gap). */
const GAP_BYTES = 8 * 1024;
/** Reads grow no larger than this by taking in another chunk. */
const READ_BYTES = 8 * 1024 * 1024;

/**
 * The bytes of each of `chunks`, read with as few range reads as hyparquet makes: chunks next to
 * each other in the file (at most GAP_BYTES apart) are read together, up to READ_BYTES a read. On
 * S3 a range read is a request, billed and with its latency.
 */
export async function readChunks(
  read: (from: number, to: number) => Promise<Uint8Array>,
  chunks: readonly ColumnChunk[],
): Promise<Uint8Array[]> {
  const ranges = chunks.map(chunkRange);
  const order = ranges.map((_, i) => i).sort((a, b) => ranges[a][0] - ranges[b][0]);
  const out = new Array<Uint8Array>(chunks.length);
  const reads: Promise<void>[] = [];
  for (let k = 0; k < order.length; ) {
    const first = k;
    const from = ranges[order[k]][0];
    let to = ranges[order[k]][1];
    for (k++; k < order.length; k++) {
      const [a, b] = ranges[order[k]];
      if (a - to > GAP_BYTES || Math.max(to, b) - from > READ_BYTES) break;
      to = Math.max(to, b);
    }
    const members = order.slice(first, k);
    reads.push(
      read(from, to).then((bytes) => {
        for (const i of members) out[i] = bytes.subarray(ranges[i][0] - from, ranges[i][1] - from);
      }),
    );
  }
  await Promise.all(reads);
  return out;
}
