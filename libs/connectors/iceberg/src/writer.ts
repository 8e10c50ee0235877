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
import { ErrorCode, logger, TidewayError, ValueConversionError } from '@tideway/common';
import { columnError, CompressionKind, type FileOutput, isValueError, loadZstd } from '@tideway/connector-file-common';
import { CommitConflict, formatIdent, type IcebergCatalog, joinLocation, type TableIdent } from './catalog.js';
import { type DataFileEncoder, dataFileEncoder } from './data-encoders.js';
import { type DataFormat, type FileFormat, formatSuffix, type TableFileFormats, tableFileFormats } from './data-format.js';
import { evolvedMetadata } from './evolution.js';
import type { IcebergFileIO } from './file-io.js';
import { layoutOf, type TableLayout } from './layout.js';
import type { IcebergSinkSettings } from './options.js';
import type { IcebergField } from './schema.js';
import { applyTransform, transformHuman } from './transforms.js';
import { humanString, type Internal, internalOf } from './values.js';

/** A data file (content 0) or equality delete file (content 2) a writer prepared, plain data for the checkpoint. */
export interface PreparedFile {
  readonly content: 0 | 2;
  readonly path: string;
  /** The file's format (the manifest entry's file_format); absent in commit infos of older checkpoints: PARQUET. */
  readonly format?: DataFormat;
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

/** One data or delete file being written: its encoder (by the table's format) and the file it appends to (opened with the first bytes). */
class OpenFile {
  private readonly encoder: DataFileEncoder;
  private output?: Promise<FileOutput>;
  private bytes = 0;
  rows = 0;

  constructor(
    readonly location: string,
    private readonly format: FileFormat,
    columns: readonly Column[],
    fields: readonly IcebergField[],
    fieldIds: readonly (number | undefined)[],
    private readonly partition: readonly (Internal | null)[],
    private readonly specId: number,
    settings: IcebergSinkSettings,
    private readonly io: IcebergFileIO,
    private readonly equalityIds?: readonly number[],
  ) {
    this.encoder = dataFileEncoder(format, fields, columns, fieldIds, settings.targetFileBytes);
  }

