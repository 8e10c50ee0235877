import { ErrorCode, TidewayError } from '@tideway/common';
import { discoverCapturedTables, matchedTableNames, withRetries, type CapturedTable } from '@tideway/connector-cdc-common';
import {
  externalError,
  openConnection,
  tablePathOf,
  type JdbcConnection,
  type MySqlConnection,
  type ResultColumn,
  type TableRef,
} from '@tideway/connector-jdbc';
import { mysqlTableRefs, type MySqlCdcConfig, type MySqlTableRef } from './mysql-cdc-options.js';

/** A captured MySQL/MariaDB table (its ref always names the database). */
export type MySqlCapturedTable = CapturedTable<TableRef & { database: string }, ResultColumn>;

export async function connectMySql(cfg: MySqlCdcConfig): Promise<MySqlConnection> {
  return (await withRetries(
    cfg.connectRetries,
    () => openConnection(cfg.settings, cfg.place),
    (e) => e instanceof TidewayError && e.retryable,
  )) as MySqlConnection;
}

/** The tables of table-names, or those table-pattern / database-pattern match now. */
async function capturedRefs(conn: JdbcConnection, cfg: MySqlCdcConfig): Promise<readonly MySqlTableRef[]> {
  if (cfg.tablePattern === undefined && cfg.databasePattern === undefined) return cfg.tables;
  const names = await matchedTableNames(
    conn,
    cfg,
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')",
    (r) =>
      cfg.databaseNames === undefined || cfg.databaseNames.includes(String(r[0]))
        ? { name: `${String(r[0])}.${String(r[1])}`, database: String(r[0]) }
        : undefined,
    'MySQL-CDC',
    cfg.place,
    (what, err) => externalError(what, err, cfg.place),
  );
  return mysqlTableRefs(names, undefined, cfg.databaseNames, cfg.place);
}

/** Reads every captured table's columns and key (or those of `refs`: tables created while streaming). */
export async function discoverMySqlTables(
  conn: JdbcConnection,
  cfg: MySqlCdcConfig,
  refs?: readonly MySqlTableRef[],
): Promise<MySqlCapturedTable[]> {
  return (await discoverCapturedTables(
    conn,
    (refs ?? (await capturedRefs(conn, cfg))).map((ref) => ({ ref, text: ref.text, path: tablePathOf(ref) })),
    cfg.overrides,
    'mysql',
    cfg.place,
    (what, err) => externalError(what, err, cfg.place),
  )) as MySqlCapturedTable[];
}

/** Fails with one sentence unless the binlog is on, in ROW format with full row images. */
export async function checkBinlog(conn: JdbcConnection, cfg: MySqlCdcConfig): Promise<void> {
  const r = (await conn.execute('SELECT @@log_bin, @@binlog_format, @@binlog_row_image')).rows[0].map(String);
  const where = `${cfg.settings.host}:${cfg.settings.port}`;
  if (r[0] !== '1' && r[0].toUpperCase() !== 'ON') {
    throw new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `the binlog is off on ${where}; MySQL-CDC needs log_bin, binlog_format=ROW and binlog_row_image=FULL (set them and restart the server)`,
      { place: cfg.place },
    );
  }
  if (r[1].toUpperCase() !== 'ROW' || r[2].toUpperCase() !== 'FULL') {
    throw new TidewayError(
      ErrorCode.EXTERNAL_SYSTEM,
      `${where} has binlog_format=${r[1]} and binlog_row_image=${r[2]}; MySQL-CDC needs binlog_format=ROW and binlog_row_image=FULL`,
      { place: cfg.place },
    );
  }
}
