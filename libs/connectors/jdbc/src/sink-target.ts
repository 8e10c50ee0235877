import type { CatalogTable, DataType } from '@tideway/api';
import { ConfigError, ErrorCode, type Place } from '@tideway/common';
import type { TableRef } from './jdbc-connection.js';
import type { DialectName } from './jdbc-url.js';
import type { FieldIde, SinkConfig } from './sink-options.js';
import { resolveTableRef } from './table-ref.js';

/** Where and how one input table is written. */
export interface SinkTarget {
  readonly input: CatalogTable;
  /** Undefined in query mode. */
  readonly ref?: TableRef;
  /** Target column names, in input field order (field_ide applied). */
  readonly columns: readonly string[];
  readonly types: readonly DataType[];
  /** Indexes (into the input row) of the key columns; empty without keys. */
  readonly keyIndexes: readonly number[];
}

function applyIde(name: string, ide: FieldIde): string {
  return ide === 'UPPERCASE' ? name.toUpperCase() : ide === 'LOWERCASE' ? name.toLowerCase() : name;
}

/** Replaces SeaTunnel's ${database_name}, ${schema_name}, ${table_name} with the input table's. */
function substitute(text: string, input: CatalogTable): string {
  return text
    .replace(/\$\{database_name\}/g, input.path.database ?? '')
    .replace(/\$\{schema_name\}/g, input.path.schema ?? '')
    .replace(/\$\{table_name\}/g, input.path.table);
}

/** Resolves the target table, columns and keys for an input table. */
export function sinkTarget(cfg: SinkConfig, dialect: DialectName, input: CatalogTable, place: Place): SinkTarget {
  const columns = input.columns.map((c) => applyIde(c.name, cfg.fieldIde));
  const types = input.columns.map((c) => c.type);
  if (cfg.table === undefined) return { input, columns, types, keyIndexes: [] };
  const database = cfg.database !== undefined ? substitute(cfg.database, input) : cfg.connection.target.database;
  // As SeaTunnel's sink factory: prefix and suffix wrap the table template's last part before
  // ${table_name} is replaced, and schema replaces the part before it.
  const parts = cfg.table.split('.');
  const name = `${cfg.tablePrefix}${parts[parts.length - 1]}${cfg.tableSuffix}`;
  const schemaPart = cfg.schema ?? (parts.length > 1 ? parts[parts.length - 2] : undefined);
  const substituted = substitute(schemaPart === undefined ? name : `${schemaPart}.${name}`, input);
  // field_ide changes the table's own name, not the database or schema it lives in.
  const dot = substituted.lastIndexOf('.');
  const tableText =
    dot < 0 ? applyIde(substituted, cfg.fieldIde) : `${substituted.slice(0, dot + 1)}${applyIde(substituted.slice(dot + 1), cfg.fieldIde)}`;
  let ref: TableRef;
  if (dialect === 'postgresql') {
    const parts = tableText.split('.');
    ref = resolveTableRef('postgresql', parts.length === 1 ? `public.${tableText}` : tableText, database, place);
  } else if (dialect === 'firebird') {
    ref = resolveTableRef('firebird', tableText, database, place);
    if (Buffer.byteLength(ref.table) > 31) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `table name '${ref.table}' (for ${input.tableId}) is ${Buffer.byteLength(ref.table)} bytes long; Firebird 3 names hold at most 31`,
        { place },
      );
    }
  } else {
    ref = tableText.includes('.')
      ? resolveTableRef('mysql', tableText, database, place)
      : resolveTableRef('mysql', `${database}.${tableText}`, database, place);
  }
  let keys = cfg.primaryKeys ?? [];
  if (keys.length === 1 && keys[0] === '${primary_key}') keys = input.primaryKey?.columns ?? [];
  const keyIndexes = keys.map((k) => {
    const i = input.columns.findIndex((c) => c.name === k || applyIde(c.name, cfg.fieldIde) === k);
    if (i < 0) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `primary_keys names '${k}', which is not a field of ${input.tableId} (fields: ${input.columns.map((c) => c.name).join(', ')})`,
        {
          place,
        },
      );
    }
    return i;
  });
  return { input, ref, columns, types, keyIndexes };
}
