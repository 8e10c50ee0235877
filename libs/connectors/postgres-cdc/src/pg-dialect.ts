import { TidewayError } from '@tideway/common';
import type { CdcDialect, ChangeTxn, ChunkRead, SnapshotSplit } from '@tideway/connector-cdc-common';
import { externalError, type PgConnection } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import { parseLsn } from './lsn.js';
import { connectPg, discoverPgTables } from './pg-catalog.js';
import { pgTableRefs, type PgCdcConfig } from './pg-cdc-options.js';
import { PgReplicationStream, type PgTxnDedup } from './replication-stream.js';
import {
  catalogColumns,
  readPgSchemaRecord,
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
export class PgCdcDialect implements CdcDialect<string, PgWatermark> {
  private conn: PgConnection | undefined;
  private tables: Map<string, CapturedTable> | undefined;

  constructor(private readonly cfg: PgCdcConfig) {}

  async readChunk(split: SnapshotSplit): Promise<ChunkRead<PgWatermark>> {
    const { conn, tables } = await this.session();
    const table = tables.get(split.tableId)!;
    const where: string[] = [];
    if (split.keyColumn !== undefined && split.lower !== undefined) where.push(`${conn.quote(split.keyColumn)} >= ${split.lower}`);
    if (split.keyColumn !== undefined && split.upper !== undefined) where.push(`${conn.quote(split.keyColumn)} < ${split.upper}`);
    const sql = `SELECT * FROM ${conn.tableSql(table.ref)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    try {
      await conn.execute('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        // The first statement takes the transaction's snapshot; the WAL position is read after it.
        const snap = String((await conn.execute('SELECT pg_current_snapshot()::text')).rows[0][0]);
        const hw = String((await conn.execute('SELECT pg_current_wal_insert_lsn()::text')).rows[0][0]);
        const stream = await conn.stream(sql, table.columns);
        const rows: unknown[][] = [];
        for (;;) {
          const batch = await stream.read(this.cfg.fetchSize);
          if (batch.length === 0) break;
          for (const r of batch) rows.push(r);
        }
        await stream.close();
        await conn.execute('COMMIT');
        return { rows, watermark: parseSnapshot(snap, hw) };
      } catch (err) {
        await conn.execute('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } catch (err) {
      throw err instanceof TidewayError ? err : externalError(`reading snapshot chunk ${split.splitId}`, err, this.cfg.place);
    }
  }

  /** `schema`: the record checkpointed with the position; absent, the tables' columns are read now. */
  async openStream(position: string, schema?: unknown): Promise<PgReplicationStream> {
    const { conn, tables } = await this.session();
    let record = schema as PgSchemaRecord | undefined;
    try {
      record ??= await readPgSchemaRecord(conn, [...tables.values()]);
    } catch (err) {
      throw externalError("reading the captured tables' columns", err, this.cfg.place);
    }
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
    const refs = pgTableRefs([`${this.cfg.database}.${schema}.${table}`], this.cfg.database, this.cfg.schemaNames, this.cfg.place);
    const [found] = await discoverPgTables(conn, this.cfg, refs);
    const key = `${schema}.${table}`;
    const resolved = await resolveColumns(conn, key, columns);
    const catalog = { ...found!.catalog, columns: resolved.columns };
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

  async close(): Promise<void> {
    await this.conn?.close();
    this.conn = undefined;
  }

  private async session(): Promise<{ conn: PgConnection; tables: Map<string, CapturedTable> }> {
    this.conn ??= await connectPg(this.cfg);
    this.tables ??= new Map((await discoverPgTables(this.conn, this.cfg)).map((t) => [t.catalog.tableId, t]));
    return { conn: this.conn, tables: this.tables };
  }
}
