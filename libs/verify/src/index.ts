/**
 * `tideway verify`: compares a job's source tables with its sink tables (Jdbc and CDC sources
 * into Jdbc sinks, PostgreSQL and MySQL/MariaDB): row counts, checksums over key ranges
 * computed in each database, and the keys of the rows that differ.
 */
export { verifyJob, type VerifyOptions, type VerifyReport } from './verify-job.js';
export { formatReport } from './report.js';
export type { TableResult, KeyDifference } from './compare-table.js';
export type { CatchUp } from './catch-up.js';
