import { newCatalogTable, type CatalogTable, type Column, type TablePath } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError, type Place } from '@tideway/common';
import type { TableOverride } from './cdc-options.js';

/** The few session calls discovery needs (the Jdbc connector's sessions have them). */
export interface SchemaSession<R, C extends Column> {
  tableExists(ref: R): Promise<boolean>;
  tableSql(ref: R): string;
  describe(sql: string): Promise<C[]>;
  primaryKey(ref: R): Promise<string[]>;
}

/** A table the source captures: where it lives, its schema, how its values decode, its chunk key. */
export interface CapturedTable<R, C extends Column> {
  readonly ref: R;
  readonly catalog: CatalogTable;
  readonly columns: readonly C[];
  /** The integer column the snapshot is chunked by, if any. */
  readonly chunkKey?: string;
}

const INTEGER_KINDS = new Set(['tinyint', 'smallint', 'int', 'bigint']);

/**
 * Reads every captured table's columns and primary key (or table-names-config's primaryKeys);
 * a missing table or a configured column the table lacks is a ConfigError.
 */
export async function discoverCapturedTables<R, C extends Column>(
  session: SchemaSession<R, C>,
  tables: readonly { readonly ref: R; readonly text: string; readonly path: TablePath }[],
  overrides: ReadonlyMap<string, TableOverride>,
  catalogName: string,
  place: Place,
  wrap: (what: string, err: unknown) => Error,
): Promise<CapturedTable<R, C>[]> {
  const out: CapturedTable<R, C>[] = [];
  for (const { ref, text, path } of tables) {
    try {
      if (!(await session.tableExists(ref))) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table ${text} does not exist`, { place });
      const columns = await session.describe(`SELECT * FROM ${session.tableSql(ref)}`);
      const override = overrides.get(text);
      const pk = override?.primaryKeys ? [...override.primaryKeys] : await session.primaryKey(ref);
      for (const k of [...pk, ...(override?.snapshotSplitColumn ? [override.snapshotSplitColumn] : [])]) {
        if (!columns.some((c) => c.name === k)) {
          throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table-names-config names column '${k}', which table ${text} does not have`, {
            place,
          });
        }
      }
      const catalog = newCatalogTable(
        path,
        columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })),
        { catalogName, ...(pk.length > 0 ? { primaryKey: { name: 'PRIMARY', columns: pk } } : {}) },
      );
      const keyName = override?.snapshotSplitColumn ?? (pk.length === 1 ? pk[0] : undefined);
      const key = columns.find((c) => c.name === keyName);
      out.push({ ref, catalog, columns, chunkKey: key && INTEGER_KINDS.has(key.type.kind) ? key.name : undefined });
    } catch (err) {
      throw err instanceof TidewayError ? err : wrap(`reading the columns of table ${text}`, err);
    }
  }
  return out;
}

/** The captured tables as `tideway verify` compares them (whole tables, by their key). */
export function comparedCapturedTables<R, C extends Column>(
  tables: readonly CapturedTable<R, C>[] | undefined,
): Array<{ tableId: string; ref: R; columns: string[]; keyColumns: readonly string[] }> {
  return (tables ?? []).map((t) => ({
    tableId: t.catalog.tableId,
    ref: t.ref,
    columns: t.catalog.columns.map((c) => c.name),
    keyColumns: t.catalog.primaryKey?.columns ?? [],
  }));
}
