import type { PluginContext } from '@tideway/api';
import { CdcSource, cdcSourceFactory, type SourcePosition } from '@tideway/connector-cdc-common';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { PgConnection } from '@tideway/connector-jdbc';
import type { CapturedTable } from './captured-table.js';
import { formatLsn, parseLsn } from './lsn.js';
import { PgCatalog } from './pg-catalog.js';
import { PG_CDC_SPEC, type PgCdcConfig } from './pg-cdc-options.js';
import { PgCdcDialect, type PgWatermark } from './pg-dialect.js';
import { ensurePublicationAndSlot } from './pg-replication-setup.js';

/** Postgres-CDC: snapshot chunks, then logical replication (pgoutput or decoderbufs) from a slot. */
export class PgCdcSource extends CdcSource<string, PgWatermark, PgConnection, CapturedTable, PgCdcConfig> {
  /** What `tideway describe` says of the source. */
  static readonly description =
    'Captures changes of PostgreSQL tables: an initial snapshot read in key chunks, then row changes (+I, -U/+U, -D) streamed by logical replication (pgoutput, or decoderbufs) from a replication slot whose confirmed position advances only after checkpoints complete.';

  declare readonly catalog: PgCatalog;

  constructor(ctx: PluginContext) {
    super(ctx, 'Postgres-CDC', PgCatalog, PgCdcDialect, 'postgresql');
  }

  /** pg_current_wal_lsn(): the end of the WAL written now. */
  async currentChangePosition(): Promise<string> {
    const conn = await this.catalog.connect();
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

  /** The transaction's LSN as Debezium's source.lsn (a number). */
  protected debeziumPosition(lsn: string): SourcePosition {
    return { lsn: parseLsn(lsn) };
  }

  /** Sets up publication and slot before any chunk is read; the stream starts at the slot's position unless told otherwise. */
  protected async startPosition(conn: PgConnection, tables: readonly CapturedTable[]): Promise<string> {
    const slotLsn = await ensurePublicationAndSlot(conn, this.config, tables, () => this.catalog.connect());
    if (this.config.startupMode === 'latest') return String((await conn.execute('SELECT pg_current_wal_insert_lsn()::text')).rows[0][0]);
    const specific = this.config.specificLsn;
    if (specific === undefined) return slotLsn;
    // The server cannot decode below the slot's confirmed position: it would silently start there.
    if (specific < parseLsn(slotLsn)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `startup.specific-offset.pos ${specific} (${formatLsn(specific)}) lies before replication slot '${this.config.slot}''s confirmed position ${slotLsn}: PostgreSQL has released that WAL for the slot`,
        { place: this.config.place },
      );
    }
    return formatLsn(specific);
  }
}

/** SeaTunnel's `Postgres-CDC` source. */
export const postgresCdcSourceFactory = cdcSourceFactory('Postgres-CDC', PG_CDC_SPEC, PgCdcSource);
