import type {
  CatalogTable,
  PluginContext,
  PluginSpec,
  Source,
  SourceFactory,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { externalError, type ComparableTables, type ComparedTable, type JdbcConnection } from '@tideway/connector-jdbc';
import { comparedCapturedTables } from './captured-tables.js';
import type { CdcCatalog, CdcSourceConfig, JdbcCapturedTable, SchemaRecord } from './cdc-catalog.js';
import { CdcSplitEnumerator, type CdcEnumeratorState } from './cdc-enumerator.js';
import { CdcSourceReader, type ReaderEnvelope } from './cdc-reader.js';
import {
  COMPATIBLE_DEBEZIUM_TABLE,
  DebeziumEnvelope,
  debeziumTopic,
  type DebeziumConnector,
  envelopeOptions,
  type DebeziumEnvelopeOptions,
  type SourcePosition,
} from './debezium-envelope.js';
import type { CdcSplit } from './cdc-splits.js';
import type { ChangePositions } from './change-positions.js';
import type { CdcDialect, TableReconciliation } from './change-stream.js';

/**
 * A CDC source (SeaTunnel's MySQL-CDC, Postgres-CDC): an unbounded source whose tables are read
 * when it is prepared, whose enumerator plans once (the start position taken before any chunk is
 * read, the schema record at it, the snapshot chunks with startup.mode = initial) and whose
 * readers read chunks, then stream, through the database's dialect. A subclass says where the
 * stream starts and how positions compare; its catalog and dialect do the rest.
 */
export abstract class CdcSource<P, W, C extends JdbcConnection, T extends JdbcCapturedTable, Cfg extends CdcSourceConfig>
  implements Source<CdcSplit<P, W>, CdcEnumeratorState>, ComparableTables, ChangePositions
{
  protected tables: T[] | undefined;
  readonly catalog: CdcCatalog<C, T, Cfg>;

  /** `Catalog` compiles the options (once the job mode is checked); `Dialect` is each reader's. */
  constructor(
    ctx: PluginContext,
    plugin: string,
    Catalog: new (options: PluginContext['options']) => CdcCatalog<C, T, Cfg>,
    private readonly Dialect: new (catalog: CdcCatalog<C, T, Cfg>) => CdcDialect<P, W>,
    /** Debezium's connector name for this source (the source block of format COMPATIBLE_DEBEZIUM_JSON). */
    debeziumConnector: DebeziumConnector,
  ) {
    if (ctx.jobMode === 'BATCH') {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${plugin} is a streaming source: set env job.mode = "STREAMING"`, {
        place: ctx.options.place(),
      });
    }
    this.catalog = new Catalog(ctx.options);
    if (this.catalog.cfg.compatibleDebeziumJson)
      this.envelopeOptions = envelopeOptions(debeziumConnector, this.catalog.cfg.debezium, ctx.options.place('debezium'));
  }

  /** format COMPATIBLE_DEBEZIUM_JSON: the envelope's options (undefined: typed rows). */
  private readonly envelopeOptions: DebeziumEnvelopeOptions | undefined;

  /** A stream position's fields in Debezium's source block (MySQL file and pos, PostgreSQL lsn). */
  protected abstract debeziumPosition(position: P): SourcePosition;

  get config(): Cfg {
    return this.catalog.cfg;
  }

  /** Where the stream starts (called on the planning session, after the check and the tables' discovery). */
  protected abstract startPosition(conn: C, tables: readonly T[]): Promise<P>;

  /** The change stream's end now (for `tideway verify`). */
  abstract currentChangePosition(): Promise<P>;
  abstract changePositionReached(checkpointed: unknown, recorded: unknown): boolean;
  abstract formatChangePosition(position: unknown): string;

  /** Before the tables are discovered on the preparing session (e.g. a position that must precede the listing). */
  protected async beforeDiscovery(_conn: C): Promise<void> {}

  boundedness(): 'UNBOUNDED' {
    return 'UNBOUNDED';
  }

  /** Reads the tables' schemas and checks that the server streams changes. */
  async prepare(): Promise<void> {
    await this.onSession(async (conn) => {
      await this.beforeDiscovery(conn);
      this.tables = await this.catalog.discover(conn);
    });
    if (this.envelopeOptions) {
      // A column the format cannot write fails the job at planning, naming it.
      const check = new DebeziumEnvelope(this.envelopeOptions);
      for (const t of this.tables ?? []) {
        const problem = check.problem(t.catalog);
        if (problem)
          throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `format COMPATIBLE_DEBEZIUM_JSON cannot write ${problem}`, {
            place: this.config.place,
          });
      }
    }
  }

  catalogTables(): CatalogTable[] {
    if (this.envelopeOptions) return [COMPATIBLE_DEBEZIUM_TABLE];
    if (!this.tables)
      throw new TidewayError(
        ErrorCode.INTERNAL,
        `${this.catalog.plugin} must be prepared (its schema read) before its tables are asked for`,
        {
          place: this.config.place,
        },
      );
    return this.tables.map((t) => t.catalog);
  }

  createEnumerator(ctx: SplitEnumeratorContext<CdcSplit>, restored?: CdcEnumeratorState): SplitEnumerator<CdcSplit, CdcEnumeratorState> {
    return new CdcSplitEnumerator(
      ctx,
      () => this.plan(),
      restored,
      (schema) => this.reconcile(schema),
    );
  }

  /** Every split the enumerator will hand out, planned now (for tests that drive one reader without an enumerator). */
  planSplits(): Promise<CdcSplit[]> {
    return this.plan();
  }

  createReader(ctx: SourceReaderContext): SourceReader<CdcSplit<P, W>> {
    let debezium: ReaderEnvelope<P> | undefined;
    if (this.envelopeOptions)
      debezium = {
        envelope: new DebeziumEnvelope(this.envelopeOptions),
        position: (p) => this.debeziumPosition(p),
      };
    return new CdcSourceReader(new this.Dialect(this.catalog), this.config.fetchSize, ctx, debezium);
  }

  openComparisonSession(): Promise<C> {
    return this.catalog.connect();
  }

  /** The captured tables, for `tideway verify`. */
  comparedTables(): ComparedTable[] {
    return comparedCapturedTables(this.tables);
  }

  /**
   * Format COMPATIBLE_DEBEZIUM_JSON: the topic of each captured table's records, by table id (for
   * `tideway verify` through Kafka); undefined with typed rows, whose tables are their own.
   */
  recordTopics(): Map<string, string> | undefined {
    const opts = this.envelopeOptions;
    if (!opts) return undefined;
    return new Map((this.tables ?? []).map((t) => [t.catalog.tableId, debeziumTopic(opts, t.catalog.path)]));
  }

  /** Takes the start position before any chunk is read, reads the schema record at it, then cuts the tables into chunks. */
  private plan(): Promise<CdcSplit[]> {
    return this.onSession(async (conn) => {
      const tables = this.tables ?? (this.tables = await this.catalog.discover(conn));
      const position = await this.startPosition(conn, tables);
      // The tables' columns as of the start position: the stream may open later, after a DDL.
      const schema = await this.recordOf(conn, tables);
      const splits: CdcSplit[] = [];
      if (this.config.startupMode === 'initial') for (const t of tables) splits.push(...(await this.catalog.chunksOf(conn, t)));
      splits.push({ splitId: 'stream', kind: 'stream', position, skip: 0, chunks: [], schema });
      return splits;
    });
  }

  /** A restore whose stream split the enumerator still holds: CdcCatalog.reconcile on the tables captured now. */
  private reconcile(schema: unknown): Promise<TableReconciliation & { captured: string[] }> {
    return this.onSession(async (conn) => {
      const tables = this.tables ?? (this.tables = await this.catalog.discover(conn));
      return { ...(await this.catalog.reconcile(conn, tables, schema)), captured: tables.map((t) => t.catalog.tableId) };
    });
  }

  private async recordOf(conn: C, tables: readonly T[]): Promise<SchemaRecord> {
    try {
      return await this.catalog.readSchemaRecord(conn, tables);
    } catch (err) {
      throw externalError("reading the captured tables' columns", err, this.config.place);
    }
  }

  /** Runs `work` on a checked session of its own, closed after. */
  private async onSession<R>(work: (conn: C) => Promise<R>): Promise<R> {
    const conn = await this.catalog.connect();
    try {
      await this.catalog.check(conn);
      return await work(conn);
    } finally {
      await conn.close();
    }
  }
}

/** A CDC source's plugin factory (SeaTunnel's plugin name, its options, the paragraph `tideway describe` shows). */
export function cdcSourceFactory(
  name: string,
  spec: PluginSpec,
  source: { new (ctx: PluginContext): Source; readonly description: string },
): SourceFactory {
  return { name, type: 'source', description: source.description, spec, create: (ctx) => new source(ctx) };
}
