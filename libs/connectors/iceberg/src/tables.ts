import type { CatalogTable, Row, SchemaChangeEvent, SinkAggregatedCommitter, SinkWriter, SinkWriterContext } from '@tideway/api';
import { ErrorCode, logger, TidewayError } from '@tideway/common';
import { formatIdent, type IcebergCatalog, type TableIdent } from './catalog.js';
import { IcebergCommitter } from './committer.js';
import type { IcebergCommitInfo, PreparedFile } from './writer.js';

const log = logger('iceberg-sink');

/** One Iceberg table's files of a checkpoint. */
export interface IcebergTableFiles {
  readonly namespace: readonly string[];
  readonly name: string;
  readonly files: readonly PreparedFile[];
}

/** What a writer hands over at a checkpoint: each of its tables' files, and whose they are. */
export interface IcebergTablesCommitInfo {
  readonly jobId: string;
  readonly checkpointId: number;
  readonly tables: readonly IcebergTableFiles[];
}

/** Where one input table goes: its Iceberg table, made ready by the save modes, and its writer. */
export interface TableTarget {
  readonly ident: TableIdent;
  /** Save modes: creates (or recreates, checks, empties) the Iceberg table in `catalog`. */
  prepare(catalog: IcebergCatalog): Promise<void>;
  createWriter(catalog: IcebergCatalog, ctx: SinkWriterContext): SinkWriter<IcebergCommitInfo>;
}

const identKey = (t: TableIdent): string => JSON.stringify([...t.namespace, t.name]);

/** `catalog` for one table's writer or committer: every call goes to it, but close() is the owner's. */
export function sharedCatalog(catalog: IcebergCatalog): IcebergCatalog {
  return {
    io: catalog.io,
    description: catalog.description,
    defaultLocation: (ident) => catalog.defaultLocation(ident),
    load: (ident) => catalog.load(ident),
    create: (ident, metadata) => catalog.create(ident, metadata),
    commit: (ident, base, next) => catalog.commit(ident, base, next),
    drop: (ident) => catalog.drop(ident),
    close: async () => undefined,
  };
}

/**
 * The sink's writer: one IcebergWriter per input table (one Iceberg table each), rows handed to
 * their table's writer in order, schema changes to the changed table's writer. A table created
 * at the source while the job runs gets its Iceberg table (the save modes) and a writer before
 * its first row. At a checkpoint each table's files are handed over together, tagged with their
 * table, so the committer commits one snapshot per table.
 */
export class IcebergTablesWriter implements SinkWriter<IcebergTablesCommitInfo> {
  private readonly writers = new Map<string, { ident: TableIdent; writer: SinkWriter<IcebergCommitInfo> }>();
  private readonly catalog: IcebergCatalog;
  /** env.sink_error_handler: handed to each table's writer (IcebergWriter.handleRowErrors). */
  private reject: ((row: Row, error: Error) => void) | undefined;

  constructor(
    targets: ReadonlyMap<string, TableTarget>,
    catalog: IcebergCatalog,
    private readonly jobId: string,
    private readonly ctx: SinkWriterContext,
    /** The target of a table created at the source while the job runs (its options' placeholders replaced). */
    private readonly targetOf: (table: CatalogTable) => TableTarget,
  ) {
    this.catalog = catalog;
    for (const [tableId, t] of targets) this.writers.set(tableId, { ident: t.ident, writer: t.createWriter(sharedCatalog(catalog), ctx) });
  }

