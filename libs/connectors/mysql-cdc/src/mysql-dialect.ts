import { TidewayError } from '@tideway/common';
import type { CdcDialect, ChangeTxn, ChunkRead, SnapshotSplit } from '@tideway/connector-cdc-common';
import { externalError, type MySqlConnection } from '@tideway/connector-jdbc';
import { compareBinlog, type BinlogPosition } from './binlog-position.js';
import { BinlogStream } from './binlog-stream.js';
import { connectMySql, discoverMySqlTables, type MySqlCapturedTable } from './mysql-catalog.js';
import { mysqlTableRefs, type MySqlCdcConfig } from './mysql-cdc-options.js';
import { readSchemaRecord, type MySqlSchemaRecord, type TrackedTable } from './mysql-schema.js';

/**
 * MySQL/MariaDB's part of CDC. A chunk is read in a consistent-snapshot transaction whose binlog
 * position is its watermark (MariaDB: Binlog_snapshot_file/position, without locks; MySQL: under
 * a brief FLUSH TABLES WITH READ LOCK). A streamed transaction is in the chunk exactly when it
 * starts before that position.
 */
export class MySqlCdcDialect implements CdcDialect<BinlogPosition, BinlogPosition> {
  private conn: MySqlConnection | undefined;
  private tables: Map<string, MySqlCapturedTable> | undefined;
  private mariadb = false;

  constructor(private readonly cfg: MySqlCdcConfig) {}

  async readChunk(split: SnapshotSplit): Promise<ChunkRead<BinlogPosition>> {
    const { conn, tables } = await this.session();
    const table = tables.get(split.tableId)!;
    const where: string[] = [];
    if (split.keyColumn !== undefined && split.lower !== undefined) where.push(`${conn.quote(split.keyColumn)} >= ${split.lower}`);
    if (split.keyColumn !== undefined && split.upper !== undefined) where.push(`${conn.quote(split.keyColumn)} < ${split.upper}`);
    const sql = `SELECT * FROM ${conn.tableSql(table.ref)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    try {
      const watermark = await this.beginSnapshot(conn);
      try {
        const stream = await conn.stream(sql, table.columns, this.cfg.fetchSize);
        const rows: unknown[][] = [];
        for (;;) {
          const batch = await stream.read(this.cfg.fetchSize);
          if (batch.length === 0) break;
          for (const r of batch) rows.push(r);
        }
        await stream.close();
        await conn.execute('COMMIT');
        return { rows, watermark };
      } catch (err) {
        await conn.execute('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } catch (err) {
      throw err instanceof TidewayError ? err : externalError(`reading snapshot chunk ${split.splitId}`, err, this.cfg.place);
    }
  }

  /** `schema`: the record checkpointed with the position; absent, the tables' columns are read now. */
  async openStream(position: BinlogPosition, schema?: unknown): Promise<BinlogStream> {
    const { conn, tables } = await this.session();
    let record = schema as MySqlSchemaRecord | undefined;
    try {
      record ??= await readSchemaRecord(conn, [...tables.values()]);
    } catch (err) {
      throw externalError("reading the captured tables' column types", err, this.cfg.place);
    }
    const { tablePattern, databasePattern, databaseNames } = this.cfg;
    const matches =
      tablePattern || databasePattern
        ? (db: string, t: string) =>
            (tablePattern?.re.test(`${db}.${t}`) ?? true) && (databasePattern?.re.test(db) ?? true) && (databaseNames?.includes(db) ?? true)
        : undefined;
    const following = {
      enabled: this.cfg.schemaChanges,
      tinyInt1isBit: this.cfg.settings.tinyInt1isBit,
      ...(matches ? { matches, discover: (db: string, t: string) => this.discoverCreated(db, t) } : {}),
    };
    return new BinlogStream(this.cfg.settings, record, this.cfg.serverId, position, this.cfg.place, following, this.cfg.startupTimestampMs);
  }

  /** A table created while streaming, as the record tracks it: read now, on a session of its own (the stream's may be gone). */
  private async discoverCreated(database: string, table: string): Promise<TrackedTable> {
    const refs = mysqlTableRefs([`${database}.${table}`], undefined, this.cfg.databaseNames, this.cfg.place);
    const conn = await connectMySql(this.cfg);
    try {
      const tables = await discoverMySqlTables(conn, this.cfg, refs);
      return (await readSchemaRecord(conn, tables)).tables[0]!;
    } finally {
      await conn.close();
    }
  }

  snapshotHas(w: BinlogPosition, txn: ChangeTxn<BinlogPosition>): boolean {
    return compareBinlog(txn.dedup as BinlogPosition, w) < 0;
  }

  streamPast(w: BinlogPosition, txn: ChangeTxn<BinlogPosition>): boolean {
    return compareBinlog(txn.dedup as BinlogPosition, w) >= 0;
  }

  async close(): Promise<void> {
    await this.conn?.close();
    this.conn = undefined;
  }

  /** The binlog stream needs no session of ours: the captured tables stay known, the connection goes. */
  releaseSession(): Promise<void> {
    return this.close();
  }

  private async beginSnapshot(conn: MySqlConnection): Promise<BinlogPosition> {
    if (this.mariadb) {
      await conn.execute('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      const status = new Map(
        (await conn.execute("SHOW STATUS LIKE 'binlog_snapshot_%'")).rows.map((r) => [String(r[0]).toLowerCase(), String(r[1])]),
      );
      return { file: status.get('binlog_snapshot_file')!, pos: Number(status.get('binlog_snapshot_position')) };
    }
    await conn.execute('FLUSH TABLES WITH READ LOCK');
    try {
      await conn.execute('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      const r = (await conn.execute('SHOW MASTER STATUS')).rows[0];
      return { file: String(r[0]), pos: Number(r[1]) };
    } finally {
      await conn.execute('UNLOCK TABLES');
    }
  }

  private async session(): Promise<{ conn: MySqlConnection; tables: Map<string, MySqlCapturedTable> }> {
    if (!this.conn) {
      this.conn = await connectMySql(this.cfg);
      this.mariadb = /mariadb/i.test(String((await this.conn.execute('SELECT VERSION()')).rows[0][0]));
    }
    this.tables ??= new Map((await discoverMySqlTables(this.conn, this.cfg)).map((t) => [t.catalog.tableId, t]));
    return { conn: this.conn, tables: this.tables };
  }
}
