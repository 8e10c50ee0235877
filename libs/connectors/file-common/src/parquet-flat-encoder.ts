import type { Column } from '@tideway/api';
import type { ColumnChunk, CompressionCodec, Encoding, RowGroup, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import type { FileEncoder } from './file-encoder.js';
import { ByteArrayBuilder } from './parquet-byte-array-builder.js';
import type { ColumnBuilder } from './parquet-column-builder.js';
import { columnBuilderOf } from './parquet-column-builders.js';
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

/** A page compressor; what it returns need only stay valid until its next call. */
export type Compressor = (input: Uint8Array) => Uint8Array;

/**
 * Tideway's own Parquet writer for flat schemas (every column a primitive type): values go into
 * column buffers as rows arrive (parquet-column-builders.ts) and, once the row group's buffered
 * data reaches `rowGroupBytes`, each column becomes one chunk of data pages v1 (definition levels
 * RLE/bit-packed, values PLAIN, or RLE_DICTIONARY for strings while their dictionary stays small),
 * compressed page by page, with min/max/null_count statistics. Page headers and the footer are
 * hyparquet-writer's Thrift writers. `take` hands over the bytes encoded so far.
 */
export class FlatParquetEncoder implements FileEncoder {
  private readonly out = new ByteWriter(1 << 16);
  private readonly page = new ByteWriter(1 << 16);
  private readonly schema: SchemaElement[];
  private readonly builders: ColumnBuilder[];
  private readonly strings: ByteArrayBuilder[];
  private readonly rowGroups: RowGroup[] = [];
  private rows = 0;
  private totalRows = 0n;
  private nextCheck = 1;

  constructor(
    columns: readonly Column[],
    private readonly codec: CompressionCodec,
    private readonly compress: Compressor | undefined,
    private readonly rowGroupBytes: number,
  ) {
    this.schema = parquetSchemaOf(columns);
    this.builders = columns.map((c, i) => {
      const b = columnBuilderOf(c.type, this.schema[i + 1]!);
      if (b === undefined) throw new Error(`column ${c.name} is not flat`); // the caller checked flatSchema
      return b;
    });
    this.strings = this.builders.filter((b): b is ByteArrayBuilder => b instanceof ByteArrayBuilder);
    this.out.appendUint32(MAGIC);
  }

  add(fields: readonly unknown[]): void {
    const b = this.builders;
    for (let i = 0; i < b.length; i++) b[i]!.add(fields[i]);
    this.rows++;
    if (this.rows >= this.nextCheck) this.checkSize();
  }

  /** Writes the row group once its buffered bytes reach the limit, else sets when to look again. */
  private checkSize(): void {
    let bytes = this.rows * this.builders.length; // definition levels
    for (const b of this.builders) bytes += b.bytes();
    if (bytes >= this.rowGroupBytes) return this.writeRowGroup();
    // look again about halfway to the limit at the rate seen so far
    this.nextCheck = this.rows + Math.max(1, Math.floor(((this.rowGroupBytes - bytes) * this.rows) / bytes / 2));
  }

  private writeRowGroup(): void {
    if (this.rows === 0) return;
    const start = this.out.offset;
    const columns: ColumnChunk[] = [];
    let uncompressed = 0n;
    for (const b of this.builders) {
      const chunk = this.writeChunk(b);
      uncompressed += chunk.meta_data!.total_uncompressed_size;
      columns.push(chunk);
      b.reset();
    }
    this.rowGroups.push({
      columns,
      total_byte_size: uncompressed,
      num_rows: BigInt(this.rows),
      file_offset: BigInt(start),
      total_compressed_size: BigInt(this.out.offset - start),
    });
    this.totalRows += BigInt(this.rows);
    this.rows = 0;
    this.nextCheck = 1;
  }

  private writeChunk(b: ColumnBuilder): ColumnChunk {
    const start = this.out.offset;
    let uncompressed = 0;
    const dict = b instanceof ByteArrayBuilder ? b.dictionary() : undefined;
    let dictionaryOffset: bigint | undefined;
    if (dict !== undefined) {
      dictionaryOffset = BigInt(start);
      this.page.index = 0;
      this.page.offset = 0;
      this.page.appendBytes(dict.entries);
      uncompressed += this.writePage({
        type: 'DICTIONARY_PAGE',
        dictionary_page_header: { num_values: dict.size, encoding: 'PLAIN' },
      });
    }
    const dataOffset = BigInt(this.out.offset);
    const encoding: Encoding = dict !== undefined ? 'RLE_DICTIONARY' : 'PLAIN';
    const bitWidth = dict !== undefined ? Math.max(1, 32 - Math.clz32(dict.size - 1)) : 0;
    const pages = Math.max(1, Math.ceil(b.bytes() / PAGE_BYTES));
    const rowsPerPage = Math.ceil(b.rows / pages);
    let v0 = 0;
    for (let r0 = 0; r0 < b.rows; r0 += rowsPerPage) {
      const r1 = Math.min(b.rows, r0 + rowsPerPage);
      const defs = b.defs.subarray(r0, r1);
      let present = 0;
      for (let i = 0; i < defs.length; i++) present += defs[i]!;
      const v1 = v0 + present;
      // body: definition levels (4-byte length, RLE/bit-packed, width 1), then the values
      const p = this.page;
      p.index = 0;
      p.offset = 0;
      p.appendUint32(0);
      const defBytes = writeRleBitPackedHybrid(p, defs, 1);
      p.view.setUint32(0, defBytes, true);
      if (dict !== undefined) {
        p.appendUint8(bitWidth);
        writeRleBitPackedHybrid(p, (b as ByteArrayBuilder).dictionaryIndices(v0, v1), bitWidth);
      } else p.appendBytes(b.plain(v0, v1));
      uncompressed += this.writePage({
        type: 'DATA_PAGE',
        data_page_header: {
          num_values: r1 - r0,
          encoding,
          definition_level_encoding: 'RLE',
          repetition_level_encoding: 'RLE',
        },
      });
      v0 = v1;
    }
    const element = b.element;
    return {
      file_offset: BigInt(start),
      meta_data: {
        type: element.type!,
        encodings: dict !== undefined ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
        path_in_schema: [element.name],
        codec: this.codec,
        num_values: BigInt(b.rows),
        total_uncompressed_size: BigInt(uncompressed),
        total_compressed_size: BigInt(this.out.offset - start),
        data_page_offset: dataOffset,
        dictionary_page_offset: dictionaryOffset,
        statistics: { null_count: BigInt(b.rows - b.count), ...b.statistics() },
      },
    };
  }

  /** Compresses the page body in `this.page` and writes it with its header; returns its uncompressed size with the header. */
  private writePage(header: {
    type: 'DATA_PAGE' | 'DICTIONARY_PAGE';
    data_page_header?: {
      num_values: number;
      encoding: Encoding;
      definition_level_encoding: Encoding;
      repetition_level_encoding: Encoding;
    };
    dictionary_page_header?: { num_values: number; encoding: Encoding };
  }): number {
    const body = this.page.getBytes();
    const stored = this.compress ? this.compress(body) : body;
    const headerStart = this.out.offset;
    writePageHeader(this.out, { ...header, uncompressed_page_size: body.length, compressed_page_size: stored.length });
    const headerBytes = this.out.offset - headerStart;
    this.out.appendBytes(stored);
    return headerBytes + body.length;
  }

  take(): Uint8Array | undefined {
    return takeWritten(this.out);
  }

  finish(): Uint8Array | undefined {
    this.writeRowGroup();
    writeMetadata(this.out, {
      version: 1,
      created_by: 'Tideway',
      schema: this.schema,
      num_rows: this.totalRows,
      row_groups: this.rowGroups,
      metadata_length: 0,
    });
    this.out.appendUint32(MAGIC);
    return this.take();
  }
}