  /** Each table's writer hands the rows no file of its table can hold to `reject` (IcebergWriter.handleRowErrors). */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
    for (const { writer } of this.writers.values()) writer.handleRowErrors?.(reject);
  }

  /** The writer of `tableId`; with one input table, it takes every row whatever its table id (as a single-table sink does). */
  private writerOf(tableId: string): SinkWriter<IcebergCommitInfo> {
    const own = this.writers.get(tableId);
    if (own) return own.writer;
    if (this.writers.size === 1) return [...this.writers.values()][0].writer;
    throw new TidewayError(
      ErrorCode.INTERNAL,
      `The Iceberg sink got a row of table ${tableId}, which is not one of its input tables (${[...this.writers.keys()].join(', ')}).`,
    );
  }

  async write(rows: readonly Row[]): Promise<void> {
    if (this.writers.size === 1) return this.writerOf(rows[0]?.tableId ?? '').write(rows);
    const byTable = new Map<string, Row[]>();
    for (const row of rows) {
      const list = byTable.get(row.tableId);
      if (list) list.push(row);
      else byTable.set(row.tableId, [row]);
    }
    for (const [tableId, list] of byTable) await this.writerOf(tableId).write(list);
  }

  async prepareCommit(checkpointId: number): Promise<IcebergTablesCommitInfo | undefined> {
    const tables: IcebergTableFiles[] = [];
    for (const { ident, writer } of this.writers.values()) {
      const info = await writer.prepareCommit?.(checkpointId);
      if (info?.files.length) tables.push({ namespace: ident.namespace, name: ident.name, files: info.files });
    }
    return tables.length ? { jobId: this.jobId, checkpointId, tables } : undefined;
  }

  async applySchemaChange(event: SchemaChangeEvent): Promise<void> {
    if (event.created && !this.writers.has(event.tableId)) {
      const target = this.targetOf(event.table);
      await target.prepare(sharedCatalog(this.catalog)); // as prepare() did for the job's first tables; a table another writer made is kept
      const writer = target.createWriter(sharedCatalog(this.catalog), this.ctx);
      if (this.reject) writer.handleRowErrors?.(this.reject);
      this.writers.set(event.tableId, { ident: target.ident, writer });
      log.info({ table: event.tableId, iceberg: formatIdent(target.ident) }, 'new source table: writing it to its own Iceberg table');
      return;
    }
    await this.writerOf(event.tableId).applySchemaChange?.(event);
  }

  async abortPrepare(): Promise<void> {
    for (const { writer } of this.writers.values()) await writer.abortPrepare?.();
  }

  async close(): Promise<void> {
    try {
      for (const { writer } of this.writers.values()) await writer.close();
    } finally {
      await this.catalog.close();
    }
  }
}

/**
 * Commits each checkpoint's files as one snapshot per Iceberg table, each table by its own
 * IcebergCommitter: a table's snapshot names the job and the checkpoint, so a restore after a
 * crash between two tables' commits skips the tables that have the checkpoint and commits the
 * others, each exactly once.
 */
export class IcebergTablesCommitter implements SinkAggregatedCommitter<IcebergTablesCommitInfo, IcebergTablesCommitInfo> {
  private readonly committers = new Map<string, IcebergCommitter>();

  constructor(
    private readonly catalog: IcebergCatalog,
    private readonly branch: string,
    /** The sink's table when it has one input table: the table of commit infos of checkpoints taken before multi-table sinks (files, no tables). */
    private readonly soleTable?: TableIdent,
  ) {}

  /** The tables of `info`; a single-table info of an older checkpoint is the sink's one table's. */
  private tablesOf(info: IcebergTablesCommitInfo): readonly IcebergTableFiles[] {
    if (info.tables) return info.tables;
    const files = (info as unknown as Partial<IcebergCommitInfo>).files;
    if (!files || !this.soleTable) {
      throw new TidewayError(ErrorCode.INTERNAL, `An Iceberg commit info of checkpoint ${info.checkpointId} names no table.`);
    }
    return [{ namespace: this.soleTable.namespace, name: this.soleTable.name, files }];
  }

  private committerOf(ident: TableIdent): IcebergCommitter {
    const key = identKey(ident);
    let c = this.committers.get(key);
    if (!c) {
      c = new IcebergCommitter(sharedCatalog(this.catalog), { namespace: ident.namespace, name: ident.name }, this.branch);
      this.committers.set(key, c);
    }
    return c;
  }

  /** Each table's commit infos of `infos`, in the order the tables first come. */
  private byTable(infos: readonly IcebergTablesCommitInfo[]): { ident: TableIdent; infos: IcebergCommitInfo[] }[] {
    const out = new Map<string, { ident: TableIdent; infos: IcebergCommitInfo[] }>();
    for (const info of infos) {
      for (const t of this.tablesOf(info)) {
        const key = identKey(t);
        let entry = out.get(key);
        if (!entry) out.set(key, (entry = { ident: { namespace: t.namespace, name: t.name }, infos: [] }));
        entry.infos.push({ jobId: info.jobId, checkpointId: info.checkpointId, files: t.files });
      }
    }
    return [...out.values()];
  }

  combine(infos: IcebergTablesCommitInfo[]): IcebergTablesCommitInfo {
    const tables = this.byTable(infos).map(({ ident, infos: parts }) => ({
      namespace: ident.namespace,
      name: ident.name,
      files: parts.flatMap((p) => p.files),
    }));
    return { jobId: infos[0]?.jobId ?? '', checkpointId: Math.max(-1, ...infos.map((i) => i.checkpointId)), tables };
  }

  async commit(infos: IcebergTablesCommitInfo[]): Promise<IcebergTablesCommitInfo[]> {
    for (const { ident, infos: parts } of this.byTable(infos)) await this.committerOf(ident).commit(parts);
    return [];
  }

  async abort(infos: IcebergTablesCommitInfo[]): Promise<void> {
    for (const { ident, infos: parts } of this.byTable(infos)) await this.committerOf(ident).abort(parts);
  }

  async close(): Promise<void> {
    await this.catalog.close();
  }
}
