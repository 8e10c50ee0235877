import { randomUUID } from 'node:crypto';
import {
  type CatalogTable,
  type Column,
  describeSchemaChange,
  type Row,
  type SchemaChangeEvent,
  type SinkWriter,
  type SinkWriterContext,
} from '@tideway/api';
import { ErrorCode, logger, TidewayError } from '@tideway/common';
import { type FileOutput, loadZstd, ParquetFileWriter, PARQUET_ROW_GROUP_BYTES } from '@tideway/connector-file-common';
import { CommitConflict, formatIdent, type IcebergCatalog, joinLocation, type TableIdent } from './catalog.js';
import { evolvedMetadata } from './evolution.js';
import type { IcebergFileIO } from './file-io.js';
import { layoutOf, type TableLayout } from './layout.js';
import type { IcebergSinkSettings } from './options.js';
import type { IcebergType } from './schema.js';
import { applyTransform, transformHuman } from './transforms.js';
import { compareInternal, humanString, type Internal, internalOf, serializeValue } from './values.js';

/** A data file (content 0) or equality delete file (content 2) a writer prepared, plain data for the checkpoint. */
export interface PreparedFile {
  readonly content: 0 | 2;
  readonly path: string;
  readonly recordCount: number;
  readonly fileSize: number;
  readonly specId: number;
  /** The partition's values in Iceberg's internal form, bigints (longs, times, timestamps, unscaled decimals) as their text: commit infos go through JSON. */
  readonly partition: readonly (string | number | boolean | null)[];
  readonly valueCounts: readonly (readonly [number, number])[];
  readonly nullCounts: readonly (readonly [number, number])[];
  /** Single-value serialized bounds, base64. */
  readonly lower: readonly (readonly [number, string])[];
  readonly upper: readonly (readonly [number, string])[];
  readonly equalityIds?: readonly number[];
}

/** What a writer hands over at a checkpoint: the files of this checkpoint, and whose they are. */
export interface IcebergCommitInfo {
  readonly jobId: string;
  readonly checkpointId: number;
  readonly files: readonly PreparedFile[];
}

const log = logger('iceberg-writer');

/** Attempts of a schema commit that loses races to other writers before it fails. */
const SCHEMA_COMMIT_ATTEMPTS = 8;

/** Bounds of strings and binaries longer than this are left out of manifests (a bound is optional; a long one only makes manifests big). */
const MAX_BOUND_BYTES = 256;

/** How many Parquet leaves (column chunks) a field spans. */
function leaves(t: IcebergType): number {
  if (typeof t === 'string') return 1;
  if (t.type === 'list') return leaves(t.element);
  if (t.type === 'map') return leaves(t.key) + leaves(t.value);
  return t.fields.reduce((n, f) => n + leaves(f.type), 0);
}

/** One Parquet file being written: its encoder and the file it appends to (opened with the first bytes). */
class OpenFile {
  private readonly encoder: ParquetFileWriter;
  private output?: Promise<FileOutput>;
  private bytes = 0;
  rows = 0;

  constructor(
    readonly location: string,
    private readonly columns: readonly Column[],
    private readonly fields: readonly { id: number; type: IcebergType }[],
    fieldIds: readonly (number | undefined)[],
    private readonly partition: readonly (Internal | null)[],
    private readonly specId: number,
    settings: IcebergSinkSettings,
    private readonly io: IcebergFileIO,
    private readonly equalityIds?: readonly number[],
  ) {
    this.encoder = new ParquetFileWriter(
      columns,
      settings.codec,
      Math.min(PARQUET_ROW_GROUP_BYTES, settings.targetFileBytes),
      true,
      fieldIds,
    );
  }

  add(fields: readonly unknown[]): void {
    this.encoder.add(fields);
    this.rows++;
  }

  private async append(bytes: Uint8Array): Promise<void> {
    this.output ??= this.io.create(this.location);
    await (await this.output).write(bytes);
    this.bytes += bytes.byteLength;
  }

  /** Writes what the encoder finished; returns the file's size so far. */
  async flush(): Promise<number> {
    const out = this.encoder.take();
    if (out) await this.append(out);
    return this.bytes;
  }

