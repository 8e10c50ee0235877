import {
  type Boundedness,
  type CatalogTable,
  type Collector,
  newCatalogTable,
  type PluginContext,
  type Row,
  type Source,
  type SourceFactory,
  type SourceReader,
  type SourceReaderContext,
  type SourceSplit,
  type SplitEnumerator,
  type SplitEnumeratorContext,
  formatType,
} from '@tideway/api';
import { ConfigError, ErrorCode, logger, type Place, TidewayError } from '@tideway/common';
import { formatIdent, type IcebergCatalog, type TableIdent } from './catalog.js';
import { FileIO, type IcebergFileIO } from './file-io.js';
import { type BoundPredicate, bindFilter } from './filter.js';
import { ancestry, currentSchema, currentSnapshot, type Snapshot, type TableMetadata } from './metadata.js';
import { openCatalog } from './options.js';
import { DataFileReader, type ReadField, type ReadPlan } from './reader.js';
import { engineTypeOf, readableAs } from './read-schema.js';
import { DEFAULT_SPLIT_BYTES, planAppends, planSnapshot, recordPlan, type ScanTask, snapshotsBetween } from './scan.js';
import type { IcebergField, IcebergSchema } from './schema.js';
import { ICEBERG_SOURCE_SPEC, type IcebergSourceSettings, sourceSettingsOf } from './source-options.js';

const log = logger('iceberg-source');

/** One split: a data file (or a run of its row groups) with its delete files, what to read of it, and how many of its rows were consumed. */
export interface IcebergSplit extends SourceSplit {
  readonly task: ScanTask;
  readonly plan: ReadPlan;
  /** Rows of the split's range consumed (deleted and filtered ones included). */
  readonly offset: number;
}

/** The enumerator's checkpointed state. */
export interface IcebergEnumeratorState {
  /** The batch scan (or a streaming job's first plan) is done: its splits are pending or handed out. */
  readonly planned: boolean;
  readonly pending: readonly IcebergSplit[];
  /** STREAMING: the last snapshot whose appends were enumerated ('' none yet: every append is new). */
  readonly position?: string;
}

/** The table as the job reads it: its metadata, the schema read, the output columns and the plan without delete-file fields. */
interface Resolved {
  readonly metadata: TableMetadata;
  readonly schema: IcebergSchema;
  readonly table: CatalogTable;
  readonly plan: ReadPlan;
}

/** A snapshot id option's snapshot, or a refusal naming the option. */
function snapshotById(m: TableMetadata, id: bigint, option: string, where: string, place: (option: string) => Place): Snapshot {
  const s = m.snapshots?.find((x) => x['snapshot-id'] === id);
  if (!s) {
    const ids = (m.snapshots ?? []).map((x) => String(x['snapshot-id']));
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `snapshot ${id} is not in ${where} (its snapshots: ${ids.length ? ids.slice(-5).join(', ') : 'none'}${ids.length > 5 ? ', ...' : ''}).`,
      { place: place(option) },
    );
  }
  return s;
}

/** The latest snapshot of the current history committed at or before `ms`, or a refusal naming the option. */
function snapshotAsOf(m: TableMetadata, ms: number, option: string, where: string, place: (option: string) => Place): Snapshot {
  for (const s of ancestry(m)) if (s['timestamp-ms'] <= ms) return s;
  throw new ConfigError(
    ErrorCode.CONFIG_BAD_VALUE,
    `${where} has no snapshot committed at or before ${new Date(ms).toISOString()} (${ms}).`,
    {
      place: place(option),
    },
  );
}

/** The snapshot a BATCH snapshot scan reads (undefined: an empty table). */
function batchSnapshot(s: IcebergSourceSettings, m: TableMetadata, where: string): Snapshot | undefined {
  if (s.useSnapshotId !== undefined) return snapshotById(m, s.useSnapshotId, 'use_snapshot_id', where, s.place);
  if (s.useSnapshotTimestamp !== undefined) return snapshotAsOf(m, s.useSnapshotTimestamp, 'use_snapshot_timestamp', where, s.place);
  return currentSnapshot(m);
}

/** The schema a snapshot was written with (time travel reads it), else the table's current one. */
function schemaOf(m: TableMetadata, snapshot: Snapshot | undefined): IcebergSchema {
  const id = snapshot?.['schema-id'];
  return (id !== undefined && m.schemas.find((x) => x['schema-id'] === id)) || currentSchema(m);
}

