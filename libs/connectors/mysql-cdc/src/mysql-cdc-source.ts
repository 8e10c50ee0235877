import type { PluginContext } from '@tideway/api';
import { CdcSource, cdcSourceFactory, type SourcePosition } from '@tideway/connector-cdc-common';
import { externalError, type MySqlConnection } from '@tideway/connector-jdbc';
import { compareBinlog, type BinlogPosition } from './binlog-position.js';
import { MySqlCatalog, type MySqlCapturedTable } from './mysql-catalog.js';
import { MYSQL_CDC_SPEC, type MySqlCdcConfig } from './mysql-cdc-options.js';
import { MySqlCdcDialect } from './mysql-dialect.js';

/** MySQL-CDC: snapshot chunks, then the ROW binlog, for MySQL and MariaDB. */
export class MySqlCdcSource extends CdcSource<BinlogPosition, BinlogPosition, MySqlConnection, MySqlCapturedTable, MySqlCdcConfig> {
  /** What `tideway describe` says of the source. */
  static readonly description =
    'Captures changes of MySQL and MariaDB tables: an initial snapshot read in key chunks, then row changes (+I, -U/+U, -D) from the ROW-format binlog; the binlog position is kept in checkpoints.';

  declare readonly catalog: MySqlCatalog;
  /** The binlog position taken before the tables were listed by pattern (see beforeDiscovery). */
  private patternStart: BinlogPosition | undefined;

  constructor(ctx: PluginContext) {
    super(ctx, 'MySQL-CDC', MySqlCatalog, MySqlCdcDialect, 'mysql');
  }

  /** SHOW MASTER STATUS: the end of the binlog now. */
  async currentChangePosition(): Promise<BinlogPosition> {
    const conn = await this.catalog.connect();
    try {
      return await this.catalog.masterStatus(conn);
    } finally {
      await conn.close();
    }
  }

  changePositionReached(checkpointed: unknown, recorded: unknown): boolean {
    return compareBinlog(checkpointed as BinlogPosition, recorded as BinlogPosition) >= 0;
  }

  formatChangePosition(position: unknown): string {
    const p = position as BinlogPosition;
    return `${p.file}:${p.pos}`;
  }

  /** The transaction's binlog file and position, and the server id this source replicates as. */
  protected debeziumPosition(p: BinlogPosition): SourcePosition {
    return { file: p.file, pos: p.pos, server_id: this.config.serverId };
  }

  /**
   * With patterns the start position is taken before the tables are listed: a matching table
   * created after the listing is then created after the position too, and the stream sees its
   * CREATE TABLE (one created in between is listed and seen: no loss).
   */
  protected override async beforeDiscovery(conn: MySqlConnection): Promise<void> {
    const { tablePattern, databasePattern, specific, startupMode } = this.config;
    if ((tablePattern || databasePattern) && !specific && startupMode !== 'earliest' && startupMode !== 'timestamp')
      this.patternStart = await this.catalog.masterStatus(conn);
  }

  protected async startPosition(conn: MySqlConnection): Promise<BinlogPosition> {
    if (this.config.specific) return this.config.specific;
    // timestamp: from the oldest binlog; the stream skips transactions before the time.
    if (this.config.startupMode === 'earliest' || this.config.startupMode === 'timestamp') {
      try {
        return { file: String((await conn.execute('SHOW BINARY LOGS')).rows[0][0]), pos: 4 };
      } catch (err) {
        throw externalError('reading the binlog position (the user needs REPLICATION CLIENT)', err, this.config.place);
      }
    }
    return this.patternStart ?? (await this.catalog.masterStatus(conn));
  }
}

/** SeaTunnel's `MySQL-CDC` source. */
export const mysqlCdcSourceFactory = cdcSourceFactory('MySQL-CDC', MYSQL_CDC_SPEC, MySqlCdcSource);
