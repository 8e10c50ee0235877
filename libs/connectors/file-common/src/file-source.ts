import type {
  Boundedness,
  CatalogTable,
  PluginContext,
  Source,
  SourceReader,
  SourceReaderContext,
  SplitEnumerator,
  SplitEnumeratorContext,
} from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { FileSplitEnumerator, type FileEnumeratorState, type FileSplit } from './file-split-enumerator.js';
import type { FileSystemAdapter } from './file-system.js';
import { MultiTableFileReader } from './multi-table-reader.js';
import { FileTableSource } from './file-table-source.js';
import { tableItemOptions } from './source-options.js';

/**
 * A bounded file source (LocalFile, S3File): one table from the top-level options, or one per
 * item of `tables_configs`. The files are listed once in prepare(); each file is one split (each
 * row group, for Parquet); progress is the line offset within a file (the row offset within a
 * row group).
 */
export class FileSource implements Source<FileSplit, FileEnumeratorState> {
  private readonly tables: FileTableSource[];

  constructor(ctx: PluginContext, fs: FileSystemAdapter, plugin: string) {
    const items = tableItemOptions(ctx.options, plugin);
    this.tables = items
      ? items.map((o, i) => new FileTableSource(o, fs, plugin, i))
      : [new FileTableSource(ctx.options, fs, plugin, undefined)];
    const ids = new Set<string>();
    for (const t of this.tables) {
      const id = t.decoder.table.tableId;
      if (ids.has(id))
        throw new TidewayError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${plugin}: two items of tables_configs name the same table ${id}; give each schema its own table.`,
          { place: ctx.options.place('tables_configs') },
        );
      ids.add(id);
    }
    this.plugin = plugin;
  }

  private readonly plugin: string;

  boundedness(): Boundedness {
    return 'BOUNDED';
  }

  async prepare(): Promise<void> {
    for (const t of this.tables) await t.prepare();
  }

  catalogTables(): CatalogTable[] {
    return this.tables.map((t) => t.decoder.table);
  }

  createEnumerator(
    ctx: SplitEnumeratorContext<FileSplit>,
    restored?: FileEnumeratorState,
  ): SplitEnumerator<FileSplit, FileEnumeratorState> {
    if (this.tables.some((t) => !t.splits) && !restored)
      throw new TidewayError(ErrorCode.INTERNAL, `${this.plugin}: prepare() must list the files before the enumerator starts.`);
    return new FileSplitEnumerator(
      ctx,
      this.tables.flatMap((t) => t.splits ?? []),
      restored,
    );
  }

  createReader(ctx: SourceReaderContext): SourceReader<FileSplit> {
    if (this.tables.length === 1) return this.tables[0].createReader(ctx);
    return new MultiTableFileReader(this.tables.length, (i, c) => this.tables[i].createReader(c), ctx);
  }
}
