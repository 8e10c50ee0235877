/**
 * What the CDC sources (Postgres-CDC, MySQL-CDC) share: splits, chunk planning, the reader that
 * reads snapshot chunks then streams with de-duplication, the enumerator, and common options.
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
export { ListCollector, applyStrictly, pollUntil, pollWithCheckpoints, settle, snapshotThenStream } from './changelog-check.js';
export { hasChangePositions, checkpointedStreamPosition, type ChangePositions } from './change-positions.js';
