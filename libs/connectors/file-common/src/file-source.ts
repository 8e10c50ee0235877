import type { Boundedness, CatalogTable, PluginContext, Source, SourceReader, SourceReaderContext, SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { FileSourceReader } from './file-source-reader.js';
import { buildSourceDecoder, partitionsOf, type SourceDecoder } from './file-source-table.js';
import { FileSplitEnumerator, type FileEnumeratorState, type FileSplit } from './file-split-enumerator.js';
import type { FileSystemAdapter } from './file-system.js';
import { parquetColumns, parquetMetadataOf } from './parquet-source.js';
import type { ArchiveCodec } from './archive-entries.js';
import { FORMAT_SUFFIX, type FileFormat } from './sink-options.js';

/**
 * A bounded file source (LocalFile, S3File): the files under `path` are listed once in
 * prepare(); each file is one split (each row group, for Parquet); progress is the line offset
 * within a file (the row offset within a row group).
 */
export class FileSource implements Source<FileSplit, FileEnumeratorState> {
  private splits: FileSplit[] | undefined;
  private decoder: SourceDecoder;

  constructor(
    private readonly ctx: PluginContext,
    private readonly fs: FileSystemAdapter,
    private readonly plugin: string,
  ) {
    // Without prepare() the table has no partition columns yet; prepare() rebuilds it.
    this.decoder = buildSourceDecoder(ctx.options, plugin, []);
  }

  boundedness(): Boundedness {
    return 'BOUNDED';
  }

  /** Lists the files to read and takes the partition keys from the first one. */
  async prepare(): Promise<void> {
    const o = this.ctx.options;
    const base = String(o.get('path'));
    const pattern = o.has('file_filter_pattern') ? new RegExp(`^(?:${String(o.get('file_filter_pattern'))})$`) : undefined;
    let entries;
    try {
      entries = await this.fs.listFiles(base);
    } catch (err) {
      throw new TidewayError(ErrorCode.CONNECTOR_IO, `${this.plugin}: cannot list ${base} in the ${this.fs.description}: ${(err as Error).message}`, {
        place: o.place('path'),
        retryable: true,
        cause: err,
      });
    }
    const files = entries
      .filter((e) => {
        const name = e.path.slice(e.path.lastIndexOf('/') + 1);
        return e.size > 0 && name !== '_SUCCESS' && !name.startsWith('.') && (!pattern || pattern.test(name));
      })
      .map((e) => e.path);
    const keys = o.get<boolean>('parse_partition_from_path') && files.length > 0 ? partitionsOf(base, files[0]).map(([k]) => k) : [];
    if (String(o.get('file_format_type')).toLowerCase() === 'parquet') {
      await this.prepareParquet(files, keys);
      return;
    }
    this.splits = files.map((path) => ({ splitId: path, path, offset: 0, partitionKeys: keys }));
    this.decoder = buildSourceDecoder(o, this.plugin, keys);
  }

  /** Parquet: the table comes from the first file's schema; every row group is a split. */
  private async prepareParquet(files: string[], keys: string[]): Promise<void> {
    const o = this.ctx.options;
    if (files.length === 0) {
      throw new TidewayError(ErrorCode.CONFIG_BAD_VALUE, `${this.plugin}: no Parquet file under ${String(o.get('path'))} to read the schema from.`, { place: o.place('path') });
    }
    const splits: FileSplit[] = [];
    let columns;
    for (const path of files) {
      let meta;
      try {
        meta = await parquetMetadataOf(this.fs, path);
      } catch (err) {
        throw new TidewayError(ErrorCode.CONNECTOR_IO, `${this.plugin}: cannot read the Parquet footer of ${path}: ${(err as Error).message}`, { place: o.place('path'), cause: err });
      }
      columns ??= parquetColumns(meta, path);
      meta.row_groups.forEach((_, rowGroup) => splits.push({ splitId: `${path}#${rowGroup}`, path, rowGroup, offset: 0, partitionKeys: keys }));
    }
    this.splits = splits;
    this.decoder = buildSourceDecoder(o, this.plugin, keys, columns);
  }

  catalogTables(): CatalogTable[] {
    return [this.decoder.table];
  }

  createEnumerator(ctx: SplitEnumeratorContext<FileSplit>, restored?: FileEnumeratorState): SplitEnumerator<FileSplit, FileEnumeratorState> {
    if (!this.splits && !restored) throw new TidewayError(ErrorCode.INTERNAL, `${this.plugin}: prepare() must list the files before the enumerator starts.`);
    return new FileSplitEnumerator(ctx, this.splits ?? [], restored);
  }

  createReader(ctx: SourceReaderContext): SourceReader<FileSplit> {
    const o = this.ctx.options;
    return new FileSourceReader(
      {
        plugin: this.plugin,
        fs: this.fs,
        basePath: String(o.get('path')),
        decoder: this.decoder,
        encoding: String(o.get('encoding')),
        skipHeaderLines: Number(o.get('skip_header_row_number')),
        compressCodec: String(o.get('compress_codec')).toLowerCase(),
        archiveCodec: String(o.get('archive_compress_codec')).toLowerCase() as ArchiveCodec,
        entrySuffix: FORMAT_SUFFIX[String(o.get('file_format_type')).toLowerCase() as FileFormat] ?? '',
        parsePartitions: o.get<boolean>('parse_partition_from_path'),
      },
      ctx,
    );
  }
}
