import { JdbcCdcDialect, type ChangeTxn } from '@tideway/connector-cdc-common';
import type { PgConnection } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import { parseLsn } from './lsn.js';
import type { PgCdcConfig } from './pg-cdc-options.js';
import { PgReplicationStream, type PgTxnDedup } from './replication-stream.js';
import {
  catalogColumns,
  resolveColumns,
  type PgSchemaRecord,
  type ResolvedColumns,
  type TrackedPgColumn,
  type TrackedPgTable,
} from './pg-schema.js';

/**
 * The snapshot a chunk was read with (pg_current_snapshot: xmin, xmax, in-progress xids, all
 * 64-bit) and the WAL insert position read right after it was taken (`hw`).
 */
export interface PgWatermark {
  readonly xmin: number;
  readonly xmax: number;
  readonly xip: readonly number[];
  readonly hw: string;
}

function parseSnapshot(text: string, hw: string): PgWatermark {
  const [xmin, xmax, xip] = text.split(':');
  return { xmin: Number(xmin), xmax: Number(xmax), xip: xip ? xip.split(',').map(Number) : [], hw };
}

/**
 * PostgreSQL's part of CDC. A chunk is read in a REPEATABLE READ transaction whose snapshot is
 * kept as the watermark; a streamed transaction is in the chunk exactly when that snapshot sees
 * its xid. Transactions whose commit record lies at or after `hw` committed after the snapshot.
 */
export class PgCdcDialect extends JdbcCdcDialect<string, PgWatermark, PgConnection, CapturedTable, PgCdcConfig> {
  protected async beginSnapshot(conn: PgConnection): Promise<PgWatermark> {
    await conn.execute('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // The first statement takes the transaction's snapshot; the WAL position is read after it.
    const snap = String((await conn.execute('SELECT pg_current_snapshot()::text')).rows[0][0]);
    const hw = String((await conn.execute('SELECT pg_current_wal_insert_lsn()::text')).rows[0][0]);
    return parseSnapshot(snap, hw);
  }

  /** `schema`: the record checkpointed with the position; absent, the tables' columns are read now. */
  async openStream(position: string, schema?: unknown): Promise<PgReplicationStream> {
    // The stream resolves column types on this session.
    const { conn } = await this.session();
    const record =
      (schema as PgSchemaRecord | undefined) ?? ((await this.currentRecord("reading the captured tables' columns")) as PgSchemaRecord);
    const { tablePattern, databasePattern, schemaNames, database } = this.cfg;
    const matches =
      tablePattern || databasePattern
        ? (schema: string, table: string) =>
            (tablePattern?.re.test(`${database}.${schema}.${table}`) ?? true) &&
            (databasePattern?.re.test(database) ?? true) &&
            (schemaNames?.includes(schema) ?? true)
        : undefined;
    const following = {
      enabled: this.cfg.schemaChanges,
      resolve: (key: string, cols: readonly TrackedPgColumn[]) => resolveColumns(conn, key, cols),
      describe: (schema: string, table: string) => catalogColumns(conn, schema, table),
      ...(matches
        ? {
            matches,
            discover: (schema: string, table: string, cols: readonly TrackedPgColumn[]) => this.discoverCreated(schema, table, cols),
          }
        : {}),
    };
    const s = this.cfg.settings;
    return PgReplicationStream.open(
      {
        host: s.host,
        port: s.port,
        database: this.cfg.database,
        user: this.cfg.username,
        password: this.cfg.password,
        connectTimeoutMs: this.cfg.connectTimeoutMs,
        timeZone: this.cfg.serverTimeZone,
        slot: this.cfg.slot,
        plugin: this.cfg.decodingPlugin,
        publication: this.cfg.publication,
        place: this.cfg.place,
      },
      record,
      following,
      position,
    );
  }

  /**
   * A table created while streaming, from its first relation message: its key (or
   * table-names-config's) from the catalog now, its columns as the message has them.
   */
  private async discoverCreated(
    schema: string,
    table: string,
    columns: readonly TrackedPgColumn[],
  ): Promise<{ table: TrackedPgTable; resolved: ResolvedColumns }> {
    const { conn } = await this.session();
    const [found] = await this.catalog.discover(conn, this.catalog.refsOf([`${this.cfg.database}.${schema}.${table}`]));
    const key = `${schema}.${table}`;
    const resolved = await resolveColumns(conn, key, columns);
    const catalog = { ...found.catalog, columns: resolved.columns };
    return { table: { key, columns, catalog }, resolved };
  }

  snapshotHas(w: PgWatermark, txn: ChangeTxn<string>): boolean {
    const { xid } = txn.dedup as PgTxnDedup;
    // The stream's xid is 32 bits; the snapshot's are 64 (epoch-extended): widen within xmax's epoch.
    let full = Math.floor(w.xmax / 2 ** 32) * 2 ** 32 + xid;
    if (full > w.xmax + 2 ** 31) full -= 2 ** 32;
    if (full < w.xmin) return true;
    if (full >= w.xmax) return false;
    return !w.xip.includes(full);
  }

  streamPast(w: PgWatermark, txn: ChangeTxn<string>): boolean {
    return (txn.dedup as PgTxnDedup).commitLsn >= parseLsn(w.hw);
  }
}
