export { icebergSinkFactory } from './sink.js';
export { ICEBERG_SINK_SPEC } from './options.js';
export { HadoopCatalog } from './hadoop-catalog.js';
export { SqlCatalog, pgConfigOf } from './sql-catalog.js';
export { RestCatalog } from './rest-catalog.js';
export { CommitConflict, type IcebergCatalog, type LoadedTable, type TableIdent } from './catalog.js';
export { parseMetadataJson, stringifyMetadata, type TableMetadata } from './metadata.js';
export { readAvroFile } from './avro.js';
export { JOB_ID_PROPERTY, MAX_CHECKPOINT_PROPERTY, COMMIT_ATTEMPTS } from './committer.js';
