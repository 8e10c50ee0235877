import type { PluginOptions } from '@tideway/api';
import { bigKey, CdcCatalog, type KeySql } from '@tideway/connector-cdc-common';
import type { JdbcConnection, PgConnection } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import { compilePgCdcOptions, pgTableRefs, type PgCdcConfig, type PgTableRef } from './pg-cdc-options.js';
import { checkLogicalReplication, ensurePublicationAndSlot } from './pg-replication-setup.js';
import { readPgSchemaRecord, type PgSchemaRecord } from './pg-schema.js';

/** PostgreSQL's catalog side of Postgres-CDC: its table listing, wal_level check, schema record and key SQL. */
export class PgCatalog extends CdcCatalog<PgConnection, CapturedTable, PgCdcConfig> {
  protected readonly listTablesSql =
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\\_%'";

  protected readonly keySql: KeySql<PgConnection> = (conn, k, from) => ({
    stats: async () => {
      // The row count as pg_class estimates it, as SeaTunnel's Postgres chunk splitter takes it
      // (queryApproximateRowCnt): counting 2,000,000 rows took 150 ms of the job's start-up. A
      // stale estimate only makes chunks uneven (the first and last are open-ended, MIN and MAX
      // are exact); a table never analyzed (reltuples -1, or 0 before PostgreSQL 14) is counted.
      const r = (
        await conn.execute(
          `SELECT MIN(${k})::text, MAX(${k})::text, (SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1))::text FROM ${from}`,
          [from],
        )
      ).rows[0];
      const estimate = Number(r[2] ?? 0);
      const count = estimate > 0 ? estimate : Number((await conn.execute(`SELECT COUNT(*) FROM ${from}`)).rows[0][0]);
      return { min: bigKey(r[0]), max: bigKey(r[1]), count };
    },
    keyAfter: async (start, offset) =>
      bigKey(
        (await conn.execute(`SELECT ${k}::text FROM ${from} WHERE ${k} >= $1 ORDER BY ${k} OFFSET $2 LIMIT 1`, [start.toString(), offset]))
          .rows[0]?.[0],
      ),
    sample: async (rate) =>
      (
        await conn.execute(
          `SELECT k::text FROM (SELECT ${k} AS k, row_number() OVER (ORDER BY ${k}) AS n FROM ${from}) s WHERE n % $1 = 0 ORDER BY k`,
          [rate],
        )
      ).rows.map((r) => BigInt(String(r[0]))),
  });

  constructor(options: PluginOptions) {
    super(compilePgCdcOptions(options), 'Postgres-CDC', 'postgresql');
  }

  protected get namedRefs(): readonly PgTableRef[] {
    return this.cfg.tables;
  }

  protected candidate(r: unknown[]): { name: string; database: string } | undefined {
    const { schemaNames, database } = this.cfg;
    return schemaNames === undefined || schemaNames.includes(String(r[0]))
      ? { name: `${database}.${String(r[0])}.${String(r[1])}`, database }
      : undefined;
  }

  refsOf(names: readonly string[]): PgTableRef[] {
    return pgTableRefs(names, this.cfg.database, this.cfg.schemaNames, this.cfg.place);
  }

  check(conn: JdbcConnection): Promise<void> {
    return checkLogicalReplication(conn, this.cfg);
  }

  readSchemaRecord(conn: PgConnection, tables: readonly CapturedTable[]): Promise<PgSchemaRecord> {
    return readPgSchemaRecord(conn, tables);
  }

  /** A publication that lists its tables gains the added ones before their snapshot, so their later changes are streamed. */
  protected override async beforeAddedSnapshot(conn: PgConnection, tables: readonly CapturedTable[]): Promise<void> {
    await ensurePublicationAndSlot(conn, this.cfg, tables);
  }
}
