import type {
  CatalogTable,
  PluginContext,
  Source,
  SourceFactory,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError, textOf } from '@tideway/common';
import {
  CdcSourceReader,
  CdcSplitEnumerator,
  comparedCapturedTables,
  planChunks,
  wholeTableSplit,
  type CdcEnumeratorState,
  type CdcSplit,
  type ChangePositions,
} from '@tideway/connector-cdc-common';
import {
  externalError,
  type ComparableTables,
  type ComparedTable,
  type JdbcConnection,
  type MySqlConnection,
} from '@tideway/connector-jdbc';
import { compareBinlog, type BinlogPosition } from './binlog-position.js';
import { checkBinlog, connectMySql, discoverMySqlTables, type MySqlCapturedTable } from './mysql-catalog.js';
import { compileMySqlCdcOptions, MYSQL_CDC_SPEC, type MySqlCdcConfig } from './mysql-cdc-options.js';
import { MySqlCdcDialect } from './mysql-dialect.js';
import { readSchemaRecord, type MySqlSchemaRecord } from './mysql-schema.js';

/** MySQL-CDC: snapshot chunks, then the ROW binlog, for MySQL and MariaDB. */
export class MySqlCdcSource
  implements Source<CdcSplit<BinlogPosition, BinlogPosition>, CdcEnumeratorState>, ComparableTables, ChangePositions
{
  readonly config: MySqlCdcConfig;
  private tables: MySqlCapturedTable[] | undefined;
  /** The binlog position taken before the tables were listed by pattern (see prepare). */
  private startPosition: BinlogPosition | undefined;

  constructor(private readonly ctx: PluginContext) {
    if (ctx.jobMode === 'BATCH') {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'MySQL-CDC is a streaming source: set env job.mode = "STREAMING"', {
        place: ctx.options.place(),
      });
    }
    this.config = compileMySqlCdcOptions(ctx.options);
  }

  boundedness(): 'UNBOUNDED' {
    return 'UNBOUNDED';
  }

  async prepare(): Promise<void> {
    const conn = await connectMySql(this.config);
    try {
      await checkBinlog(conn, this.config);
      // With patterns the start position is taken before the tables are listed: a matching
      // table created after the listing is then created after the position too, and the
      // stream sees its CREATE TABLE (one created in between is listed and seen: no loss).
      if (this.byPattern() && !this.config.specific && this.config.startupMode !== 'earliest' && this.config.startupMode !== 'timestamp')
        this.startPosition = await this.masterStatus(conn);
      this.tables = await discoverMySqlTables(conn, this.config);
    } finally {
      await conn.close();
    }
  }

  catalogTables(): CatalogTable[] {
    if (!this.tables)
      throw new TidewayError(ErrorCode.INTERNAL, 'MySQL-CDC must be prepared (its schema read) before its tables are asked for', {
        place: this.config.place,
      });
    return this.tables.map((t) => t.catalog);
  }

  createEnumerator(ctx: SplitEnumeratorContext<CdcSplit>, restored?: CdcEnumeratorState): SplitEnumerator<CdcSplit, CdcEnumeratorState> {
    return new CdcSplitEnumerator(ctx, () => this.plan(), restored);
  }

  /** Every split the enumerator will hand out, planned now (for tests that drive one reader without an enumerator). */
  planSplits(): Promise<CdcSplit[]> {
    return this.plan();
  }

  createReader(ctx: SourceReaderContext): SourceReader<CdcSplit<BinlogPosition, BinlogPosition>> {
    return new CdcSourceReader(new MySqlCdcDialect(this.config), this.config.fetchSize, ctx);
  }

  openComparisonSession(): Promise<JdbcConnection> {
    return connectMySql(this.config);
  }

  /** The captured tables, for `tideway verify`. */
  comparedTables(): ComparedTable[] {
    return comparedCapturedTables(this.tables);
  }

  /** SHOW MASTER STATUS: the end of the binlog now. */
  async currentChangePosition(): Promise<BinlogPosition> {
    const conn = await connectMySql(this.config);
    try {
      const r = (await conn.execute('SHOW MASTER STATUS')).rows[0];
      return { file: String(r[0]), pos: Number(r[1]) };
    } catch (err) {
      throw externalError('reading the binlog position (the user needs REPLICATION CLIENT)', err, this.config.place);
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

  /** Takes the start position before any chunk is read, then cuts the tables into chunks. */
  private async plan(): Promise<CdcSplit[]> {
    const conn = await connectMySql(this.config);
    try {
      await checkBinlog(conn, this.config);
      const tables = this.tables ?? (this.tables = await discoverMySqlTables(conn, this.config));
      let position: BinlogPosition;
      try {
        if (this.config.specific) position = this.config.specific;
        // timestamp: from the oldest binlog; the stream skips transactions before the time.
        else if (this.config.startupMode === 'earliest' || this.config.startupMode === 'timestamp')
          position = { file: String((await conn.execute('SHOW BINARY LOGS')).rows[0][0]), pos: 4 };
        else position = this.startPosition ?? (await this.masterStatus(conn));
      } catch (err) {
        throw externalError('reading the binlog position (the user needs REPLICATION CLIENT)', err, this.config.place);
      }
      // The columns' binlog decoding as of the start position: the stream may open later, after a DDL.
      let schema: MySqlSchemaRecord;
      try {
        schema = await readSchemaRecord(conn, tables);
      } catch (err) {
        throw externalError("reading the captured tables' column types", err, this.config.place);
      }
      const splits: CdcSplit[] = [];
      if (this.config.startupMode === 'initial') for (const t of tables) splits.push(...(await this.chunksOf(conn, t)));
      splits.push({ splitId: 'stream', kind: 'stream', position, skip: 0, chunks: [], schema });
      return splits;
    } finally {
      await conn.close();
    }
  }

  private byPattern(): boolean {
    return this.config.tablePattern !== undefined || this.config.databasePattern !== undefined;
  }

  private async masterStatus(conn: MySqlConnection): Promise<BinlogPosition> {
    try {
      const r = (await conn.execute('SHOW MASTER STATUS')).rows[0];
      return { file: String(r[0]), pos: Number(r[1]) };
    } catch (err) {
      throw externalError('reading the binlog position (the user needs REPLICATION CLIENT)', err, this.config.place);
    }
  }

  private async chunksOf(conn: MySqlConnection, t: MySqlCapturedTable): Promise<CdcSplit[]> {
    const key = t.chunkKey;
    if (key === undefined) return [wholeTableSplit(t.catalog.tableId)];
    const k = conn.quote(key);
    const from = conn.tableSql(t.ref);
    const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(textOf(v)));
    return planChunks(
      t.catalog.tableId,
      key,
      t.catalog.columns.findIndex((c) => c.name === key),
      {
        stats: async () => {
          const r = (await conn.execute(`SELECT CAST(MIN(${k}) AS CHAR), CAST(MAX(${k}) AS CHAR), COUNT(*) FROM ${from}`)).rows[0];
          return { min: big(r[0]), max: big(r[1]), count: Number(r[2]) };
        },
        keyAfter: async (start, offset) =>
          big(
            (await conn.execute(`SELECT CAST(${k} AS CHAR) FROM ${from} WHERE ${k} >= ${start} ORDER BY ${k} LIMIT 1 OFFSET ${offset}`))
              .rows[0]?.[0],
          ),
        sample: async (rate) => {
          const rows = (await conn.execute(`SELECT CAST(${k} AS CHAR) FROM ${from} ORDER BY ${k}`)).rows;
          const out: bigint[] = [];
          for (let i = rate - 1; i < rows.length; i += rate) out.push(BigInt(String(rows[i][0])));
          return out;
        },
      },
      this.config.chunking,
    );
  }
}

/** SeaTunnel's `MySQL-CDC` source. */
export const mysqlCdcSourceFactory: SourceFactory = {
  name: 'MySQL-CDC',
  type: 'source',
  description:
    'Captures changes of MySQL and MariaDB tables: an initial snapshot read in key chunks, then row changes (+I, -U/+U, -D) from the ROW-format binlog; the binlog position is kept in checkpoints.',
  spec: MYSQL_CDC_SPEC,
  create: (ctx: PluginContext) => new MySqlCdcSource(ctx),
};