  /** A probe of the values `add` would take: see DataFileEncoder.probe. */
  probe(fields: readonly unknown[]): void {
    this.encoder.probe(fields);
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
      ...this.encoder.stats(),
      content: this.equalityIds ? 2 : 0,
      path: this.location,
      format: this.format.format,
      recordCount: this.rows,
      fileSize: this.bytes,
      specId: this.specId,
      partition: this.partition.map((v) => (typeof v === 'bigint' ? String(v) : (v as string | number | boolean | null))),
      ...(this.equalityIds ? { equalityIds: this.equalityIds } : {}),
    };
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
  /** After an update-before (-U): the change as it was before it (undefined: there was none), restored if its +U is refused. */
  beforeUpdate?: { deleteOld: boolean; row: readonly unknown[] | null; keyRow: readonly unknown[] } | 'none';
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
  private formats?: TableFileFormats;
  private location = '';
  private readonly open = new Map<string, OpenFile>();
  private readonly deletes = new Map<string, OpenFile>();
  private done: PreparedFile[] = [];
  private readonly changes = new Map<string, KeyedChange>();
  private readonly prefix: string;
  private count = 0;
  /** env.sink_error_handler: where the rows no data or delete file can hold go (handleRowErrors). */
  private reject: ((row: Row, error: Error) => void) | undefined;
  /** With `reject`: a data and a delete file of the current layout that only probe rows (never written), made when first needed. */
  private probes: { layout: TableLayout; data?: OpenFile; deletes?: OpenFile } | undefined;

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
    const loaded = await this.catalog.load(this.ident);
    if (!loaded) {
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `Iceberg table ${formatIdent(this.ident)} does not exist in the ${this.catalog.description} (schema_save_mode ${this.settings.schemaSaveMode}).`,
      );
    }
    this.location = loaded.metadata.location;
    // the table's own write properties, the job's iceberg.table.write-props over them
    this.formats = tableFileFormats(
      { ...loaded.metadata.properties, ...this.settings.writeProps },
      `Iceberg table ${formatIdent(this.ident)}`,
    );
    const { data, deletes } = this.formats;
    if ([data, deletes].some((f) => f.parquetCodec === 'ZSTD' || f.orcCodec === CompressionKind.ZSTD || f.avroCodec === 'zstandard'))
      await loadZstd();
    this.layout = layoutOf(
      this.table,
      loaded.metadata,
      this.keys(),
      this.settings.caseSensitive,
      `Iceberg table ${formatIdent(this.ident)}`,
    );
    return this.layout;
  }

  /**
   * Row-level errors: a row with a value its field cannot hold in the table's data file format
   * (a decimal with more digits than the field's precision, a date, time or timestamp text that
   * does not parse, an integer out of its type's range), or whose key values its equality delete
   * file cannot hold, is handed to `reject`, naming the column; the other rows are written and
   * committed. Each row is first converted by a file of its own that is never written, so nothing
   * of a refused row reaches a file. Catalog, storage and commit errors still fail the task.
   */
  handleRowErrors(reject: (row: Row, error: Error) => void): void {
    this.reject = reject;
  }

  /**
   * With handleRowErrors: whether the row's values fit its data file (and its key its delete file,
   * with `deletes`); a row that does not is handed to `reject` and false returned. Any other error
   * is thrown.
   */
  private fits(layout: TableLayout, row: Row, data: boolean, deletes: boolean): boolean {
    const reject = this.reject;
    if (!reject) return true;
    let inDeletes = false;
    try {
      if (data) {
        this.partitionOf(layout, row.fields);
        this.probeFile(layout, false).probe(layout.written.map((w) => row.fields[w.column]));
      }
      if (deletes) {
        inDeletes = true;
        this.partitionOf(layout, row.fields);
        this.probeFile(layout, true).probe(layout.keyColumns.map((c) => row.fields[c]));
      }
      return true;
    } catch (err) {
      if (!isValueError(err)) throw err;
      const format = inDeletes ? this.formats!.deletes.format : this.formats!.data.format;
      reject(
        row,
        new ValueConversionError(
          ErrorCode.VALUE_CONVERSION,
          `Iceberg table ${formatIdent(this.ident)}: a row cannot be written to its ${format} ${inDeletes ? 'equality delete' : 'data'} file: ${err.message}`,
          { cause: err },
        ),
      );
      return false;
    }
  }

  /** The probing data (or delete) file of the current layout. */
  private probeFile(layout: TableLayout, isDelete: boolean): OpenFile {
    if (this.probes?.layout !== layout) this.probes = { layout };
    const probes = this.probes;
    const key = isDelete ? 'deletes' : 'data';
    return (probes[key] ??= this.newFile(layout, '', [], isDelete));
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
      if (!this.fits(layout, row, true, false)) continue;
      this.fileFor(layout, row.fields, false).add(layout.written.map((w) => row.fields[w.column]));
    }
    await this.roll(false);
  }

  private keep(layout: TableLayout, rows: readonly Row[]): void {
    for (const row of rows) {
      const key = keyText(layout.keyColumns.map((c) => row.fields[c]));
      // a row whose new version or key no file can hold changes nothing: its older versions stay,
      // and a refused +U undoes the -U before it (an update is refused whole)
      const upsert = row.kind === '+U' || (row.kind === '+I' && this.settings.upsert);
      if (!this.fits(layout, row, row.kind === '+I' || row.kind === '+U', row.kind !== '+I' || upsert)) {
        const refused = this.changes.get(key);
        if (row.kind === '+U' && refused?.beforeUpdate === 'none') this.changes.delete(key);
        else if (row.kind === '+U' && refused?.beforeUpdate) Object.assign(refused, refused.beforeUpdate, { beforeUpdate: undefined });
        continue;
      }
      let change = this.changes.get(key);
      const existed = change !== undefined;
      if (!change) {
        change = { deleteOld: false, row: null, keyRow: row.fields };
        this.changes.set(key, change);
      }
      change.beforeUpdate =
        row.kind !== '-U' || !this.reject
          ? undefined
          : existed
            ? { deleteOld: change.deleteOld, row: change.row, keyRow: change.keyRow }
            : 'none';
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
    const partition = this.partitionOf(layout, fields);
    const path = layout.partition
      .map(
        (p, i) =>
          `${encodeURIComponent(p.name)}=${encodeURIComponent(transformHuman(p.transform, partition[i], (v) => humanString(p.sourceType, v)))}`,
      )
      .join('/');
    const files = isDelete ? this.deletes : this.open;
    let file = files.get(path);
    if (!file) {
      file = this.newFile(layout, path, partition, isDelete);
      files.set(path, file);
    }
    return file;
  }

  /** The partition values of a row's fields; a value its source column's type cannot hold throws naming the column. */
  private partitionOf(layout: TableLayout, fields: readonly unknown[]): (Internal | null)[] {
    return layout.partition.map((p) => {
      try {
        return applyTransform(p.transform, p.sourceType, internalOf(p.sourceType, fields[p.column]));
      } catch (err) {
        throw columnError(this.table.columns[p.column]?.name ?? p.name, err);
      }
    });
  }

  /** A new data or delete file of the partition at `path`. */
  private newFile(layout: TableLayout, path: string, partition: readonly (Internal | null)[], isDelete: boolean): OpenFile {
    const formats = this.formats!;
    const format = isDelete ? formats.deletes : formats.data;
    const name = `${path ? `${path}/` : ''}${this.jobId}-${this.prefix}-${++this.count}${isDelete ? '-deletes' : ''}${formatSuffix(format.format)}`;
    const fieldsOf = (ids: readonly number[]): IcebergField[] => ids.map((id) => layout.schema.fields.find((f) => f.id === id)!);
    return isDelete
      ? new OpenFile(
          joinLocation(this.location, `data/${name}`),
          format,
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
          format,
          layout.dataColumns,
          layout.written.map((w) => w.field),
          layout.dataFieldIds,
          partition,
          layout.spec['spec-id'],
          this.settings,
          this.catalog.io,
        );
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