  async finish(): Promise<PreparedFile> {
    const out = this.encoder.finish();
    if (out) await this.append(out);
    await (await (this.output ?? this.io.create(this.location))).close();
    return {
      ...this.stats(),
      content: this.equalityIds ? 2 : 0,
      path: this.location,
      recordCount: this.rows,
      fileSize: this.bytes,
      specId: this.specId,
      partition: this.partition.map((v) => (typeof v === 'bigint' ? String(v) : (v as string | number | boolean | null))),
      ...(this.equalityIds ? { equalityIds: this.equalityIds } : {}),
    };
  }

  /** Value and null counts and bounds of the primitive top-level columns, from the row groups' statistics. */
  private stats(): Pick<PreparedFile, 'valueCounts' | 'nullCounts' | 'lower' | 'upper'> {
    const groups = this.encoder.writtenRowGroups;
    const valueCounts: [number, number][] = [];
    const nullCounts: [number, number][] = [];
    const lower: [number, string][] = [];
    const upper: [number, string][] = [];
    let leaf = 0;
    for (const f of this.fields) {
      const at = leaf;
      leaf += leaves(f.type);
      if (typeof f.type !== 'string') continue;
      const type = f.type;
      let values = 0;
      let nulls = 0;
      let min: Internal | undefined;
      let max: Internal | undefined;
      let bounded = true;
      for (const g of groups) {
        const meta = g.columns[at].meta_data!;
        values += Number(meta.num_values);
        const s = meta.statistics;
        nulls += Number(s?.null_count ?? 0n);
        const lo = s?.min_value;
        const hi = s?.max_value;
        if (lo === undefined || lo === null || hi === undefined || hi === null) {
          if (Number(meta.num_values) > Number(s?.null_count ?? 0n)) bounded = false;
          continue;
        }
        const a = boundOf(type, lo);
        const b = boundOf(type, hi);
        if (a === undefined || b === undefined) {
          bounded = false;
          continue;
        }
        if (min === undefined || compareInternal(a, min) < 0) min = a;
        if (max === undefined || compareInternal(b, max) > 0) max = b;
      }
      valueCounts.push([f.id, values]);
      nullCounts.push([f.id, nulls]);
      if (bounded && min !== undefined && max !== undefined) {
        const lo = serializeValue(type, min);
        const hi = serializeValue(type, max);
        if (lo.length <= MAX_BOUND_BYTES && hi.length <= MAX_BOUND_BYTES) {
          lower.push([f.id, Buffer.from(lo).toString('base64')]);
          upper.push([f.id, Buffer.from(hi).toString('base64')]);
        }
      }
    }
    return { valueCounts, nullCounts, lower, upper };
  }

  /** Drops the file (the writer failed or was aborted before it was prepared). */
  async discard(): Promise<void> {
    const output = this.output;
    this.output = undefined;
    if (!output) return;
    await output.then((o) => o.close()).catch(() => undefined); // an S3 upload ends only by completing
    await this.io.delete(this.location);
  }
}

/** A row-group statistic as an Iceberg internal value; undefined when it cannot bound (NaN). */
function boundOf(type: string, v: unknown): Internal | undefined {
  switch (type) {
    case 'long':
    case 'time':
    case 'timestamp':
      return BigInt(v as number | bigint);
    case 'int':
    case 'date':
      return Number(v);
    case 'float':
    case 'double':
      return Number.isNaN(v) ? undefined : Number(v);
    case 'boolean':
      return Boolean(v);
    case 'string':
    case 'binary':
      return v instanceof Uint8Array ? v : typeof v === 'string' ? Buffer.from(v) : undefined;
    default:
      if (type.startsWith('decimal')) return typeof v === 'bigint' ? v : undefined;
      return undefined;
  }
}

