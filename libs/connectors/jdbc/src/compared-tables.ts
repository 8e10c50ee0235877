import type { JdbcConnection, TableRef } from './jdbc-connection.js';

/**
 * One table a source reads or a sink writes, as `tideway verify` compares it: where it lives,
 * which columns hold the input table's fields and which of them form the key.
 */
export interface ComparedTable {
  /** The input table's id (the source's table id; the sink's input table). */
  readonly tableId: string;
  readonly ref: TableRef;
  /** Column names in the order of the input table's fields. */
  readonly columns: readonly string[];
  /** Key column names (a subset of `columns`); empty when neither side knows a key. */
  readonly keyColumns: readonly string[];
}

/**
 * A plugin whose tables `tideway verify` can read: a session on its database and the tables.
 * Implemented by the Jdbc source and sink and by the CDC sources.
 */
export interface ComparableTables {
  openComparisonSession(): Promise<JdbcConnection>;
  /** The tables, or one sentence saying why this configuration cannot be compared. */
  comparedTables(): ComparedTable[] | string;
}

/** Whether a plugin instance offers its tables for comparison. */
export function isComparable(x: unknown): x is ComparableTables {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as ComparableTables).comparedTables === 'function' &&
    typeof (x as ComparableTables).openComparisonSession === 'function'
  );
}
