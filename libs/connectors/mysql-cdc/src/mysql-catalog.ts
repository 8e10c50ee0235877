import type { PluginOptions } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { bigKey, CdcCatalog, type CapturedTable, type KeySql } from '@tideway/connector-cdc-common';
import { externalError, type JdbcConnection, type MySqlConnection, type ResultColumn, type TableRef } from '@tideway/connector-jdbc';
import type { BinlogPosition } from './binlog-position.js';
import { compileMySqlCdcOptions, mysqlTableRefs, type MySqlCdcConfig, type MySqlTableRef } from './mysql-cdc-options.js';
import { readSchemaRecord, type MySqlSchemaRecord } from './mysql-schema.js';

/** A captured MySQL/MariaDB table (its ref always names the database). */
export type MySqlCapturedTable = CapturedTable<TableRef & { database: string }, ResultColumn>;

/** MySQL/MariaDB's catalog side of MySQL-CDC: its table listing, binlog check, schema record and key SQL. */
export class MySqlCatalog extends CdcCatalog<MySqlConnection, MySqlCapturedTable, MySqlCdcConfig> {
  protected readonly listTablesSql =
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')";

  protected readonly keySql: KeySql<MySqlConnection> = (conn, k, from) => ({
    stats: async () => {
      const r = (await conn.execute(`SELECT CAST(MIN(${k}) AS CHAR), CAST(MAX(${k}) AS CHAR), COUNT(*) FROM ${from}`)).rows[0];
      return { min: bigKey(r[0]), max: bigKey(r[1]), count: Number(r[2]) };
    },
    keyAfter: async (start, offset) =>
      bigKey(
        (await conn.execute(`SELECT CAST(${k} AS CHAR) FROM ${from} WHERE ${k} >= ${start} ORDER BY ${k} LIMIT 1 OFFSET ${offset}`))
          .rows[0]?.[0],
      ),
    sample: async (rate) => {
      const rows = (await conn.execute(`SELECT CAST(${k} AS CHAR) FROM ${from} ORDER BY ${k}`)).rows;
      const out: bigint[] = [];
      for (let i = rate - 1; i < rows.length; i += rate) out.push(BigInt(String(rows[i][0])));
      return out;
    },
  });

  constructor(options: PluginOptions) {
    super(compileMySqlCdcOptions(options), 'MySQL-CDC', 'mysql');
  }

  protected get namedRefs(): readonly MySqlTableRef[] {
    return this.cfg.tables;
  }

  protected candidate(r: unknown[]): { name: string; database: string } | undefined {
    const { databaseNames } = this.cfg;
    return databaseNames === undefined || databaseNames.includes(String(r[0]))
      ? { name: `${String(r[0])}.${String(r[1])}`, database: String(r[0]) }
      : undefined;
  }

  refsOf(names: readonly string[]): MySqlTableRef[] {
    return mysqlTableRefs(names, undefined, this.cfg.databaseNames, this.cfg.place);
  }

  check(conn: JdbcConnection): Promise<void> {
    return checkBinlog(conn, this.cfg);
  }

  readSchemaRecord(conn: JdbcConnection, tables: readonly MySqlCapturedTable[]): Promise<MySqlSchemaRecord> {
    return readSchemaRecord(conn, tables);
  }

  /** SHOW MASTER STATUS: the end of the binlog now. */
  async masterStatus(conn: JdbcConnection): Promise<BinlogPosition> {
    try {
      const r = (await conn.execute('SHOW MASTER STATUS')).rows[0];
      return { file: String(r[0]), pos: Number(r[1]) };
    } catch (err) {
      throw externalError('reading the binlog position (the user needs REPLICATION CLIENT)', err, this.cfg.place);
    }
  }
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
