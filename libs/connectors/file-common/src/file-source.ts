import type { Boundedness, CatalogTable, PluginContext, Source, SourceReader, SourceReaderContext, SplitEnumerator, SplitEnumeratorContext } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { FileSourceReader } from './file-source-reader.js';
import { buildSourceDecoder, partitionsOf, type SourceDecoder } from './file-source-table.js';
import { FileSplitEnumerator, type FileEnumeratorState, type FileSplit } from './file-split-enumerator.js';
import type { FileSystemAdapter } from './file-system.js';

/**
 * A bounded file source (LocalFile, S3File): the files under `path` are listed once in
 * prepare(); each file is one split; progress is the line offset within a file.
 */
export class FileSource implements Source<FileSplit, FileEnumeratorState> {
  private files: string[] | undefined;
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
    this.files = entries
      .filter((e) => {
        const name = e.path.slice(e.path.lastIndexOf('/') + 1);
        return e.size > 0 && name !== '_SUCCESS' && !name.startsWith('.') && (!pattern || pattern.test(name));
      })
      .map((e) => e.path);
    const keys = o.get<boolean>('parse_partition_from_path') && this.files.length > 0 ? partitionsOf(base, this.files[0]).map(([k]) => k) : [];
    this.decoder = buildSourceDecoder(o, this.plugin, keys);
  }

  catalogTables(): CatalogTable[] {
    return [this.decoder.table];
  }

  createEnumerator(ctx: SplitEnumeratorContext<FileSplit>, restored?: FileEnumeratorState): SplitEnumerator<FileSplit, FileEnumeratorState> {
    if (!this.files && !restored) throw new TidewayError(ErrorCode.INTERNAL, `${this.plugin}: prepare() must list the files before the enumerator starts.`);
    return new FileSplitEnumerator(ctx, this.files ?? [], restored, this.decoder.partitionKeys);
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
        parsePartitions: o.get<boolean>('parse_partition_from_path'),
      },
      ctx,
    );
  }
}
