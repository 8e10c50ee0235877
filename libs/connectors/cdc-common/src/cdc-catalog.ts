import type { CatalogTable } from '@tideway/api';
import { TidewayError, textOf, type Place } from '@tideway/common';
import {
  externalError,
  openConnection,
  tablePathOf,
  type ConnectionSettings,
  type JdbcConnection,
  type ResultColumn,
  type TableRef,
} from '@tideway/connector-jdbc';
import { discoverCapturedTables, type CapturedTable } from './captured-tables.js';
import { matchedTableNames, withRetries, type CdcCommonConfig } from './cdc-options.js';
import type { SnapshotSplit } from './cdc-splits.js';
import type { TableReconciliation } from './change-stream.js';
import { planChunks, wholeTableSplit, type KeyQueries } from './chunk-planner.js';

/** What every CDC source's compiled options hold beside SeaTunnel's common CDC options. */
export interface CdcSourceConfig extends CdcCommonConfig {
  readonly settings: ConnectionSettings;
  readonly place: Place;
  /** schema-changes.enabled (or debezium include.schema.changes): follow column changes. */
  readonly schemaChanges: boolean;
}

/** A captured table's reference: its name as written in the config besides where it lives. */
export type NamedTableRef = TableRef & { readonly text: string };

/** A captured table of a Jdbc-reachable database. */
export type JdbcCapturedTable = CapturedTable<TableRef, ResultColumn>;

/** One captured table in a schema record: its catalog entry and the columns as its stream decodes them. */
export interface TrackedTableOf<Col> {
  readonly catalog: CatalogTable;
  readonly columns: readonly Col[];
}

/**
 * A CDC source's record of the captured tables' schemas at a stream position (plain data: it is
 * checkpointed in the stream split). Each dialect keeps what its stream needs per table beside
 * the table's catalog entry.
 */
export interface SchemaRecord<T extends { readonly catalog: CatalogTable } = { readonly catalog: CatalogTable }> {
  readonly tables: readonly T[];
}

/** The SQL a key-chunk planner runs on one table: `k` the quoted key column, `from` the quoted table. */
export type KeySql<C extends JdbcConnection> = (conn: C, k: string, from: string) => KeyQueries;

/** A decimal key value as the planner takes it (null: no rows). */
export function bigKey(v: unknown): bigint | null {
  return v === null || v === undefined ? null : BigInt(textOf(v));
}

/**
 * The database side of a CDC source that is not its change stream: sessions, the captured
 * tables (named or matched by pattern), their schema record, and the SQL that cuts a table into
 * key chunks. The source plans with it and every reader's dialect reads chunks with it.
 */
export abstract class CdcCatalog<C extends JdbcConnection, T extends JdbcCapturedTable, Cfg extends CdcSourceConfig> {
  constructor(
    readonly cfg: Cfg,
    /** The plugin name, for messages (e.g. `MySQL-CDC`). */
    readonly plugin: string,
    /** The catalog name of the tables' CatalogTables (`mysql`, `postgresql`). */
    private readonly catalogName: string,
  ) {}

  /** Fails with one sentence unless the server can stream changes as the source needs. */
  abstract check(conn: C): Promise<void>;

  /** The captured tables' schemas now, as the stream decodes them (the schema at the position planned with them). */
  abstract readSchemaRecord(conn: C, tables: readonly T[]): Promise<SchemaRecord>;

  /** The key queries the chunk planner runs on this database. */
  protected abstract readonly keySql: KeySql<C>;

  /** SQL listing the server's tables (schema or database, name) for table-pattern / database-pattern. */
  protected abstract readonly listTablesSql: string;

  /** A listed table's qualified name and database, or undefined when the config excludes it. */
  protected abstract candidate(row: unknown[]): { readonly name: string; readonly database: string } | undefined;

  /** The references of qualified table names. */
  abstract refsOf(names: readonly string[]): readonly NamedTableRef[];

  /** The table references of table-names (known when the options compiled). */
  protected abstract readonly namedRefs: readonly NamedTableRef[];

  /** Opens a session (retrying refused or dropped connections connect.max-retries times). */
  async connect(): Promise<C> {
    return (await withRetries(
      this.cfg.connectRetries,
      () => openConnection(this.cfg.settings, this.cfg.place),
      (e) => e instanceof TidewayError && e.retryable,
    )) as C;
  }

