import { newCatalogTable } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { externalError, openConnection, tablePathOf, type JdbcConnection, type PgConnection } from '@tideway/connector-jdbc';
import { withRetries } from '@tideway/connector-cdc-common';
import type { CapturedTable } from './captured-table.js';
import type { PgCdcConfig } from './pg-cdc-options.js';

const INTEGER_KINDS = new Set(['tinyint', 'smallint', 'int', 'bigint']);

/** Opens a session (retrying refused or dropped connections connect.max-retries times). */
export async function connectPg(cfg: PgCdcConfig): Promise<PgConnection> {
  return (await withRetries(cfg.connectRetries, () => openConnection(cfg.settings, cfg.place), (e) => e instanceof TidewayError && e.retryable)) as PgConnection;
}

/** Reads every captured table's columns and key; a missing table or key column is a ConfigError. */
export async function discoverPgTables(conn: JdbcConnection, cfg: PgCdcConfig): Promise<CapturedTable[]> {
  const out: CapturedTable[] = [];
  for (const ref of cfg.tables) {
    try {
      if (!(await conn.tableExists(ref))) {
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table ${ref.text} does not exist in database '${cfg.database}'`, { place: cfg.place });
      }
      const columns = await conn.describe(`SELECT * FROM ${conn.tableSql(ref)}`);
      const override = cfg.overrides.get(ref.text);
      const pk = override?.primaryKeys ? [...override.primaryKeys] : await conn.primaryKey(ref);
      for (const k of [...pk, ...(override?.snapshotSplitColumn ? [override.snapshotSplitColumn] : [])]) {
        if (!columns.some((c) => c.name === k)) {
          throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `table-names-config names column '${k}', which table ${ref.text} does not have`, { place: cfg.place });
        }
      }
      const catalog = newCatalogTable(
        tablePathOf(ref),
        columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable })),
        { catalogName: 'postgresql', ...(pk.length > 0 ? { primaryKey: { name: 'PRIMARY', columns: pk } } : {}) },
      );
      const keyName = override?.snapshotSplitColumn ?? (pk.length === 1 ? pk[0] : undefined);
      const key = columns.find((c) => c.name === keyName);
      out.push({ ref, catalog, columns, chunkKey: key && INTEGER_KINDS.has(key.type.kind) ? key.name : undefined });
    } catch (err) {
      throw err instanceof TidewayError ? err : externalError(`reading the columns of table ${ref.text}`, err, cfg.place);
    }
  }
  return out;
}
