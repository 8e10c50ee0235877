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
import { readPgSchemaRecord } from './pg-schema.js';
import { ConfigError, ErrorCode, TidewayError, textOf } from '@tideway/common';
import {
  CdcSourceReader,
  comparedCapturedTables,
  CdcSplitEnumerator,
  planChunks,
  wholeTableSplit,
  type CdcEnumeratorState,
  type CdcSplit,
  type ChangePositions,
} from '@tideway/connector-cdc-common';
import type { CapturedTable } from './captured-table.js';
import { connectPg, discoverPgTables } from './pg-catalog.js';
import { compilePgCdcOptions, PG_CDC_SPEC, type PgCdcConfig } from './pg-cdc-options.js';
import { PgCdcDialect, type PgWatermark } from './pg-dialect.js';
import { checkLogicalReplication, ensurePublicationAndSlot } from './pg-replication-setup.js';
import type { ComparableTables, ComparedTable, JdbcConnection, PgConnection } from '@tideway/connector-jdbc';
import { formatLsn, parseLsn } from './lsn.js';

/** Postgres-CDC: snapshot chunks, then logical replication (pgoutput or decoderbufs) from a slot. */
export class PgCdcSource implements Source<CdcSplit<string, PgWatermark>, CdcEnumeratorState>, ComparableTables, ChangePositions {
  readonly config: PgCdcConfig;
  private tables: CapturedTable[] | undefined;

  constructor(private readonly ctx: PluginContext) {
    if (ctx.jobMode === 'BATCH') {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'Postgres-CDC is a streaming source: set env job.mode = "STREAMING"', {
        place: ctx.options.place(),
      });
    }
    this.config = compilePgCdcOptions(ctx.options);
  }

  boundedness(): 'UNBOUNDED' {
    return 'UNBOUNDED';
  }

  /** Reads the tables' schemas and checks that the server does logical replication. */
  async prepare(): Promise<void> {
    const conn = await connectPg(this.config);
    try {
      await checkLogicalReplication(conn, this.config);
      this.tables = await discoverPgTables(conn, this.config);
    } finally {
      await conn.close();
    }
  }

  catalogTables(): CatalogTable[] {
    if (!this.tables)
      throw new TidewayError(ErrorCode.INTERNAL, 'Postgres-CDC must be prepared (its schema read) before its tables are asked for', {
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

  createReader(ctx: SourceReaderContext): SourceReader<CdcSplit<string, PgWatermark>> {
    return new CdcSourceReader(new PgCdcDialect(this.config), this.config.fetchSize, ctx);
  }

  openComparisonSession(): Promise<JdbcConnection> {
    return connectPg(this.config);
  }

  /** The captured tables, for `tideway verify`. */
  comparedTables(): ComparedTable[] {
    return comparedCapturedTables(this.tables);
  }

  /** pg_current_wal_lsn(): the end of the WAL written now. */
  async currentChangePosition(): Promise<string> {
    const conn = await connectPg(this.config);
    try {
      return String((await conn.execute('SELECT pg_current_wal_lsn()::text')).rows[0][0]);
    } finally {
      await conn.close();
    }
  }

  changePositionReached(checkpointed: unknown, recorded: unknown): boolean {
    return parseLsn(String(checkpointed)) >= parseLsn(String(recorded));
  }

  formatChangePosition(position: unknown): string {
    return String(position);
  }

  /** Sets up publication and slot before any chunk is read, then cuts the tables into chunks. */
  private async plan(): Promise<CdcSplit[]> {
    const conn = await connectPg(this.config);
    try {
      await checkLogicalReplication(conn, this.config);
      const tables = this.tables ?? (this.tables = await discoverPgTables(conn, this.config));
      const slotLsn = await ensurePublicationAndSlot(conn, this.config, tables);
      const splits: CdcSplit[] = [];
      let position = slotLsn;
      if (this.config.startupMode === 'latest') {
        position = String((await conn.execute('SELECT pg_current_wal_insert_lsn()::text')).rows[0][0]);
      } else if (this.config.specificLsn !== undefined) {
        // The server cannot decode below the slot's confirmed position: it would silently start there.
        if (this.config.specificLsn < parseLsn(slotLsn)) {
          throw new ConfigError(
            ErrorCode.CONFIG_BAD_VALUE,
            `startup.specific-offset.pos ${this.config.specificLsn} (${formatLsn(this.config.specificLsn)}) lies before replication slot '${this.config.slot}''s confirmed position ${slotLsn}: PostgreSQL has released that WAL for the slot`,
            { place: this.config.place },
          );
        }
        position = formatLsn(this.config.specificLsn);
      } else if (this.config.startupMode === 'initial') {
        for (const t of tables) splits.push(...(await this.chunksOf(conn, t)));
      }
      // The tables' columns as of the start position: the stream may open later, after a DDL.
      const schema = await readPgSchemaRecord(conn, tables);
      splits.push({ splitId: 'stream', kind: 'stream', position, skip: 0, chunks: [], schema });
      return splits;
    } finally {
      await conn.close();
    }
  }

  private async chunksOf(conn: PgConnection, t: CapturedTable): Promise<CdcSplit[]> {
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
          const r = (await conn.execute(`SELECT MIN(${k})::text, MAX(${k})::text, COUNT(*) FROM ${from}`)).rows[0];
          return { min: big(r[0]), max: big(r[1]), count: Number(r[2]) };
        },
        keyAfter: async (start, offset) =>
          big(
            (
              await conn.execute(`SELECT ${k}::text FROM ${from} WHERE ${k} >= $1 ORDER BY ${k} OFFSET $2 LIMIT 1`, [
                start.toString(),
                offset,
              ])
            ).rows[0]?.[0],
          ),
        sample: async (rate) =>
          (
            await conn.execute(
              `SELECT k::text FROM (SELECT ${k} AS k, row_number() OVER (ORDER BY ${k}) AS n FROM ${from}) s WHERE n % $1 = 0 ORDER BY k`,
              [rate],
            )
          ).rows.map((r) => BigInt(String(r[0]))),
      },
      this.config.chunking,
    );
  }
}

/** SeaTunnel's `Postgres-CDC` source. */
export const postgresCdcSourceFactory: SourceFactory = {
  name: 'Postgres-CDC',
  type: 'source',
  description:
    'Captures changes of PostgreSQL tables: an initial snapshot read in key chunks, then row changes (+I, -U/+U, -D) streamed by logical replication (pgoutput, or decoderbufs) from a replication slot whose confirmed position advances only after checkpoints complete.',
  spec: PG_CDC_SPEC,
  create: (ctx: PluginContext) => new PgCdcSource(ctx),
};