  /** Reads every captured table's columns and key (or those of `refs`: tables created while streaming). */
  async discover(conn: C, refs?: readonly NamedTableRef[]): Promise<T[]> {
    const { cfg } = this;
    return (await discoverCapturedTables(
      conn,
      (refs ?? (await this.capturedRefs(conn))).map((ref) => ({ ref, text: ref.text, path: tablePathOf(ref) })),
      cfg.overrides,
      this.catalogName,
      cfg.place,
      (what, err) => externalError(what, err, cfg.place),
    )) as T[];
  }

  /** A table's snapshot chunks: by its integer key, or one chunk for the whole table. */
  async chunksOf(conn: C, t: T): Promise<SnapshotSplit[]> {
    const key = t.chunkKey;
    if (key === undefined) return [wholeTableSplit(t.catalog.tableId)];
    const index = t.catalog.columns.findIndex((c) => c.name === key);
    return planChunks(t.catalog.tableId, key, index, this.keySql(conn, conn.quote(key), conn.tableSql(t.ref)), this.cfg.chunking);
  }

  /**
   * Before the snapshot of tables added to a restored job's config is read (`tables`: all those
   * captured now): e.g. a publication that lists its tables gains them, so that their changes
   * after the snapshot are streamed.
   */
  protected async beforeAddedSnapshot(_conn: C, _tables: readonly T[]): Promise<void> {}

  /**
   * A restored stream's schema record against the tables the config captures now (SeaTunnel's
   * restore with tables added or removed): the record loses the tables no longer captured and
   * gains the added ones with their schema now; with startup.mode = initial the added tables
   * are cut into snapshot chunks, read before the stream resumes (otherwise they are streamed
   * from the restored position on, as in SeaTunnel).
   */
  async reconcile(conn: C, tables: readonly T[], schema: unknown): Promise<TableReconciliation> {
    const record = schema as SchemaRecord;
    const known = new Set(record.tables.map((t) => t.catalog.tableId));
    const now = new Set(tables.map((t) => t.catalog.tableId));
    const added = tables.filter((t) => !known.has(t.catalog.tableId));
    const removed = [...known].filter((id) => !now.has(id));
    if (added.length === 0 && removed.length === 0) return { schema, chunks: [], added: [], removed };
    const chunks: SnapshotSplit[] = [];
    let addedRecord: SchemaRecord;
    try {
      if (added.length > 0) await this.beforeAddedSnapshot(conn, tables);
      addedRecord = await this.readSchemaRecord(conn, added);
      if (this.cfg.startupMode === 'initial')
        for (const t of added) for (const c of await this.chunksOf(conn, t)) chunks.push({ ...c, announce: true });
    } catch (err) {
      throw externalError(`reading tables ${added.map((t) => t.catalog.tableId).join(', ')}, added to the config`, err, this.cfg.place);
    }
    return {
      schema: { ...record, tables: [...record.tables.filter((t) => now.has(t.catalog.tableId)), ...addedRecord.tables] },
      chunks,
      added: added.map((t) => t.catalog.tableId),
      removed,
    };
  }

  /** The tables of table-names, or those table-pattern / database-pattern match now. */
  private async capturedRefs(conn: C): Promise<readonly NamedTableRef[]> {
    const { cfg } = this;
    if (cfg.tablePattern === undefined && cfg.databasePattern === undefined) return this.namedRefs;
    const names = await matchedTableNames(
      conn,
      cfg,
      this.listTablesSql,
      (r) => this.candidate(r),
      this.plugin,
      cfg.place,
      (what, err) => externalError(what, err, cfg.place),
    );
    return this.refsOf(names);
  }
}

/** A schema record of `tables`, each tracked by `track` (one after the other, on one session). */
export async function recordOf<T, R extends { readonly catalog: CatalogTable }>(
  tables: readonly T[],
  track: (t: T) => Promise<R>,
): Promise<SchemaRecord<R>> {
  const out: R[] = [];
  for (const t of tables) out.push(await track(t));
  return { tables: out };
}

/** A table's columns in its catalog's order (the order rows are emitted in), each with what the database says of it. */
export function inCatalogOrder<X, Y>(
  catalog: CatalogTable,
  found: ReadonlyMap<string, X>,
  make: (name: string, found: X | undefined) => Y,
): Y[] {
  return catalog.columns.map((c) => make(c.name, found.get(c.name)));
}
