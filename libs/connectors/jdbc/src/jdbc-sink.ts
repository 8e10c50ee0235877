import type { PluginContext, Sink, SinkCommitter, SinkFactory, SinkWriter, SinkWriterContext } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { compileConnection } from './connection-options.js';
import type { ConnectionSettings } from './connection-settings.js';
import type { JdbcConnection } from './jdbc-connection.js';
import { openConnection } from './open-connection.js';
import { applySaveModes } from './save-mode.js';
import { JdbcSinkCommitter } from './sink-committer.js';
import { compileSinkOptions, SINK_SPEC, type SinkConfig } from './sink-options.js';
import { sinkTarget, type SinkTarget } from './sink-target.js';
import { JdbcSinkWriter, type JdbcWriterState } from './sink-writer.js';
import { xidPrefix, type JdbcCommitInfo } from './xa-transactions.js';

/** The Jdbc sink: writes rows and changelogs to PostgreSQL and MySQL/MariaDB. */
export class JdbcSink implements Sink<JdbcCommitInfo, unknown, JdbcWriterState> {
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
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, 'query writes one table; with several input tables use generate_sink_sql with database/table', {
        place: ctx.options.place('query'),
      });
    }
    this.targets = ctx.inputTables.map((t) => sinkTarget(cfg, cfg.connection.target.dialect, t, ctx.options.place('table')));
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
    return new JdbcSinkWriter(this.config, this.targets, () => this.connect(), xidPrefix(this.ctx.jobId, ctx.subtaskIndex), this.ctx.options.place(), restoredXids);
  }

  createCommitter(): SinkCommitter<JdbcCommitInfo> {
    return new JdbcSinkCommitter(() => this.connect(), this.config.maxCommitAttempts, this.ctx.options.place());
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
    'Writes to PostgreSQL and MySQL/MariaDB: COPY or multi-row inserts, upserts and deletes by primary key for changelogs, table creation (save modes), and exactly-once through prepared (XA) transactions.',
  spec: SINK_SPEC,
  create: (ctx: PluginContext) => new JdbcSink(ctx) as unknown as Sink,
};
