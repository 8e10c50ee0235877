/** SeaTunnel's Postgres-CDC source: snapshot chunks, then logical replication (pgoutput). */
export { postgresCdcSourceFactory, PgCdcSource } from './pg-cdc-source.js';
export { PG_CDC_SPEC, compilePgCdcOptions, type PgCdcConfig } from './pg-cdc-options.js';
export type { PgWatermark } from './pg-dialect.js';
export { parseLsn, formatLsn } from './lsn.js';
