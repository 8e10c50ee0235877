import { newCatalogTable, type CatalogTable, type DataType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { externalError } from './db-errors.js';
import type { JdbcConnection, ResultColumn, TableRef } from './jdbc-connection.js';
import { bareQuery } from './sql-text.js';
import type { SourceConfig, SourceTableConfig } from './source-options.js';
import { resolveTableRef, tablePathOf } from './table-ref.js';
import { UnsupportedColumnType } from './unsupported-type.js';

/** A table the source reads: its schema and the SQL whose rows it is. */
export interface SourceTable {
  readonly catalog: CatalogTable;
  /** SQL of all the table's rows (table or query, with where_condition). */
  readonly query: string;
  /** Numeric column to split by (partition_column, or a numeric primary key column of a table_path). */
  readonly splitKey?: { readonly name: string; readonly type: DataType; readonly nullable: boolean; readonly explicit: boolean };
  /** A one-column primary key: splits read in its order and resume after the last key read. */
  readonly resumeKey?: string;
  /** The table read, when the source names one (table_path). */
  readonly ref?: TableRef;
  readonly config: SourceTableConfig;
}

const NUMERIC = new Set(['tinyint', 'smallint', 'int', 'bigint', 'decimal', 'float', 'double']);

/** Whether a type can split a table into numeric ranges. */
export function isNumericType(t: DataType): boolean {
  return NUMERIC.has(t.kind);
}

const DEFAULT_PATH = { database: 'default', schema: 'default', table: 'default' };

/** Reads the schema of every configured table from the database. */
export async function discoverTables(conn: JdbcConnection, cfg: SourceConfig): Promise<SourceTable[]> {
  const out: SourceTable[] = [];
  for (const t of cfg.tables) {
    const ref: TableRef | undefined =
      t.tablePath !== undefined ? resolveTableRef(conn.dialect, t.tablePath, cfg.connection.target.database, t.place) : undefined;
    const base = t.query ?? `SELECT * FROM ${conn.tableSql(ref!)}`;
    const query = cfg.whereCondition ? `SELECT * FROM (${bareQuery(base)}) tw_where ${cfg.whereCondition}` : base;
    let columns: ResultColumn[];
    let pk: string[] = [];
    const what = ref ? `reading the columns of table ${t.tablePath}` : `reading the columns of query '${t.query}'`;
    try {
      if (ref && !(await conn.tableExists(ref))) {
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table ${t.tablePath} does not exist`, { place: t.place });
      }
      columns = await conn.describe(query);
      if (ref) pk = await conn.primaryKey(ref);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      if (err instanceof UnsupportedColumnType) throw new UnsupportedColumnType(err.column, err.nativeType, err.database, t.place, what);
      throw externalError(what, err, t.place);
    }
    const names = new Set(columns.map((c) => c.name));
    pk = pk.every((k) => names.has(k)) ? pk : [];
    const path = ref ? tablePathOf(ref) : columns[0]?.origin ? tablePathOf(columns[0].origin) : DEFAULT_PATH;
    const catalog = newCatalogTable(
      path,
      columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })),
      { catalogName: conn.dialect, ...(pk.length > 0 ? { primaryKey: { name: 'PRIMARY', columns: pk } } : {}) },
    );
    let splitKey: SourceTable['splitKey'];
    if (t.partitionColumn !== undefined) {
      const col = columns.find((c) => c.name === t.partitionColumn);
      if (!col) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `partition_column '${t.partitionColumn}' is not a column of ${t.tablePath ?? 'the query'} (columns: ${[...names].join(', ')})`,
          { place: t.place },
        );
      }
      if (!isNumericType(col.type) && col.type.kind !== 'string') {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `partition_column '${col.name}' is ${col.nativeType}; only numeric and text columns can split the reading`,
          { place: t.place },
        );
      }
      splitKey = { name: col.name, type: col.type, nullable: col.nullable, explicit: true };
    } else if (ref) {
      const col = pk.map((k) => columns.find((c) => c.name === k)!).find((c) => isNumericType(c.type));
      if (col) splitKey = { name: col.name, type: col.type, nullable: col.nullable, explicit: false };
    }
    out.push({ catalog, query, splitKey, resumeKey: pk.length === 1 ? pk[0] : undefined, ...(ref ? { ref } : {}), config: t });
  }
  const ids = new Set<string>();
  for (const t of out) {
    if (ids.has(t.catalog.tableId)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table ${t.catalog.tableId} is read twice; every table_list entry must name a different table`,
        { place: t.config.place },
      );
    }
    ids.add(t.catalog.tableId);
  }
  return out;
}
