import type { ColumnMetaData, Encoding, PageHeader, ParquetType } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { compressPage, type PageCodec } from './page-codecs.js';
import { byteDictionary, byteMinMax, plainStarts } from './parquet-byte-dictionary.js';
import type { MinMax } from './parquet-column-builder.js';

/** Data pages are cut at about this many bytes of values (parquet-mr's default page size). */
const PAGE_BYTES = 1 << 20;

/**
 * One column (or nested column's leaf) of a row group as the writer buffered it
 * (parquet-column-builders.ts), in typed arrays that can be sent to the row-group thread
 * (row-group-thread.ts).
 */
export interface RawColumn {
  readonly name: string;
  readonly type: ParquetType;
  /** Rows of a flat column; level entries of a nested column's leaf. */
  readonly rows: number;
  /** Present (non-null) values. */
  readonly count: number;
  /** Definition level of each row (1 present, 0 null), or of each entry of a nested leaf. */
  readonly defs: Uint8Array;
  /** A nested leaf's repetition level of each entry (0 starts a row); absent for a flat column. */
  readonly reps?: Uint8Array;
  /** A nested leaf's definition level of a present value (1 for a flat column). */
  readonly maxDef?: number;
  /** A nested leaf's largest repetition level (0 for a flat column). */
  readonly maxRep?: number;
  /** A nested leaf's path_in_schema (a flat column's is its name). */
  readonly path?: readonly string[];
  /**
   * The present values: PLAIN bytes (`fixed` bytes each, or 4-byte length and bytes for byte
   * arrays), or for booleans a byte (0 or 1) each, bit-packed per page here.
   */
  readonly values: Uint8Array;
  /** Bytes a value takes; 0 for byte arrays, -1 for booleans. */
  readonly fixed: number;
  /** Byte arrays: where value i's length prefix starts in `values`. */
  readonly starts?: Int32Array;
  /** Strings: encode RLE_DICTIONARY while the chunk's dictionary stays under its limits. */
  readonly dictionary?: boolean;
  /** Min/max kept by the builder; those of byte arrays are found here. */
  readonly statistics?: MinMax;
}

/** One column chunk of an encoded row group; offsets are from the start of the group's bytes. */
export interface EncodedChunk {
  readonly offset: number;
  readonly dataOffset: number;
  readonly dictionary: boolean;
  readonly size: number;
  readonly uncompressed: number;
  readonly meta: Pick<ColumnMetaData, 'type' | 'encodings' | 'path_in_schema' | 'num_values' | 'statistics'>;
}

/** A row group's column chunks as they land in the file (page headers and compressed pages). */
export interface EncodedRowGroup {
  readonly bytes: Uint8Array;
  readonly chunks: EncodedChunk[];
}

/** The buffers a row group's columns view, each once: handed over to the row-group thread with them. */
export function buffersOf(columns: readonly RawColumn[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const c of columns) for (const a of [c.defs, c.reps, c.values, c.starts]) if (a) buffers.add(a.buffer as ArrayBuffer);
  return [...buffers];
}

/**
 * The two ByteWriters encodeRowGroup builds a row group and its pages in, emptied and kept for the
 * next row group of this thread: a new one zero-fills its buffer, and the row group's was sized
 * for all its values uncompressed (8 MB and more), which cost the row-group thread about a tenth
 * of its time on the orders bench (decision 0023). encodeRowGroup hands out a copy of its bytes.
 */
const scratches: ByteWriter[] = [];

function scratch(k: number, size: number): ByteWriter {
  const kept = scratches[k];
  // one outsized row group (a huge value) does not keep its buffer for the thread's life
  const w = kept !== undefined && kept.buffer.byteLength <= Math.max(4 * size, 64 << 20) ? kept : new ByteWriter(size);
  scratches[k] = w;
  w.index = 0;
  w.offset = 0;
  w.ensure(size);
  return w;
}

/** Bits a level or dictionary index of at most `max` takes. */
const bitWidth = (max: number) => 32 - Math.clz32(max);

/** Writes levels as the RLE/bit-packed hybrid after their 4-byte length (data pages v1). */
function writeLevels(page: ByteWriter, levels: Uint8Array, max: number): void {
  const lengthAt = page.index;
  page.appendUint32(0);
  page.view.setUint32(lengthAt, writeRleBitPackedHybrid(page, levels, bitWidth(max)), true);
}

/** Present values among `defs` (those at `maxDef`). */
function presentIn(defs: Uint8Array, maxDef: number): number {
  let present = 0;
  if (maxDef === 1) for (let i = 0; i < defs.length; i++) present += defs[i];
  else for (let i = 0; i < defs.length; i++) if (defs[i] === maxDef) present++;
  return present;
}

/** Bit-packs the booleans (a byte each) of values [v0, v1). */
function packBits(values: Uint8Array, v0: number, v1: number): Uint8Array {
  const out = new Uint8Array((v1 - v0 + 7) >> 3);
  for (let i = v0; i < v1; i++) if (values[i]) out[(i - v0) >> 3] |= 1 << ((i - v0) & 7);
  return out;
}

