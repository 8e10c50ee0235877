import type { Column } from '@tideway/api';
import type { ColumnChunk, ColumnMetaData, CompressionCodec, Encoding, PageHeader, RowGroup, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import type { FileEncoder } from './file-encoder.js';
import { ByteArrayBuilder } from './parquet-byte-array-builder.js';
import type { ColumnBuilder } from './parquet-column-builder.js';
import { columnBuilderOf } from './parquet-column-builders.js';
import { compressPages, isPageCodec, type PageCodec } from './page-codecs.js';
import { collectPages, type CompressTicket, startCompressorThread, submitPages } from './page-compressor.js';
import { parquetSchemaOf } from './parquet-schema.js';

/** Data pages are cut at about this many bytes of values (parquet-mr's default page size). */
const PAGE_BYTES = 1 << 20;
const MAGIC = 0x31524150; // 'PAR1'

/** The bytes a writer holds, handed over and dropped; its `offset` keeps counting, so the footer's offsets stay right. */
export function takeWritten(bytes: ByteWriter): Uint8Array | undefined {
  if (bytes.index === 0) return undefined;
  const out = bytes.getBytes().slice();
  bytes.index = 0;
  return out;
}

/** Rows of a batch taken at a time by addRows: the row group's size is looked at between slices. */
const SLICE = 1024;

/** Row groups handed to the compressor thread and not yet written; past this the writer waits for the oldest. */
const IN_FLIGHT = 2;

/** One page of an encoded row group: its header without the sizes, and where its body ends in the group's body. */
interface EncodedPage {
  readonly header: Omit<PageHeader, 'uncompressed_page_size' | 'compressed_page_size'>;
  readonly end: number;
}

/** One column chunk of an encoded row group: its pages and the metadata that does not depend on where it lands. */
interface EncodedChunk {
  readonly pages: EncodedPage[];
  readonly dictionary: boolean;
  readonly meta: Pick<ColumnMetaData, 'type' | 'encodings' | 'path_in_schema' | 'num_values' | 'statistics'>;
}

/** A row group encoded (page bodies, uncompressed, one after another) and waiting to be compressed and written. */
interface EncodedGroup {
  readonly rows: number;
  readonly chunks: EncodedChunk[];
  readonly body: Uint8Array;
  readonly ends: number[];
  readonly ticket?: CompressTicket;
}

/**
 * Tideway's own Parquet writer for flat schemas (every column a primitive type): values go into
 * column buffers as rows arrive (parquet-column-builders.ts) and, once the row group's buffered
 * data reaches `rowGroupBytes`, each column becomes one chunk of data pages v1 (definition levels
 * RLE/bit-packed, values PLAIN, or RLE_DICTIONARY for strings while their dictionary stays small)
 * with min/max/null_count statistics. The row group's pages are compressed on the compressor
 * thread (page-compressor.ts) while the next row group fills, or here when there is no thread
 * (or it is still starting); page headers and the footer are hyparquet-writer's Thrift writers.
 * `take` hands over the bytes of the row groups written so far.
 */
export class FlatParquetEncoder implements FileEncoder {
  private readonly out = new ByteWriter(1 << 16);
  private readonly schema: SchemaElement[];
  private readonly builders: ColumnBuilder[];
  private readonly rowGroups: RowGroup[] = [];
  private readonly pending: EncodedGroup[] = [];
  private rows = 0;
  private totalRows = 0n;
  private nextCheck = 1;

  /** `thread`: compress on the compressor thread when it can start (tests compare both ways). */
  constructor(
    columns: readonly Column[],
    private readonly codec: CompressionCodec,
    private readonly rowGroupBytes: number,
    private readonly thread = true,
  ) {
    if (codec !== 'UNCOMPRESSED' && !isPageCodec(codec)) {
      throw new Error(`The flat Parquet writer does not compress with ${codec}.`); // refused by the sink options already
    }
    this.schema = parquetSchemaOf(columns);
    this.builders = columns.map((c, i) => {
      const b = columnBuilderOf(c.type, this.schema[i + 1]);
      if (b === undefined) throw new Error(`column ${c.name} is not flat`); // the caller checked isFlatSchema
      return b;
    });
    this.out.appendUint32(MAGIC);
    if (thread && codec !== 'UNCOMPRESSED') startCompressorThread(); // up by the first row group, or that one is compressed here
  }

  add(fields: readonly unknown[]): void {
    const b = this.builders;
    for (let i = 0; i < b.length; i++) b[i].add(fields[i]);
    this.rows++;
    if (this.rows >= this.nextCheck) this.checkSize();
  }

  addRows(rows: readonly (readonly unknown[])[], columns?: readonly number[]): void {
    const b = this.builders;
    for (let r0 = 0; r0 < rows.length; r0 += SLICE) {
      const r1 = Math.min(rows.length, r0 + SLICE);
      for (let i = 0; i < b.length; i++) b[i].addColumn(rows, r0, r1, columns === undefined ? i : columns[i]);
      this.rows += r1 - r0;
      if (this.rows >= this.nextCheck) this.checkSize();
    }
  }

  /** Ends the row group once its buffered bytes reach the limit, else sets when to look again. */
  private checkSize(): void {
    let bytes = this.rows * this.builders.length; // definition levels
    for (const b of this.builders) bytes += b.bytes();
    if (bytes >= this.rowGroupBytes) return this.endRowGroup();
    // look again about halfway to the limit at the rate seen so far
    this.nextCheck = this.rows + Math.max(1, Math.floor(((this.rowGroupBytes - bytes) * this.rows) / bytes / 2));
  }

  /** Encodes the buffered rows into pages, empties the buffers, and sends the pages to be compressed. */
  private endRowGroup(): void {
    if (this.rows === 0) return;
    let estimate = 0;
    for (const b of this.builders) estimate += b.bytes() + b.rows;
    const body = new ByteWriter(estimate + 4096);
    const chunks = this.builders.map((b) => {
      const chunk = encodeChunk(b, body);
      b.reset();
      return chunk;
    });
    const ends = chunks.flatMap((c) => c.pages.map((p) => p.end));
    const bytes = new Uint8Array(body.buffer, 0, body.index);
    const ticket = this.codec === 'UNCOMPRESSED' || !this.thread ? undefined : submitPages(this.codec as PageCodec, bytes, ends);
    this.pending.push({ rows: this.rows, chunks, body: bytes, ends, ticket });
    this.totalRows += BigInt(this.rows);
    this.rows = 0;
    this.nextCheck = 1;
    this.writeDone(IN_FLIGHT);
  }

  /** Writes the pending row groups in order: those compressed already, and waits for the oldest while more than `keep` are left. */
  private writeDone(keep: number): void {
    while (this.pending.length > 0) {
      const group = this.pending[0];
      const pages = this.compressed(group, this.pending.length > keep);
      if (pages === undefined) return;
      this.pending.shift();
      this.writeGroup(group, pages);
    }
  }

  private compressed(group: EncodedGroup, wait: boolean): { body: Uint8Array; ends: readonly number[] } | undefined {
    if (group.ticket !== undefined) return collectPages(group.ticket, wait);
    if (this.codec === 'UNCOMPRESSED') return group;
    return compressPages(this.codec as PageCodec, group.body, group.ends);
  }

  private writeGroup(group: EncodedGroup, stored: { body: Uint8Array; ends: readonly number[] }): void {
    const start = this.out.offset;
    const columns: ColumnChunk[] = [];
    let groupUncompressed = 0n;
    let page = 0;
    for (const chunk of group.chunks) {
      const chunkStart = this.out.offset;
      let uncompressed = 0;
      let dataOffset = BigInt(chunkStart);
      for (let i = 0; i < chunk.pages.length; i++, page++) {
        if (i === 1 && chunk.dictionary) dataOffset = BigInt(this.out.offset);
        const rawStart = page === 0 ? 0 : group.ends[page - 1];
        const storedStart = page === 0 ? 0 : stored.ends[page - 1];
        const rawSize = group.ends[page] - rawStart;
        const bytes = stored.body.subarray(storedStart, stored.ends[page]);
        const headerStart = this.out.offset;
        writePageHeader(this.out, {
          ...chunk.pages[i].header,
          uncompressed_page_size: rawSize,
          compressed_page_size: bytes.length,
        });
        uncompressed += this.out.offset - headerStart + rawSize;
        this.out.appendBytes(bytes);
      }
      groupUncompressed += BigInt(uncompressed);
      columns.push({
        file_offset: BigInt(chunkStart),
        meta_data: {
          ...chunk.meta,
          codec: this.codec,
          total_uncompressed_size: BigInt(uncompressed),
          total_compressed_size: BigInt(this.out.offset - chunkStart),
          data_page_offset: dataOffset,
          dictionary_page_offset: chunk.dictionary ? BigInt(chunkStart) : undefined,
        },
      });
    }
    this.rowGroups.push({
      columns,
      total_byte_size: groupUncompressed,
      num_rows: BigInt(group.rows),
      file_offset: BigInt(start),
      total_compressed_size: BigInt(this.out.offset - start),
    });
  }

  take(): Uint8Array | undefined {
    this.writeDone(Number.POSITIVE_INFINITY);
    return takeWritten(this.out);
  }

  finish(): Uint8Array | undefined {
    this.endRowGroup();
    this.writeDone(0);
    writeMetadata(this.out, {
      version: 1,
      created_by: 'Tideway',
      schema: this.schema,
      num_rows: this.totalRows,
      row_groups: this.rowGroups,
      metadata_length: 0,
    });
    this.out.appendUint32(MAGIC);
    return takeWritten(this.out);
  }
}

/** Appends the pages of one column chunk (dictionary page first, if any) to `body`. */
function encodeChunk(b: ColumnBuilder, body: ByteWriter): EncodedChunk {
  const pages: EncodedPage[] = [];
  const dict = b instanceof ByteArrayBuilder ? b.dictionary() : undefined;
  if (dict !== undefined) {
    body.appendBytes(dict.entries);
    pages.push({
      header: { type: 'DICTIONARY_PAGE', dictionary_page_header: { num_values: dict.size, encoding: 'PLAIN' } },
      end: body.index,
    });
  }
  const encoding: Encoding = dict !== undefined ? 'RLE_DICTIONARY' : 'PLAIN';
  const bitWidth = dict !== undefined ? Math.max(1, 32 - Math.clz32(dict.size - 1)) : 0;
  const count = Math.max(1, Math.ceil(b.bytes() / PAGE_BYTES));
  const rowsPerPage = Math.ceil(b.rows / count);
  let v0 = 0;
  for (let r0 = 0; r0 < b.rows; r0 += rowsPerPage) {
    const r1 = Math.min(b.rows, r0 + rowsPerPage);
    const defs = b.defs.subarray(r0, r1);
    let present = 0;
    for (let i = 0; i < defs.length; i++) present += defs[i];
    const v1 = v0 + present;
    // definition levels (4-byte length, RLE/bit-packed, width 1), then the values
    const lengthAt = body.index;
    body.appendUint32(0);
    const defBytes = writeRleBitPackedHybrid(body, defs, 1);
    body.view.setUint32(lengthAt, defBytes, true);
    if (dict !== undefined) {
      body.appendUint8(bitWidth);
      writeRleBitPackedHybrid(body, (b as ByteArrayBuilder).dictionaryIndices(v0, v1), bitWidth);
    } else body.appendBytes(b.plain(v0, v1));
    pages.push({
      header: {
        type: 'DATA_PAGE',
        data_page_header: { num_values: r1 - r0, encoding, definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
      },
      end: body.index,
    });
    v0 = v1;
  }
  const element = b.element;
  return {
    pages,
    dictionary: dict !== undefined,
    meta: {
      type: element.type!,
      encodings: dict !== undefined ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
      path_in_schema: [element.name],
      num_values: BigInt(b.rows),
      statistics: { null_count: BigInt(b.rows - b.count), ...b.statistics() },
    },
  };
}
