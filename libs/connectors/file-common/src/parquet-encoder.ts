import { rowBytes, type Column } from '@tideway/api';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { snappyCompress } from 'hysnappy';
import type { FileEncoder } from './file-encoder.js';
import { ParquetFileWriter, takeWritten } from './parquet-file-writer.js';
import { compileToParquet } from './parquet-values.js';
import { parquetSchemaOf } from './parquet-schema.js';
import { PAGE_COMPRESSORS, type PageCodec } from './page-codecs.js';

/** compress_codec values the Parquet writer implements, and the codec name in the file. */
export const PARQUET_WRITE_CODECS: Record<string, 'UNCOMPRESSED' | PageCodec> = {
  none: 'UNCOMPRESSED',
  snappy: 'SNAPPY',
  gzip: 'GZIP',
  brotli: 'BROTLI',
  zstd: 'ZSTD',
  // LZ4_RAW: the format deprecates the older LZ4 codec (Hadoop's framing, read inconsistently)
  lz4: 'LZ4_RAW',
};

/**
 * A row group is written once this many bytes of its data are buffered: memory is bounded by the
 * row group, not the file. parquet-mr's default block is 128 MB of encoded data, but
 * hyparquet-writer's path holds a row group as JS values and intermediate arrays of 15-20 times
 * their estimated size (rowBytes; measured: 8 MB -> ~300 MB peak RSS for the orders bench, 16 MB
 * -> ~430 MB), so row groups are cut at 8 MB (~40,000-60,000 orders rows). The flat writer
 * counts the bytes of its column buffers, which are about what it holds.
 */
export const PARQUET_ROW_GROUP_BYTES = 8 * 1024 * 1024;

const compressors: Record<PageCodec, (input: Uint8Array) => Uint8Array> = {
  ...PAGE_COMPRESSORS, // ZSTD needs loadZstd() first
  SNAPPY: snappyCompress, // hysnappy's WebAssembly snappy, which returns a new array each time
};

/**
 * The encoder of one Parquet file: Tideway's own writer (parquet-file-writer.ts; 2-3 times less
 * CPU per row than hyparquet-writer on flat tables, decision 0023, about 5 times on nested ones,
 * decision 0036).
 */
export function newParquetEncoder(
  columns: readonly Column[],
  codec: keyof typeof compressors | 'UNCOMPRESSED',
  rowGroupBytes = PARQUET_ROW_GROUP_BYTES,
): FileEncoder {
  return new ParquetFileWriter(columns, codec, rowGroupBytes);
}

/**
 * Writes one Parquet file through hyparquet-writer in row groups of about
 * PARQUET_ROW_GROUP_BYTES; `take` hands over the bytes encoded so far. The sinks no longer use
 * it: it is the independent writer the tests compare Tideway's with (the same rows must read back
 * the same), and the bench's baseline.
 */
export class ParquetFileEncoder implements FileEncoder {
  private readonly bytes = new ByteWriter();
  private readonly writer: ParquetWriter;
  private readonly names: string[];
  private readonly convert: ((v: unknown) => unknown)[];
  private cols: unknown[][];
  private rows = 0;
  private estimated = 0;
  /** An error of a writer call that returned a promise (ours, writing to a ByteWriter, never does), thrown by take(). */
  private failure?: Error;

  constructor(
    columns: readonly Column[],
    codec: keyof typeof compressors | 'UNCOMPRESSED',
    private readonly rowGroupBytes = PARQUET_ROW_GROUP_BYTES,
  ) {
    const schema = parquetSchemaOf(columns);
    this.names = columns.map((c) => c.name.toLowerCase());
    this.convert = columns.map((c) => compileToParquet(c.type));
    this.cols = columns.map(() => []);
    this.writer = new ParquetWriter({ writer: this.bytes, schema, codec, compressors, createdBy: 'Tideway' });
  }

  add(fields: readonly unknown[]): void {
    for (let i = 0; i < this.cols.length; i++) this.cols[i].push(this.convert[i](fields[i]));
    this.estimated += rowBytes(fields) + fields.length; // + a definition level per value
    this.rows++;
    if (this.estimated >= this.rowGroupBytes) this.writeRowGroup();
  }

  private writeRowGroup(): void {
    if (this.rows === 0) return;
    const columnData = this.names.map((name, i) => ({ name, data: this.cols[i] }));
    // sync: our ByteWriter has no async flush (it throws; a rejection would be kept for take())
    Promise.resolve(this.writer.write({ columnData, rowGroupSize: this.rows })).catch((err: unknown) => this.fail(err));
    this.cols = this.names.map(() => []);
    this.rows = 0;
    this.estimated = 0;
  }

  private fail(err: unknown): void {
    this.failure ??= err instanceof Error ? err : new Error('the Parquet writer failed', { cause: err });
  }

  take(): Uint8Array | undefined {
    if (this.failure) throw this.failure;
    return takeWritten(this.bytes);
  }

  finish(): Uint8Array | undefined {
    this.writeRowGroup();
    Promise.resolve(this.writer.finish()).catch((err: unknown) => this.fail(err));
    return this.take();
  }
}
