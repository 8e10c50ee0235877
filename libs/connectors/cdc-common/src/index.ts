/**
 * What the CDC sources (Postgres-CDC, MySQL-CDC) share: the Source class (CdcSource), the
 * catalog of captured tables and their chunk planning (CdcCatalog), the dialect's snapshot side
 * (JdbcCdcDialect), the change stream's reading loop (QueuedChangeStream), splits, the reader
 * that reads snapshot chunks then streams with de-duplication, the enumerator, and common
 * options. A database adds its catalog queries, its snapshot watermark and its change stream.
 */
export type { SnapshotSplit, StreamSplit, FinishedChunk, CdcSplit, ReadChunksRecord, ChunksFinishedEvent } from './cdc-splits.js';
export { isStreamSplit, isChunksFinishedEvent } from './cdc-splits.js';
export type { CdcDialect, ChangeStream, StreamItem, ChangeItem, CommitItem, ChangeTxn, ChunkRead } from './change-stream.js';
export { ChunkIndex } from './chunk-index.js';
export { planChunks, wholeTableSplit, type KeyQueries, type ChunkingOptions } from './chunk-planner.js';
export { CdcSourceReader } from './cdc-reader.js';
export { CdcSplitEnumerator, type CdcEnumeratorState } from './cdc-enumerator.js';
export {
  CDC_COMMON_OPTIONS,
  compileCdcCommon,
  matchedTableNames,
  withRetries,
  type CdcCommonConfig,
  type TableOverride,
} from './cdc-options.js';
export { discoverCapturedTables, comparedCapturedTables, type CapturedTable, type SchemaSession } from './captured-tables.js';
export {
  ListCollector,
  applyStrictly,
  chunksThenChangesAcrossRestore,
  pollUntil,
  pollWithCheckpoints,
  settle,
  snapshotThenStream,
  type RestoreScenario,
} from './changelog-check.js';
export { hasChangePositions, checkpointedStreamPosition, type ChangePositions } from './change-positions.js';
export type { TableReconciliation } from './change-stream.js';
export type { EnumeratorReconcile } from './cdc-enumerator.js';
export {
  CdcCatalog,
  bigKey,
  inCatalogOrder,
  recordOf,
  type CdcSourceConfig,
  type JdbcCapturedTable,
  type KeySql,
  type NamedTableRef,
  type SchemaRecord,
  type TrackedTableOf,
} from './cdc-catalog.js';
export { CdcSource, cdcSourceFactory } from './cdc-source.js';
export {
  COMPATIBLE_DEBEZIUM_TABLE,
  DebeziumEnvelope,
  envelopeOptions,
  type DebeziumConnector,
  type SourcePosition,
} from './debezium-envelope.js';
export { JdbcCdcDialect } from './jdbc-cdc-dialect.js';
export { QueuedChangeStream } from './queued-stream.js';
