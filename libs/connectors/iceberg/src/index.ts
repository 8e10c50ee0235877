export { icebergSinkFactory } from './sink.js';
export { ICEBERG_SINK_SPEC } from './options.js';
export { HadoopCatalog } from './hadoop-catalog.js';
export { SqlCatalog, pgConfigOf } from './sql-catalog.js';
export { RestCatalog } from './rest-catalog.js';
export { FileIO, type IcebergFileIO, localPathOf, S3_FILE_IO_KEYS } from './file-io.js';
export { CommitConflict, type IcebergCatalog, type LoadedTable, type TableIdent } from './catalog.js';
export { parseMetadataJson, stringifyMetadata, type TableMetadata } from './metadata.js';
export { readAvroFile } from './avro.js';
export { JOB_ID_PROPERTY, MAX_CHECKPOINT_PROPERTY, COMMIT_ATTEMPTS } from './committer.js';
export { icebergSourceFactory, type IcebergSplit, type IcebergEnumeratorState } from './source.js';
export { ICEBERG_SOURCE_SPEC } from './source-options.js';
export { scanCounters } from './scan.js';
export {
  cutoffOf,
  DEFAULT_MIN_INPUT_FILES,
  DEFAULT_ORPHAN_AGE_MS,
  durationMs,
  expireSnapshots,
  removeOrphanFiles,
  rewriteDataFiles,
  type ExpireResult,
  type OrphanResult,
  type RewriteResult,
} from './maintenance.js';
export { openCatalog, catalogConfigProblem } from './options.js';
export { formatIdent } from './catalog.js';
export { currentSnapshotRows } from './table-rows.js';
