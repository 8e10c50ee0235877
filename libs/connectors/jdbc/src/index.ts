/**
 * SeaTunnel's Jdbc connector for PostgreSQL and MySQL/MariaDB: `jdbcSourceFactory`,
 * `jdbcSinkFactory`, and the pieces other connectors (CDC) may reuse.
 */
export { jdbcSourceFactory, JdbcSource } from './jdbc-source.js';
export { jdbcSinkFactory, JdbcSink } from './jdbc-sink.js';
export { parseJdbcUrl, checkDriver, type JdbcTarget, type DialectName } from './jdbc-url.js';
export { connectionSettings, type ConnectionSettings } from './connection-settings.js';
export { openConnection } from './open-connection.js';
export type { JdbcConnection, ResultColumn, TableRef, RowBatchStream } from './jdbc-connection.js';
export type { JdbcSplit } from './jdbc-split.js';
export type { JdbcEnumeratorState } from './split-enumerator.js';
export type { JdbcCommitInfo } from './xa-transactions.js';
export type { JdbcWriterState } from './sink-writer.js';
export { UnsupportedColumnType } from './unsupported-type.js';
// Also used by the CDC connectors (Postgres-CDC, MySQL-CDC). Types only: openConnection loads
// the driver of the dialect a job uses, not both.
export type { PgConnection } from './pg-connection.js';
export type { MySqlConnection } from './mysql-connection.js';
export { resolveTableRef, tablePathOf } from './table-ref.js';
export { externalError, describeDbError } from './db-errors.js';
export type { ValueDecoder } from './value-codec.js';
export { isComparable, type ComparableTables, type ComparedTable } from './compared-tables.js';
// Type mappings the CDC connectors reuse for columns a schema change adds (no driver loaded).
export { mysqlColumnReading, MySqlType, type MySqlFieldMeta } from './mysql-types.js';
// The PostgreSQL source's reading of COPY text (its column types and row parser), which
// bench/parquet.ts feeds PostgreSQL's own output to make rows as this source hands them.
export { pgColumnReading, type PgTypeInfo, type PgColumnReading } from './pg-types.js';
export { CopyTextRowParser } from './pg-copy-text.js';
