import type { DataType } from './types.js';

/** SeaTunnel's row kinds: insert, update-before, update-after, delete. */
export const RowKind = {
  INSERT: '+I',
  UPDATE_BEFORE: '-U',
  UPDATE_AFTER: '+U',
  DELETE: '-D',
} as const;
export type RowKind = (typeof RowKind)[keyof typeof RowKind];

const ROW_KIND_BY_NAME: Record<string, RowKind> = {
  INSERT: '+I',
  UPDATE_BEFORE: '-U',
  UPDATE_AFTER: '+U',
  DELETE: '-D',
  '+I': '+I',
  '-U': '-U',
  '+U': '+U',
  '-D': '-D',
};

/** Parses `INSERT`/`+I` etc. (case-insensitive for names); undefined when unknown. */
export function parseRowKind(text: string): RowKind | undefined {
  return ROW_KIND_BY_NAME[text.toUpperCase()] ?? ROW_KIND_BY_NAME[text];
}

/** The long name SeaTunnel prints: INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE. */
export function rowKindName(kind: RowKind): string {
  switch (kind) {
    case '+I':
      return 'INSERT';
    case '-U':
      return 'UPDATE_BEFORE';
    case '+U':
      return 'UPDATE_AFTER';
    case '-D':
      return 'DELETE';
  }
}

/**
 * One record. `fields` are positional against the CatalogTable named by `tableId`.
 * Rows move in batches (Row[]); a stage may reuse nothing it has emitted.
 */
export interface Row {
  kind: RowKind;
  tableId: string;
  fields: unknown[];
  /**
   * Optional: where the change stands in its source's log, as a 64-bit number that never
   * decreases along the log (PostgreSQL-CDC: the transaction's commit LSN; MySQL-CDC: the binlog
   * file's sequence number and the transaction's offset in it, `seq * 2^32 + offset`). The
   * changes of one transaction share it. Sinks that can refuse a write older than what they hold
   * use it (the Elasticsearch sink's external versions), so a retried or replayed write cannot
   * overwrite a newer one. Absent for rows that are not read from such a log (batch sources,
   * CDC snapshot rows); transforms that build new rows drop it.
   */
  version?: bigint;
}

/** Where a table lives: SeaTunnel's TablePath (database.schema.table, schema optional). */
export interface TablePath {
  database?: string;
  schema?: string;
  table: string;
}

export function formatTablePath(p: TablePath): string {
  return [p.database, p.schema, p.table].filter((s) => s !== undefined && s !== '').join('.');
}

/** Parses `db.table` or `db.schema.table` (or a bare `table`). */
export function parseTablePath(text: string): TablePath {
  const parts = text.split('.');
  if (parts.length >= 3) return { database: parts[0], schema: parts.slice(1, -1).join('.'), table: parts[parts.length - 1] };
  if (parts.length === 2) return { database: parts[0], table: parts[1] };
  return { table: text };
}

export interface Column {
  name: string;
  type: DataType;
  nullable: boolean;
  defaultValue?: unknown;
  comment?: string;
}

export interface PrimaryKey {
  name: string;
  columns: string[];
}

export interface ConstraintKey {
  name: string;
  type: 'UNIQUE_KEY' | 'INDEX_KEY' | 'FOREIGN_KEY';
  columns: string[];
}

/**
 * The schema of one table flowing through a job. `tableId` is what rows carry; for a
 * single-table stream it is the formatted TablePath.
 */
export interface CatalogTable {
  tableId: string;
  catalogName?: string;
  path: TablePath;
  columns: Column[];
  primaryKey?: PrimaryKey;
  constraintKeys?: ConstraintKey[];
  options?: Record<string, string>;
  partitionKeys?: string[];
  comment?: string;
}

export function columnIndex(table: CatalogTable, name: string): number {
  return table.columns.findIndex((c) => c.name === name);
}

export function newCatalogTable(path: TablePath, columns: Column[], extra: Partial<CatalogTable> = {}): CatalogTable {
  return { tableId: formatTablePath(path), path, columns, ...extra };
}