/**
 * Encodes a row group: each column one chunk of data pages v1 (a nested leaf's repetition
 * levels, then definition levels, both RLE/bit-packed; a nested leaf's pages start a row; values
 * PLAIN, or RLE_DICTIONARY after a dictionary page for strings whose chunk dictionary stays
 * small), pages compressed with `codec`, min/max/null_count statistics. A pure function of its
 * input, so the row-group thread and the writer's own thread write the same bytes.
 */
export function encodeRowGroup(codec: 'UNCOMPRESSED' | PageCodec, columns: readonly RawColumn[]): EncodedRowGroup {
  let estimate = 4096;
  for (const c of columns) estimate += c.values.length + c.rows;
  const out = scratch(0, estimate);
  const page = scratch(1, PAGE_BYTES + (PAGE_BYTES >> 2));
  const chunks: EncodedChunk[] = [];
  const writePage = (header: Omit<PageHeader, 'uncompressed_page_size' | 'compressed_page_size'>): number => {
    const raw = new Uint8Array(page.buffer, 0, page.index);
    const stored = codec === 'UNCOMPRESSED' ? raw : compressPage(codec, raw);
    const start = out.index;
    writePageHeader(out, { ...header, uncompressed_page_size: raw.length, compressed_page_size: stored.length });
    const uncompressed = out.index - start + raw.length;
    out.appendBytes(stored);
    page.index = 0;
    page.offset = 0;
    return uncompressed;
  };
  for (const c of columns) {
    const offset = out.index;
    let uncompressed = 0;
    const dict = c.dictionary && c.count > 0 ? byteDictionary(c.values, c.starts!, c.count) : undefined;
    if (dict !== undefined) {
      page.appendBytes(dict.entries);
      uncompressed += writePage({ type: 'DICTIONARY_PAGE', dictionary_page_header: { num_values: dict.size, encoding: 'PLAIN' } });
    }
    const dataOffset = out.index;
    const encoding: Encoding = dict !== undefined ? 'RLE_DICTIONARY' : 'PLAIN';
    const indexWidth = dict !== undefined ? Math.max(1, bitWidth(dict.size - 1)) : 0;
    const valueBytes = dict !== undefined ? c.count * 4 + dict.entries.length : c.values.length;
    const pages = Math.max(1, Math.ceil(valueBytes / PAGE_BYTES));
    const rowsPerPage = Math.ceil(c.rows / pages);
    const maxDef = c.maxDef ?? 1;
    let v0 = 0;
    for (let r0 = 0; r0 < c.rows; ) {
      let r1 = Math.min(c.rows, r0 + rowsPerPage);
      // a nested leaf's page starts a row (repetition level 0): a row's entries stay in one page
      if (c.reps) while (r1 < c.rows && c.reps[r1] !== 0) r1++;
      const defs = c.defs.subarray(r0, r1);
      const v1 = v0 + presentIn(defs, maxDef);
      // repetition levels (nested leaves), definition levels, then the values
      if (c.maxRep) writeLevels(page, c.reps!.subarray(r0, r1), c.maxRep);
      writeLevels(page, defs, maxDef);
      if (dict !== undefined) {
        page.appendUint8(indexWidth);
        writeRleBitPackedHybrid(page, dict.indices.subarray(v0, v1), indexWidth);
      } else if (c.fixed < 0) page.appendBytes(packBits(c.values, v0, v1));
      else if (c.fixed > 0) page.appendBytes(c.values.subarray(v0 * c.fixed, v1 * c.fixed));
      else if (v1 > v0) page.appendBytes(c.values.subarray(c.starts![v0], v1 < c.count ? c.starts![v1] : c.values.length));
      uncompressed += writePage({
        type: 'DATA_PAGE',
        data_page_header: { num_values: r1 - r0, encoding, definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
      });
      v0 = v1;
      r0 = r1;
    }
    let statistics = c.statistics ?? {};
    if (c.fixed === 0 && c.count > 0) {
      statistics =
        dict !== undefined
          ? byteMinMax(dict.entries, plainStarts(dict.entries, dict.size), dict.size)
          : byteMinMax(c.values, c.starts!, c.count);
    }
    chunks.push({
      offset,
      dataOffset,
      dictionary: dict !== undefined,
      size: out.index - offset,
      uncompressed,
      meta: {
        type: c.type,
        encodings: dict !== undefined ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
        path_in_schema: c.path ? [...c.path] : [c.name],
        num_values: BigInt(c.rows),
        statistics: { null_count: BigInt(c.rows - c.count), ...statistics },
      },
    });
  }
  // a copy of its own size (the buffer was sized for the values uncompressed): the writer hands
  // these bytes on as they are, and an S3 upload holds them until its part is full
  return { bytes: new Uint8Array(out.buffer.slice(0, out.index)), chunks };
}
