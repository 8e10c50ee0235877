import type { CatalogTable, Column, ConstraintKey, PluginOptions, PrimaryKey } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { tableName } from './multi-table-transform.js';

/**
 * The index of column `name` in `table`; a ConfigError naming the option, the table and its
 * columns when there is none.
 */
export function requireColumn(pluginName: string, table: CatalogTable, name: string, options: PluginOptions, optionName: string): number {
  const index = table.columns.findIndex((c) => c.name === name);
  if (index < 0) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${pluginName}: field '${name}' in option '${optionName}' is not a column of table '${tableName(table)}' (columns: ${table.columns.map((c) => c.name).join(', ')})`,
      { place: options.place(optionName) },
    );
  }
  return index;
}

/** The input's primary key and constraint keys whose columns all survive in `kept`, renamed by `rename`. */
export function keysWithin(
  input: CatalogTable,
  kept: ReadonlySet<string>,
  rename: (name: string) => string = (n) => n,
): { primaryKey?: PrimaryKey; constraintKeys?: ConstraintKey[] } {
  const result: { primaryKey?: PrimaryKey; constraintKeys?: ConstraintKey[] } = {};
  const pk = input.primaryKey;
  if (pk !== undefined && pk.columns.every((c) => kept.has(c))) result.primaryKey = { name: pk.name, columns: pk.columns.map(rename) };
  if (input.constraintKeys !== undefined) {
    result.constraintKeys = input.constraintKeys
      .filter((k) => k.columns.every((c) => kept.has(c)))
      .map((k) => ({ name: k.name, type: k.type, columns: k.columns.map(rename) }));
  }
  return result;
}

/**
 * The output table of a transform: same identity and table options as the input, new columns,
 * and the keys given (none when omitted).
 */
export function deriveTable(
  input: CatalogTable,
  columns: Column[],
  keys: { primaryKey?: PrimaryKey; constraintKeys?: ConstraintKey[] },
): CatalogTable {
  const out: CatalogTable = { tableId: input.tableId, path: { ...input.path }, columns };
  if (input.catalogName !== undefined) out.catalogName = input.catalogName;
  if (keys.primaryKey !== undefined) out.primaryKey = keys.primaryKey;
  if (keys.constraintKeys !== undefined) out.constraintKeys = keys.constraintKeys;
  if (input.options !== undefined) out.options = { ...input.options };
  if (input.partitionKeys !== undefined) out.partitionKeys = [...input.partitionKeys];
  if (input.comment !== undefined) out.comment = input.comment;
  return out;
}

/** Output columns added to a table, and where each one's value goes in the output row. */
export interface AddedColumns {
  /** The output table. */
  readonly table: CatalogTable;
  /** For each added column (in order), its index in the output row. */
  readonly targets: readonly number[];
  /** Width of the output row. */
  readonly width: number;
}

/**
 * Adds columns to a table the way SeaTunnel's field-output transforms do: a column whose name
 * already exists replaces that column in place (taking the new type), any other is appended.
 * Keys of the input are kept.
 */
export function addColumns(input: CatalogTable, added: readonly Column[]): AddedColumns {
  const columns = input.columns.map((c) => ({ ...c }));
  const targets: number[] = [];
  for (const column of added) {
    const existing = columns.findIndex((c) => c.name === column.name);
    if (existing >= 0) {
      columns[existing] = { ...columns[existing], type: column.type, nullable: column.nullable };
      targets.push(existing);
    } else {
      targets.push(columns.length);
      columns.push({ ...column });
    }
  }
  const keys = keysWithin(input, new Set(columns.map((c) => c.name)));
  return { table: deriveTable(input, columns, keys), targets, width: columns.length };
}
