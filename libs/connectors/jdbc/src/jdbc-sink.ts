import type { PluginContext, Sink, SinkCommitter, SinkFactory, SinkWriter, SinkWriterContext } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import type { ComparableTables, ComparedTable } from './compared-tables.js';
import { compileSinkQuery } from './sink-query.js';
import { describeDbError } from './db-errors.js';
import { compileConnection } from './connection-options.js';
import type { ConnectionSettings } from './connection-settings.js';
import type { JdbcConnection } from './jdbc-connection.js';
import { openConnection } from './open-connection.js';
import { applySaveModes } from './save-mode.js';
import { JdbcSinkCommitter } from './sink-committer.js';
import { compileSinkOptions, SINK_SPEC, type SinkConfig } from './sink-options.js';
import { sinkTarget, type SinkTarget } from './sink-target.js';
import { JdbcSinkWriter, type JdbcWriterState } from './sink-writer.js';
import { jobXidPrefix, rollbackAllPrepared, xidPrefix, type JdbcCommitInfo } from './xa-transactions.js';

/** Tries to roll back a cancelled job's prepared transactions while MariaDB still detaches them (about 10 s). */
const ABANDON_ATTEMPTS = 10;

/** The Jdbc sink: writes rows and changelogs to PostgreSQL and MySQL/MariaDB. */
export class JdbcSink implements Sink<JdbcCommitInfo, unknown, JdbcWriterState>, ComparableTables {
  readonly config: SinkConfig;
  readonly targets: SinkTarget[];
  private readonly settings: ConnectionSettings;

  constructor(private readonly ctx: PluginContext) {
    let cfg = compileSinkOptions(ctx.options);
    // PostgreSQL connects to one database: the `database` option names it when it is fixed.
    if (cfg.connection.target.dialect === 'postgresql' && cfg.database !== undefined && !cfg.database.includes('${')) {
      cfg = { ...cfg, connection: compileConnection(ctx.options, cfg.database) };
    }
    this.config = cfg;
    this.settings = cfg.connection.settings;
    if (ctx.inputTables.length === 0) {
      throw new ConfigError(ErrorCode.CONFIG_WIRING, 'the Jdbc sink has no input table', { place: ctx.options.place() });
    }
    if (cfg.query !== undefined && ctx.inputTables.length > 1) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        'query writes one table; with several input tables use generate_sink_sql with database/table',
        {
          place: ctx.options.place('query'),
        },
      );
    }
    this.targets = ctx.inputTables.map((t) => sinkTarget(cfg, cfg.connection.target.dialect, t, ctx.options.place('table')));
    // A query's parameters are checked against the input table when the job is planned.
    if (cfg.query !== undefined) {
      compileSinkQuery(
        cfg.query,
        ctx.inputTables[0].columns.map((c) => c.name),
        cfg.connection.target.dialect,
        ctx.options.place('query'),
      );
    }
  }

  /** Applies schema_save_mode and data_save_mode to every target table. */
  async prepare(): Promise<void> {
    if (this.config.table === undefined) return;
    const conn = await this.connect();
    try {
      await applySaveModes(conn, this.config, this.targets, this.ctx.options.place());
    } finally {
      await conn.close();
    }
  }

  createWriter(ctx: SinkWriterContext, restored?: JdbcWriterState[]): SinkWriter<JdbcCommitInfo, JdbcWriterState> {
    const restoredXids = (restored ?? []).flatMap((s) => s.preparedXids);
    return new JdbcSinkWriter(
      this.config,
      this.targets,
      () => this.connect(),
      // Where it writes tells two Jdbc sinks of one job apart (a dead-letter table beside the job's own, two targets on one
      // server): a restored writer rolls back the prepared ids of its prefix that its state does not hold.
      xidPrefix(this.ctx.jobId, ctx.subtaskIndex, [this.config.database, this.config.table, this.config.query].join('\u0000')),
      this.ctx.options.place(),
      restoredXids,
    );
  }

  /**
   * The job was cancelled: rolls back every transaction its writers prepared and no checkpoint
   * committed (ROLLBACK PREPARED / XA ROLLBACK of the job's ids), which would otherwise hold
   * their locks forever. Without is_exactly_once nothing is ever left prepared.
   */
  async abandon(): Promise<void> {
    if (!this.config.exactlyOnce) return;
    const place = this.ctx.options.place();
    try {
      const conn = await this.connect();
      try {
        await rollbackAllPrepared(conn, jobXidPrefix(this.ctx.jobId), ABANDON_ATTEMPTS);
      } finally {
        await conn.close();
      }
    } catch (err) {
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `rolling back the prepared transactions of cancelled job ${this.ctx.jobId} failed: ${describeDbError(err)}`,
        { place, cause: err },
      );
    }
  }

  createCommitter(): SinkCommitter<JdbcCommitInfo> {
    return new JdbcSinkCommitter(() => this.connect(), this.config.maxCommitAttempts, this.ctx.options.place());
  }

  openComparisonSession(): Promise<JdbcConnection> {
    return this.connect();
  }

  /** The target tables, for `tideway verify` (not in query mode: the statement could write anywhere). */
  comparedTables(): ComparedTable[] | string {
    if (this.config.table === undefined || this.config.query !== undefined)
      return 'the Jdbc sink writes with its own query; only sinks that generate their SQL (generate_sink_sql, table) can be compared';
    return this.targets.map((t) => ({
      tableId: t.input.tableId,
      ref: t.ref!,
      columns: t.columns,
      keyColumns: t.keyIndexes.map((i) => t.columns[i]),
    }));
  }

  private connect(): Promise<JdbcConnection> {
    return openConnection(this.settings, this.ctx.options.place('url'));
  }
}

