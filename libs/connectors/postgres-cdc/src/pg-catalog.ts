import { TidewayError } from '@tideway/common';
import { externalError, openConnection, tablePathOf, type JdbcConnection, type PgConnection } from '@tideway/connector-jdbc';
import { discoverCapturedTables, matchedTableNames, withRetries } from '@tideway/connector-cdc-common';
import type { CapturedTable } from './captured-table.js';
import { pgTableRefs, type PgCdcConfig, type PgTableRef } from './pg-cdc-options.js';

/** Opens a session (retrying refused or dropped connections connect.max-retries times). */
export async function connectPg(cfg: PgCdcConfig): Promise<PgConnection> {
  return (await withRetries(
    cfg.connectRetries,
    () => openConnection(cfg.settings, cfg.place),
    (e) => e instanceof TidewayError && e.retryable,
  )) as PgConnection;
}

/** The tables of table-names, or those table-pattern / database-pattern match now. */
async function capturedRefs(conn: JdbcConnection, cfg: PgCdcConfig): Promise<readonly PgTableRef[]> {
  if (cfg.tablePattern === undefined && cfg.databasePattern === undefined) return cfg.tables;
  const names = await matchedTableNames(
    conn,
    cfg,
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\\_%'",
    (r) =>
      cfg.schemaNames === undefined || cfg.schemaNames.includes(String(r[0]))
        ? { name: `${cfg.database}.${String(r[0])}.${String(r[1])}`, database: cfg.database }
        : undefined,
    'Postgres-CDC',
    cfg.place,
    (what, err) => externalError(what, err, cfg.place),
  );
  return pgTableRefs(names, cfg.database, cfg.schemaNames, cfg.place);
}

/** Reads every captured table's columns and key (or those of `refs`: tables created while streaming). */
export async function discoverPgTables(conn: JdbcConnection, cfg: PgCdcConfig, refs?: readonly PgTableRef[]): Promise<CapturedTable[]> {
  return (await discoverCapturedTables(
    conn,
    (refs ?? (await capturedRefs(conn, cfg))).map((ref) => ({ ref, text: ref.text, path: tablePathOf(ref) })),
    cfg.overrides,
    'postgresql',
    cfg.place,
    (what, err) => externalError(what, err, cfg.place),
  )) as CapturedTable[];
}