/** A field of any of the table's schemas by id (equality deletes may key on a column the read schema no longer has). */
function fieldById(m: TableMetadata, schema: IcebergSchema, id: number): IcebergField | undefined {
  return (
    schema.fields.find((f) => f.id === id) ??
    [...m.schemas]
      .reverse()
      .flatMap((s) => s.fields)
      .find((f) => f.id === id)
  );
}

class IcebergSource implements Source<IcebergSplit, IcebergEnumeratorState> {
  /** The enumerator's state does not depend on the readers, and splits given back go to whichever reader asks. */
  readonly rescalable = true;
  readonly ident: TableIdent;
  readonly where: string;
  private resolved?: Resolved;

  constructor(
    readonly settings: IcebergSourceSettings,
    private readonly mode: PluginContext['jobMode'],
  ) {
    this.ident = { namespace: settings.namespace, name: settings.table };
    this.where = `Iceberg table ${formatIdent(this.ident)}`;
    openCatalog(settings); // refuses a bad catalog address or warehouse before the job starts
  }

  boundedness(): Boundedness {
    return this.mode === 'STREAMING' ? 'UNBOUNDED' : 'BOUNDED';
  }

  async prepare(): Promise<void> {
    await this.resolve();
  }

  /** Loads the table and works out what the job reads of it; refuses what does not fit, naming it. */
  async resolve(catalog?: IcebergCatalog): Promise<Resolved> {
    if (this.resolved) return this.resolved;
    const own = catalog ?? openCatalog(this.settings);
    try {
      const loaded = await own.load(this.ident);
      if (!loaded) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${this.where} does not exist in catalog '${this.settings.catalogName}' (the ${own.description}).`,
          { place: this.settings.place('table') },
        );
      }
      const m = loaded.metadata;
      const s = this.settings;
      let schema = currentSchema(m);
      if (!s.streaming) {
        if (s.startSnapshotId !== undefined || s.endSnapshotId !== undefined) {
          if (s.startSnapshotId !== undefined) snapshotById(m, s.startSnapshotId, 'start_snapshot_id', this.where, this.settings.place);
          const end =
            s.endSnapshotId !== undefined
              ? snapshotById(m, s.endSnapshotId, 'end_snapshot_id', this.where, this.settings.place)
              : currentSnapshot(m);
          if (end) snapshotsBetween(m, s.startSnapshotId, end, this.where);
        } else schema = schemaOf(m, batchSnapshot(s, m, this.where));
      } else if (s.streamScanStrategy === 'FROM_SNAPSHOT_ID')
        snapshotById(m, s.startSnapshotId!, 'start_snapshot_id', this.where, this.settings.place);
      this.resolved = { metadata: m, schema, ...this.readPlanOf(schema) };
      return this.resolved;
    } finally {
      if (!catalog) await own.close();
    }
  }

  /** The output table and the read plan of the `schema` option (or every column) and the filter. */
  private readPlanOf(schema: IcebergSchema): { table: CatalogTable; plan: ReadPlan } {
    const s = this.settings;
    const norm = (x: string): string => (s.caseSensitive ? x : x.toLowerCase());
    const fields: ReadField[] = [];
    const output: { field: number; as: ReturnType<typeof engineTypeOf> }[] = [];
    const columns = (
      s.columns ??
      schema.fields.map((f) => ({ name: f.name, type: engineTypeOf(f.type, `${this.where} column ${f.name}`), nullable: !f.required }))
    ).map((c) => {
      const f = schema.fields.find((x) => norm(x.name) === norm(c.name));
      if (!f) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `option 'schema': field ${c.name} is not a column of ${this.where} (${schema.fields.map((x) => x.name).join(', ')}).`,
        );
      }
      const where = `${this.where} column ${f.name}`;
      if (!readableAs(f.type, c.type, where)) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `option 'schema': field ${c.name} is ${formatType(engineTypeOf(f.type, where))} in ${this.where} and cannot be read as ${formatType(c.type)}.`,
        );
      }
      fields.push({ id: f.id, name: f.name, type: f.type });
      output.push({ field: fields.length - 1, as: c.type });
      return { name: c.name, type: c.type, nullable: true };
    });
    const filter: BoundPredicate[] = s.filter ? bindFilter(s.filter, schema.fields, s.caseSensitive, s.place('filter')) : [];
    for (const p of filter) {
      if (!fields.some((f) => f.id === p.fieldId)) {
        const f = schema.fields.find((x) => x.id === p.fieldId)!;
        fields.push({ id: f.id, name: f.name, type: f.type });
      }
    }
    const identifier = (schema['identifier-field-ids'] ?? []).map((id) => schema.fields.find((f) => f.id === id)?.name);
    const keyed = identifier.length > 0 && identifier.every((n) => n !== undefined && columns.some((c) => norm(c.name) === norm(n)));
    const table = newCatalogTable({ database: s.namespace.join('.'), table: s.table }, columns, {
      ...(keyed ? { primaryKey: { name: `pk_${s.table}`, columns: identifier as string[] } } : {}),
    });
    return { table, plan: { fields, output, filter } };
  }

  catalogTables(): CatalogTable[] {
    if (!this.resolved) throw new Error(`${this.where}: the source was not prepared (its table is read before the job plans).`);
    return [this.resolved.table];
  }

  createEnumerator(
    ctx: SplitEnumeratorContext<IcebergSplit>,
    restored?: IcebergEnumeratorState,
  ): SplitEnumerator<IcebergSplit, IcebergEnumeratorState> {
    return new IcebergEnumerator(this, ctx, restored);
  }

  createReader(ctx: SourceReaderContext): SourceReader<IcebergSplit> {
    return new IcebergReader(this, ctx);
  }

  /** The id of the table's rows (namespace.table, as catalogTables names it). */
  get tableId(): string {
    return newCatalogTable({ database: this.settings.namespace.join('.'), table: this.settings.table }, []).tableId;
  }
}

/** Hands splits to readers as they ask (one per request), plans the batch scan once, and polls the table in streaming jobs. */
class IcebergEnumerator implements SplitEnumerator<IcebergSplit, IcebergEnumeratorState> {
  private readonly pending: IcebergSplit[];
  private planned: boolean;
  private position: string | undefined;
  private readonly waiting = new Set<number>();
  private readonly done = new Set<number>();
  private catalog?: IcebergCatalog;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private failure?: Error;
  private polling?: Promise<void>;

  constructor(
    private readonly source: IcebergSource,
    private readonly ctx: SplitEnumeratorContext<IcebergSplit>,
    restored?: IcebergEnumeratorState,
  ) {
    this.pending = [...(restored?.pending ?? [])];
    this.planned = restored?.planned ?? false;
    this.position = restored?.position;
  }

  open(): void {
    this.catalog = openCatalog(this.source.settings);
  }

  /** The catalog's FileIO (the catalog opened when open() has not run yet). */
  private get io(): IcebergFileIO {
    this.catalog ??= openCatalog(this.source.settings);
    return this.catalog.io;
  }

  private get settings(): IcebergSourceSettings {
    return this.source.settings;
  }

  private splitsOf(tasks: readonly ScanTask[], m: TableMetadata, schema: IcebergSchema, plan: ReadPlan, tag: string): IcebergSplit[] {
    return tasks.map((task) => {
      const extra: ReadField[] = [];
      for (const d of task.deletes) {
        for (const id of d.equalityIds ?? []) {
          if (plan.fields.some((f) => f.id === id) || extra.some((f) => f.id === id)) continue;
          const f = fieldById(m, schema, id);
          if (!f)
            throw new Error(
              `${this.source.where}: equality delete file ${d.path} is keyed by field ${id}, which no schema of the table has.`,
            );
          extra.push({ id: f.id, name: f.name, type: f.type });
        }
      }
      return {
        splitId: `${tag}:${task.path}${task.rowGroups ? `#${task.rowGroups[0]}` : ''}`,
        task,
        plan: extra.length ? { ...plan, fields: [...plan.fields, ...extra] } : plan,
        offset: 0,
      };
    });
  }

  private splitBytes(m: TableMetadata): number {
    const v = Number(m.properties?.['read.split.target-size']);
    return Number.isFinite(v) && v > 0 ? v : DEFAULT_SPLIT_BYTES;
  }

  /** The first plan: the batch scan, or where a streaming job starts (with the table scan of TABLE_SCAN_THEN_INCREMENTAL). */
  private async plan(): Promise<void> {
    const r = await this.source.resolve(this.catalog);
    const m = r.metadata;
    const s = this.settings;
    const where = this.source.where;
    const ctx = { metadata: m, schema: r.schema, filter: r.plan.filter, splitBytes: this.splitBytes(m), where, io: this.io };
    if (!s.streaming) {
      if (s.startSnapshotId !== undefined || s.endSnapshotId !== undefined) {
        const end =
          s.endSnapshotId !== undefined
            ? snapshotById(m, s.endSnapshotId, 'end_snapshot_id', where, this.settings.place)
            : currentSnapshot(m);
        const { tasks, stats } = end
          ? await planAppends(ctx, snapshotsBetween(m, s.startSnapshotId, end, where))
          : { tasks: [], stats: undefined };
        if (stats) recordPlan(stats, 'incremental append scan', where);
        this.pending.push(...this.splitsOf(tasks, m, r.schema, r.plan, `append-${String(end?.['snapshot-id'])}`));
        return;
      }
      const snapshot = batchSnapshot(s, m, where);
      if (!snapshot) return;
      const { tasks, stats } = await planSnapshot(ctx, snapshot);
      recordPlan(stats, `scan of snapshot ${snapshot['snapshot-id']}`, where);
      this.pending.push(...this.splitsOf(tasks, m, r.schema, r.plan, String(snapshot['snapshot-id'])));
      return;
    }
    const current = currentSnapshot(m);
    let start: Snapshot | undefined;
    switch (s.streamScanStrategy) {
      case 'TABLE_SCAN_THEN_INCREMENTAL':
        if (current) {
          const { tasks, stats } = await planSnapshot(ctx, current);
          recordPlan(stats, `scan of snapshot ${current['snapshot-id']}`, where);
          this.pending.push(...this.splitsOf(tasks, m, r.schema, r.plan, String(current['snapshot-id'])));
        }
        this.position = current ? String(current['snapshot-id']) : '';
        return;
      case 'FROM_LATEST_SNAPSHOT':
        start = current;
        break;
      case 'FROM_EARLIEST_SNAPSHOT':
        start = [...ancestry(m)].at(-1);
        break;
      case 'FROM_SNAPSHOT_ID':
        start = snapshotById(m, s.startSnapshotId!, 'start_snapshot_id', where, this.settings.place);
        break;
      case 'FROM_SNAPSHOT_TIMESTAMP':
        start = [...ancestry(m)].reverse().find((x) => x['timestamp-ms'] >= s.startSnapshotTimestamp!);
        if (!start) {
          // nothing committed since then: the appends after the current snapshot
          this.position = current ? String(current['snapshot-id']) : '';
          return;
        }
        break;
    }
    // the start snapshot's own appends are read: the position is its parent ('' none)
    const parent = start?.['parent-snapshot-id'];
    this.position = start ? (parent === undefined ? '' : String(parent)) : '';
  }

  /** STREAMING: the appends committed since the position, as splits. */
  private async poll(): Promise<void> {
    const loaded = await this.catalog!.load(this.source.ident);
    if (!loaded)
      throw new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `${this.source.where} is gone from catalog '${this.settings.catalogName}'.`);
    const m = loaded.metadata;
    const current = currentSnapshot(m);
    if (!current || String(current['snapshot-id']) === this.position) return;
    const r = await this.source.resolve(this.catalog);
    const from = this.position === '' || this.position === undefined ? undefined : BigInt(this.position);
    const snapshots = snapshotsBetween(m, from, current, this.source.where);
    const ctx = {
      metadata: m,
      schema: r.schema,
      filter: r.plan.filter,
      splitBytes: this.splitBytes(m),
      where: this.source.where,
      io: this.io,
    };
    const { tasks, stats } = await planAppends(ctx, snapshots);
    if (tasks.length) recordPlan(stats, `appends up to snapshot ${current['snapshot-id']}`, this.source.where);
    this.pending.push(...this.splitsOf(tasks, m, r.schema, r.plan, String(current['snapshot-id'])));
    this.position = String(current['snapshot-id']);
    this.assign();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.polling = this.poll()
        .catch((err: unknown) => {
          this.failure = err instanceof Error ? err : new Error(String(err));
          log.error({ table: this.source.where, err: this.failure.message }, 'polling the table failed');
        })
        .finally(() => {
          this.polling = undefined;
          if (!this.failure) this.schedule();
        });
    }, this.settings.scanIntervalMs);
  }

  async run(): Promise<void> {
    if (!this.planned) {
      await this.plan();
      this.planned = true;
    }
    if (this.settings.streaming) this.schedule();
    this.assign();
  }

  registerReader(subtask: number): void {
    this.handleSplitRequest(subtask);
  }

  handleSplitRequest(subtask: number): void {
    if (this.failure) throw this.failure;
    this.waiting.add(subtask);
    if (this.planned) this.assign();
  }

  private assign(): void {
    for (const subtask of [...this.waiting]) {
      const split = this.pending.shift();
      if (split) {
        this.waiting.delete(subtask);
        this.ctx.assignSplits(subtask, [split]);
      } else if (this.planned && !this.settings.streaming && !this.done.has(subtask)) {
        this.waiting.delete(subtask);
        this.done.add(subtask);
        this.ctx.signalNoMoreSplits(subtask);
      }
    }
  }

  addSplitsBack(splits: IcebergSplit[]): void {
    this.pending.unshift(...splits);
    // a reader told there are no more splits may get these back after a restore
    for (const subtask of this.ctx.registeredReaders()) this.done.delete(subtask);
    this.assign();
  }

  snapshotState(): IcebergEnumeratorState {
    if (this.failure) throw this.failure;
    return { planned: this.planned, pending: [...this.pending], ...(this.position !== undefined ? { position: this.position } : {}) };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    await this.catalog?.close();
  }
}

/** Asks the enumerator again after this long without an answer (a request is delivered at most once). */
const ASK_AGAIN_MS = 2000;

/** Reads its splits one after the other, a batch of rows per poll; a split's progress is the rows of it consumed. */
class IcebergReader implements SourceReader<IcebergSplit> {
  private readonly queue: IcebergSplit[] = [];
  private current?: { split: IcebergSplit; batches: AsyncIterator<{ rows: unknown[][]; consumed: number }>; offset: number };
  private readonly files: DataFileReader;
  private noMoreSplits = false;
  private finished = false;
  /** When the last split request went out (the registration asks for the first split). */
  private askedAt = Date.now();
  private readonly tableId: string;

  constructor(
    private readonly source: IcebergSource,
    private readonly ctx: SourceReaderContext,
  ) {
    this.tableId = source.tableId;
    this.files = new DataFileReader(new FileIO(source.settings.catalog));
  }

  open(): void {}

  addSplits(splits: IcebergSplit[]): void {
    this.queue.push(...splits);
    this.askedAt = 0;
  }

  handleNoMoreSplits(): void {
    this.noMoreSplits = true;
  }

  private ask(): void {
    this.askedAt = Date.now();
    this.ctx.sendSplitRequest();
  }

  async pollNext(output: Collector): Promise<void> {
    if (this.finished) return;
    if (!this.current) {
      const next = this.queue.shift();
      if (!next) {
        if (this.noMoreSplits) {
          this.finished = true;
          this.ctx.signalNoMoreElement();
        } else if (Date.now() - this.askedAt >= ASK_AGAIN_MS) this.ask();
        return;
      }
      // ask for the next split while this one is read
      if (this.queue.length === 0 && !this.noMoreSplits) this.ask();
      log.debug(
        {
          table: this.source.where,
          file: next.task.path,
          rowGroups: next.task.rowGroups,
          deletes: next.task.deletes.length,
          offset: next.offset,
        },
        'reading a split',
      );
      this.current = {
        split: next,
        batches: this.files.read(next.task, next.plan, next.offset)[Symbol.asyncIterator](),
        offset: next.offset,
      };
    }
    const cur = this.current;
    let r: IteratorResult<{ rows: unknown[][]; consumed: number }>;
    try {
      r = await cur.batches.next();
    } catch (err) {
      if (err instanceof TidewayError) throw err;
      throw new TidewayError(
        ErrorCode.CONNECTOR_IO,
        `${this.source.where}: cannot read ${cur.split.task.path}: ${(err as Error).message}`,
        {
          retryable: true,
          cause: err,
        },
      );
    }
    if (r.done) {
      this.current = undefined;
      return;
    }
    cur.offset += r.value.consumed;
    if (r.value.rows.length) {
      const rows: Row[] = r.value.rows.map((fields) => ({ kind: '+I', tableId: this.tableId, fields }));
      output.collectBatch(rows);
    }
  }

  snapshotState(): IcebergSplit[] {
    const out = this.current ? [{ ...this.current.split, offset: this.current.offset }] : [];
    return [...out, ...this.queue];
  }

  async close(): Promise<void> {
    await this.current?.batches.return?.(undefined);
  }
}

export const icebergSourceFactory: SourceFactory = {
  type: 'source',
  name: 'Iceberg',
  description:
    'Reads an Apache Iceberg table of a hadoop (local folder) or sql (PostgreSQL) catalog: a snapshot (the current one or by id or time), the files appended between two snapshots, or, in STREAMING jobs, the appended snapshots as they come; Parquet, ORC and Avro data and delete files, columns by field id, position and equality deletes applied, files and Parquet row groups skipped by a filter.',
  spec: ICEBERG_SOURCE_SPEC,
  create(ctx: PluginContext): Source {
    return new IcebergSource(sourceSettingsOf(ctx.options, ctx.jobMode), ctx.jobMode);
  },
};
