export type { FileSystemAdapter, FileEntry, FileOutput } from './file-system.js';
export { LocalFileSystem } from './local-file-system.js';
export { FileSink } from './file-sink.js';
export { FileSinkWriter, type FileSinkWriterConfig } from './file-sink-writer.js';
export { FileAggregatedCommitter, commitTransaction, abortTransaction } from './file-committer.js';
export type { FileCommitInfo, FileAggregatedCommitInfo, FileSinkState } from './sink-types.js';
export { FileSource } from './file-source.js';
export { FileSourceReader, FILE_READ_BATCH_ROWS } from './file-source-reader.js';
export { FileSplitEnumerator, ownerOf, type FileSplit, type FileEnumeratorState } from './file-split-enumerator.js';
export { fileSinkSpec, FILE_SINK_OPTIONS, FILE_FORMATS, FORMAT_SUFFIX, type FileFormat } from './sink-options.js';
export { fileSourceSpec, FILE_SOURCE_OPTIONS } from './source-options.js';
export { compileTextLineWriter, compileTextFieldParsers, splitCsvLine, NESTED_SEPARATORS } from './text-format.js';
export { compileJsonLineWriter, compileJsonLineParser, compileJsonObjectReader, parseJsonObject } from './json-format.js';
export { javaDoubleText, javaFloatText, isoTemporalText } from './java-text.js';
export { FileNamer, compileTimePattern, substituteTablePlaceholders, substituteVariables } from './file-name.js';
export { applySaveModes, type SchemaSaveMode, type DataSaveMode } from './save-mode.js';
export { readLines } from './line-reader.js';
export { newParquetEncoder, ParquetFileEncoder, PARQUET_ROW_GROUP_BYTES } from './parquet-encoder.js';
export type { FileEncoder } from './file-encoder.js';
export { columnError, isValueError } from './file-encoder.js';
/** Starts the Parquet row-group thread and resolves once it listens: benches start it before their clock. */
export { rowGroupThreadListening } from './row-group-thread.js';
export { OrcFileWriter, ORC_STRIPE_BYTES } from './orc-writer.js';
export { readOrcTail, orcColumns, orcStripeRows, type OrcTail } from './orc-reader.js';
export { ORC_WRITE_CODECS, compressChunk, decompressChunk } from './orc-compression.js';
export { CompressionKind, type Type as OrcType } from './gen/orc_file.js';
export { loadZstd } from './zstd-lz4.js';
export { ParquetFileWriter } from './parquet-file-writer.js';
export { parquetSchemaOf, decimalByteCount } from './parquet-schema.js';
export {
  unscaledDecimal,
  unscaledBytes,
  bytesUnscaled,
  decimalText,
  timestampMicros,
  timestampText,
  timeMicros,
  dateDays,
  dateText,
} from './parquet-values.js';
export { parquetColumns, parquetRowGroupBatches } from './parquet-source.js';
export { TIDEWAY_PARSERS } from './parquet-values.js';