/** SeaTunnel's `Jdbc` sink. */
export const jdbcSinkFactory: SinkFactory = {
  name: 'Jdbc',
  type: 'sink',
  description:
    "Writes to PostgreSQL and MySQL/MariaDB: COPY or multi-row inserts, upserts and deletes by primary key for changelogs, table creation (save modes), and exactly-once through prepared (XA) transactions. On PostgreSQL plain inserts stream into a COPY in the binary format when every column type allows it (text otherwise; fed directly by a Jdbc source on PostgreSQL, the source's binary tuples go in as they came when the target columns have the source's types, decision 0104), and upserts go by COPY into a temporary table of the session, then one INSERT ... SELECT ... ON CONFLICT (multi-row INSERT statements with is_exactly_once, or for a role without the TEMPORARY privilege). SQLite (a database file, created when missing): multi-row INSERT and INSERT ... ON CONFLICT DO UPDATE with primary_keys; writers of one file take turns on its write lock, waiting up to connection_check_timeout_sec (keep auto_commit with parallelism > 1); is_exactly_once, transaction_timeout_sec and schema changes are refused (no XA), so delivery is at-least-once, idempotent with primary_keys. Firebird 3 (jdbc:firebirdsql://host:port/path, driver org.firebirdsql.jdbc.FBDriver): one prepared INSERT, UPDATE OR INSERT ... MATCHING (keys) or DELETE per row inside the batch transaction; names are quoted as written (Firebird upper-cases unquoted names: a table created as orders is ORDERS) and hold at most 31 bytes; created columns: SMALLINT (tinyint, smallint), INTEGER, BIGINT, FLOAT, DOUBLE PRECISION, DECIMAL(p,s) up to 18 digits (wider is refused), BOOLEAN, DATE, TIME, TIMESTAMP (also timestamp_tz, as UTC; fractions cut to 1/10000 s), BLOB SUB_TYPE TEXT for strings and JSON of arrays, maps and rows (VARCHAR(255) for key columns), BLOB SUB_TYPE BINARY for bytes; is_exactly_once, transaction_timeout_sec and schema changes are refused (decision 0075).",
  spec: SINK_SPEC,
  create: (ctx: PluginContext) => new JdbcSink(ctx),
};
