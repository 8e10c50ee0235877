import { JdbcCdcDialect, type ChangeTxn } from '@tideway/connector-cdc-common';
import type { MySqlConnection } from '@tideway/connector-jdbc';
import { compareBinlog, type BinlogPosition } from './binlog-position.js';
import { BinlogStream } from './binlog-stream.js';
import type { MySqlCapturedTable } from './mysql-catalog.js';
import type { MySqlCdcConfig } from './mysql-cdc-options.js';
import { readSchemaRecord, type MySqlSchemaRecord, type TrackedTable } from './mysql-schema.js';

/**
 * MySQL/MariaDB's part of CDC. A chunk is read in a consistent-snapshot transaction whose binlog
 * position is its watermark (MariaDB: Binlog_snapshot_file/position, without locks; MySQL: under
 * a brief FLUSH TABLES WITH READ LOCK). A streamed transaction is in the chunk exactly when it
 * starts before that position.
 */
export class MySqlCdcDialect extends JdbcCdcDialect<BinlogPosition, BinlogPosition, MySqlConnection, MySqlCapturedTable, MySqlCdcConfig> {
  private mariadb = false;

  /** `schema`: the record checkpointed with the position; absent, the tables' columns are read now. */
  async openStream(position: BinlogPosition, schema?: unknown): Promise<BinlogStream> {
    const record =
      (schema as MySqlSchemaRecord | undefined) ??
      ((await this.currentRecord("reading the captured tables' column types")) as MySqlSchemaRecord);
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
    const conn = await this.catalog.connect();
    try {
      const tables = await this.catalog.discover(conn, this.catalog.refsOf([`${database}.${table}`]));
      return (await readSchemaRecord(conn, tables)).tables[0];
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

  /** The binlog stream needs no session of ours: the captured tables stay known, the connection goes. */
  releaseSession(): Promise<void> {
    return this.close();
  }

  protected override async onSession(conn: MySqlConnection): Promise<void> {
    this.mariadb = /mariadb/i.test(String((await conn.execute('SELECT VERSION()')).rows[0][0]));
  }

  protected async beginSnapshot(conn: MySqlConnection): Promise<BinlogPosition> {
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
}