/** A key's text, the same for equal keys. */
function keyText(values: readonly unknown[]): string {
  return JSON.stringify(values, (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
  );
}

/** A keyed row's fate in this checkpoint: its older versions deleted, and the row that stays (none after a delete). */
interface KeyedChange {
  deleteOld: boolean;
  row: readonly unknown[] | null;
  keyRow: readonly unknown[];
}

/**
 * Writes the rows of one table into Parquet data files of the table's location, one file per
 * partition (rolled at write.target-file-size-bytes). Without primary keys, inserts and
 * update-afters are appended as they come. With primary keys, the checkpoint's changes are kept
 * per key (the last one wins) and written at the barrier: an equality delete for each key whose
 * older rows go (every key in upsert mode), and the rows that stay; that way a row inserted and
 * changed within one checkpoint is never deleted by its own delete file, whose sequence number is
 * its data file's. Memory is bounded by one checkpoint's changed keys.
 */
export class IcebergWriter implements SinkWriter<IcebergCommitInfo> {
  private layout?: TableLayout;
  private location = '';
  private readonly open = new Map<string, OpenFile>();
  private readonly deletes = new Map<string, OpenFile>();
  private done: PreparedFile[] = [];
  private readonly changes = new Map<string, KeyedChange>();
  private readonly prefix: string;
  private count = 0;

  constructor(
    private readonly settings: IcebergSinkSettings,
    private table: CatalogTable,
    private readonly catalog: IcebergCatalog,
    private readonly ident: TableIdent,
    private readonly jobId: string,
    ctx: SinkWriterContext,
    /** Every row appended as it comes, whatever the table's keys (a compaction rewriting rows its deletes were applied to). */
    private readonly appendOnly = false,
  ) {
    this.prefix = `${ctx.subtaskIndex}-${randomUUID()}`;
  }

  private async ready(): Promise<TableLayout> {
    if (this.layout) return this.layout;
    if (this.settings.codec === 'ZSTD') await loadZstd();
    const loaded = await this.catalog.load(this.ident);
    if (!loaded) {
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `Iceberg table ${formatIdent(this.ident)} does not exist in the ${this.catalog.description} (schema_save_mode ${this.settings.schemaSaveMode}).`,
      );
    }
    this.location = loaded.metadata.location;
    this.layout = layoutOf(
      this.table,
      loaded.metadata,
      this.keys(),
      this.settings.caseSensitive,
      `Iceberg table ${formatIdent(this.ident)}`,
    );
    return this.layout;
  }

  private keys(): readonly string[] {
    return this.settings.primaryKeys.length ? this.settings.primaryKeys : (this.table.primaryKey?.columns ?? []);
  }

  async write(rows: readonly Row[]): Promise<void> {
    const layout = await this.ready();
    if (layout.keyColumns.length && !this.appendOnly) return this.keep(layout, rows);
    for (const row of rows) {
      if (row.kind === '-U' || row.kind === '-D') {
        throw new TidewayError(
          ErrorCode.CONFIG_BAD_VALUE,
          `Iceberg table ${formatIdent(this.ident)} received a ${row.kind === '-D' ? 'delete' : 'update-before'} row but has no primary key: set iceberg.table.primary-keys.`,
        );
      }
      this.fileFor(layout, row.fields, false).add(layout.written.map((w) => row.fields[w.column]));
    }
    await this.roll(false);
  }

  private keep(layout: TableLayout, rows: readonly Row[]): void {
    for (const row of rows) {
      const key = keyText(layout.keyColumns.map((c) => row.fields[c]));
      let change = this.changes.get(key);
      if (!change) {
        change = { deleteOld: false, row: null, keyRow: row.fields };
        this.changes.set(key, change);
      }
      if (row.kind === '+I' && !this.settings.upsert) {
        change.row = row.fields;
      } else if (row.kind === '+I' || row.kind === '+U') {
        change.deleteOld = true;
        change.row = row.fields;
      } else {
        change.deleteOld = true;
        change.row = null;
        change.keyRow = row.fields;
      }
    }
  }

  /** The open file of the row's partition (a delete file with `isDelete`). */
  private fileFor(layout: TableLayout, fields: readonly unknown[], isDelete: boolean): OpenFile {
    const partition = layout.partition.map((p) => applyTransform(p.transform, p.sourceType, internalOf(p.sourceType, fields[p.column])));
    const path = layout.partition
      .map(
        (p, i) =>
          `${encodeURIComponent(p.name)}=${encodeURIComponent(transformHuman(p.transform, partition[i], (v) => humanString(p.sourceType, v)))}`,
      )
      .join('/');
    const files = isDelete ? this.deletes : this.open;
    let file = files.get(path);
    if (!file) {
      const name = `${path ? `${path}/` : ''}${this.jobId}-${this.prefix}-${++this.count}${isDelete ? '-deletes' : ''}.parquet`;
      const fieldsOf = (ids: readonly number[]): { id: number; type: IcebergType }[] =>
        ids.map((id) => ({ id, type: layout.schema.fields.find((f) => f.id === id)!.type }));
      file = isDelete
        ? new OpenFile(
            joinLocation(this.location, `data/${name}`),
            layout.deleteColumns,
            fieldsOf(layout.keyFieldIds),
            layout.deleteFieldIds,
            partition,
            layout.spec['spec-id'],
            this.settings,
            this.catalog.io,
            layout.keyFieldIds,
          )
        : new OpenFile(
            joinLocation(this.location, `data/${name}`),
            layout.dataColumns,
            fieldsOf(layout.written.map((w) => w.field.id)),
            layout.dataFieldIds,
            partition,
            layout.spec['spec-id'],
            this.settings,
            this.catalog.io,
          );
      files.set(path, file);
    }
    return file;
  }

  /** Closes the files past the target size (all of them with `all`). */
  private async roll(all: boolean): Promise<void> {
    for (const files of [this.open, this.deletes]) {
      for (const [path, file] of files) {
        if (all || (await file.flush()) >= this.settings.targetFileBytes) {
          files.delete(path);
          this.done.push(await file.finish());
        }
      }
    }
  }

  /** Writes the kept changes and closes every open file: what was written so far is in `done`. */
  private async drain(): Promise<void> {
    if (this.changes.size) {
      const layout = await this.ready();
      for (const change of this.changes.values()) {
        if (change.deleteOld) this.fileFor(layout, change.keyRow, true).add(layout.keyColumns.map((c) => change.keyRow[c]));
        if (change.row) {
          const row = change.row;
          this.fileFor(layout, row, false).add(layout.written.map((w) => row[w.column]));
        }
      }
      this.changes.clear();
    }
    await this.roll(true);
  }

  async prepareCommit(checkpointId: number): Promise<IcebergCommitInfo | undefined> {
    await this.drain();
    const files = this.done;
    this.done = [];
    return files.length ? { jobId: this.jobId, checkpointId, files } : undefined;
  }

  /**
   * Schema evolution (iceberg.table.schema-evolution-enabled): the rows before the change are
   * written into files of the old schema first (Iceberg reads them by field id under the new one),
   * then the table's new schema is committed, before any row of the new shape is written. A
   * replayed or already committed change commits nothing; a lost race is redone on the table the
   * other writer left.
   */
  async applySchemaChange(event: SchemaChangeEvent): Promise<void> {
    const name = formatIdent(this.ident);
    if (!event.restored && event.changes.length) {
      if (!this.settings.schemaEvolution) {
        throw new TidewayError(
          ErrorCode.CONFIG_BAD_VALUE,
          `Iceberg table ${name}: the source table ${event.tableId} changed (${describeSchemaChange(event)}) and iceberg.table.schema-evolution-enabled is false.`,
        );
      }
      await this.drain();
      await this.commitSchema(event);
    }
    this.table = event.table;
    this.layout = undefined; // the next rows are laid out on the table's current schema
  }

  private async commitSchema(event: SchemaChangeEvent): Promise<void> {
    const name = formatIdent(this.ident);
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.catalog.load(this.ident);
      if (!loaded) throw new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `Iceberg table ${name} is gone from the ${this.catalog.description}.`);
      const next = evolvedMetadata(loaded.metadata, event, this.settings.caseSensitive, `Iceberg table ${name}`);
      if (!next) return;
      try {
        await this.catalog.commit(this.ident, loaded, next);
        log.info({ table: name, schemaId: next['current-schema-id'], change: describeSchemaChange(event) }, 'schema committed');
        return;
      } catch (err) {
        if (!(err instanceof CommitConflict)) throw err;
        if (attempt >= SCHEMA_COMMIT_ATTEMPTS) {
          throw new TidewayError(
            ErrorCode.EXTERNAL_SYSTEM,
            `Iceberg table ${name}: the schema change (${describeSchemaChange(event)}) lost ${attempt} commit races in a row to other writers of the ${this.catalog.description}.`,
            { retryable: true },
          );
        }
      }
    }
  }

  async abortPrepare(): Promise<void> {
    await this.discardAll();
  }

  private async discardAll(): Promise<void> {
    const open = [...this.open.values(), ...this.deletes.values()];
    const done = this.done;
    this.open.clear();
    this.deletes.clear();
    this.done = [];
    this.changes.clear();
    for (const f of open) await f.discard();
    for (const f of done) await this.catalog.io.delete(f.path);
  }

  async close(): Promise<void> {
    await this.discardAll();
    await this.catalog.close();
  }
}
