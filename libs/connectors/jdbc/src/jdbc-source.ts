import type { CatalogTable, PluginContext, Source, SourceFactory, SourceReader, SplitEnumerator } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { ComparableTables, ComparedTable } from './compared-tables.js';
import type { JdbcConnection } from './jdbc-connection.js';
import type { JdbcSplit } from './jdbc-split.js';
import { openConnection } from './open-connection.js';
import { JdbcSourceReader } from './source-reader.js';
import { compileSourceOptions, SOURCE_SPEC, type SourceConfig } from './source-options.js';
import { discoverTables, type SourceTable } from './source-tables.js';
import { JdbcSplitEnumerator, type JdbcEnumeratorState } from './split-enumerator.js';
import { planSplits } from './split-planner.js';
import { resolveTableRef } from './table-ref.js';

/** The Jdbc source: bounded reads of tables or queries from PostgreSQL and MySQL/MariaDB. */
export class JdbcSource implements Source<JdbcSplit, JdbcEnumeratorState>, ComparableTables {
  private tables: SourceTable[] | undefined;
  readonly config: SourceConfig;

  constructor(private readonly ctx: PluginContext) {
    this.config = compileSourceOptions(ctx.options);
  }

  boundedness(): 'BOUNDED' {
    return 'BOUNDED';
  }

  /** Reads the tables' schemas from the database (columns, types, nullability, primary key). */
  async prepare(): Promise<void> {
    const conn = await this.connect();
    try {
      this.tables = await discoverTables(conn, this.config);
    } finally {
      await conn.close();
    }
  }

  catalogTables(): CatalogTable[] {
    if (!this.tables) {
      throw new TidewayError(
        ErrorCode.INTERNAL,
        'the Jdbc source must be prepared (its schema read from the database) before its tables are asked for',
        {
          place: this.ctx.options.place(),
        },
      );
    }
    return this.tables.map((t) => t.catalog);
  }

  createEnumerator(
    ctx: Parameters<Source<JdbcSplit>['createEnumerator']>[0],
    restored?: JdbcEnumeratorState,
  ): SplitEnumerator<JdbcSplit, JdbcEnumeratorState> {
    return new JdbcSplitEnumerator(
      ctx,
      () => this.connect(),
      async (conn) =>
        planSplits(conn, this.tables ?? (this.tables = await discoverTables(conn, this.config)), this.config, ctx.parallelism),
      restored,
    );
  }

  createReader(ctx: Parameters<Source<JdbcSplit>['createReader']>[0]): SourceReader<JdbcSplit> {
    return new JdbcSourceReader(ctx, () => this.connect(), this.config.fetchSize, this.ctx.options.place());
  }

  openComparisonSession(): Promise<JdbcConnection> {
    return this.connect();
  }

  /** The tables read whole (table_path without query or where_condition), for `tideway verify`. */
  comparedTables(): ComparedTable[] | string {
    const out: ComparedTable[] = [];
    for (const t of this.tables ?? []) {
      const c = t.config;
      if (c.tablePath === undefined || c.query !== undefined || this.config.whereCondition !== undefined) {
        return `the Jdbc source reads ${c.tablePath === undefined ? `the query '${c.query}'` : `table ${c.tablePath} through a query or where_condition`}; only whole tables (table_path) can be compared`;
      }
      const ref = resolveTableRef(this.config.connection.target.dialect, c.tablePath, this.config.connection.target.database, c.place);
      out.push({
        tableId: t.catalog.tableId,
        ref,
        columns: t.catalog.columns.map((col) => col.name),
        keyColumns: t.catalog.primaryKey?.columns ?? [],
      });
    }
    return out;
  }

  private connect(): Promise<JdbcConnection> {
    // A source only reads: a SQLite file is opened read-only and must exist.
    return openConnection({ ...this.config.connection.settings, readOnly: true }, this.ctx.options.place('url'));
  }
}

/** SeaTunnel's `Jdbc` source. */
export const jdbcSourceFactory: SourceFactory = {
  name: 'Jdbc',
  type: 'source',
  description:
    "Reads tables or queries from PostgreSQL and MySQL/MariaDB over their native protocols (JDBC URLs and driver names as in SeaTunnel). Splits numeric keys into ranges read in parallel; values keep exact precision. PostgreSQL splits stream with COPY (query) TO STDOUT; feeding a Jdbc sink on PostgreSQL directly (no transform, other sink or row-error handling between them), a table whose column types the target has too is read in COPY's binary format and its rows go to the sink undecoded (decision 0104). MySQL results stream row by row. SQLite (jdbc:sqlite:/path/file.db) is read from an existing file opened read-only; declared column types map to SeaTunnel types, expression columns by their first value. Firebird 3 (jdbc:firebirdsql://host:port/path) is read over its wire protocol, numerics exactly and dates and times to 1/10000 s, each split in a read-only snapshot; table_path is the table alone, quoted as written (unquoted names are upper-case in Firebird). Firebird 3 types read as: SMALLINT smallint, INTEGER int, BIGINT bigint, NUMERIC/DECIMAL(p,s) decimal(p,s), FLOAT float, DOUBLE PRECISION double, BOOLEAN boolean, DATE date, TIME time, TIMESTAMP timestamp (to 1/10000 s), CHAR/VARCHAR string (CHARACTER SET OCTETS: bytes), BLOB SUB_TYPE TEXT string, other BLOBs bytes; the Firebird 4 types INT128, DECFLOAT and WITH TIME ZONE, and arrays, are refused by column.",
  spec: SOURCE_SPEC,
  create: (ctx: PluginContext) => new JdbcSource(ctx),
};
