import { TidewayError } from '@tideway/common';
import { externalError, openConnection, tablePathOf, type JdbcConnection, type PgConnection } from '@tideway/connector-jdbc';
import { discoverCapturedTables, withRetries } from '@tideway/connector-cdc-common';
import type { CapturedTable } from './captured-table.js';
import type { PgCdcConfig } from './pg-cdc-options.js';

/** Opens a session (retrying refused or dropped connections connect.max-retries times). */
export async function connectPg(cfg: PgCdcConfig): Promise<PgConnection> {
  return (await withRetries(cfg.connectRetries, () => openConnection(cfg.settings, cfg.place), (e) => e instanceof TidewayError && e.retryable)) as PgConnection;
}

/** Reads every captured table's columns and key. */
export function discoverPgTables(conn: JdbcConnection, cfg: PgCdcConfig): Promise<CapturedTable[]> {
  return discoverCapturedTables(
    conn,
    cfg.tables.map((ref) => ({ ref, text: ref.text, path: tablePathOf(ref) })),
    cfg.overrides,
    'postgresql',
    cfg.place,
    (what, err) => externalError(what, err, cfg.place),
  ) as Promise<CapturedTable[]>;
}
