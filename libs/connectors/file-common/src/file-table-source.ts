import type { Column, PluginOptions, SourceReaderContext } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import { FileSourceReader } from './file-source-reader.js';
import { buildSourceDecoder, emptyFolderDecoder, partitionsOf, type SourceDecoder } from './file-source-table.js';
import type { FileSplit } from './file-split-enumerator.js';
import type { FileSystemAdapter } from './file-system.js';
import { parquetColumns, parquetMetadataOf } from './parquet-source.js';
import { orcColumns, readOrcTail } from './orc-reader.js';
import type { ArchiveCodec } from './archive-entries.js';
import { SOURCE_SUFFIXES, type FileFormat } from './sink-options.js';

/**
 * One table of a file source: the top-level options, or one item of `tables_configs`. Its
 * files are listed once in prepare(); each file is one split (each row group, for Parquet; each
 * stripe, for ORC).
 * `table` is its index in the source, carried by its splits; `idPrefix` keeps split ids of
 * several tables apart.
 */
export class FileTableSource {
  splits: FileSplit[] | undefined;
  decoder: SourceDecoder;

  constructor(
    readonly options: PluginOptions,
    private readonly fs: FileSystemAdapter,
    private readonly plugin: string,
    private readonly table: number | undefined,
  ) {
    // Without prepare() the table has no partition columns yet; prepare() rebuilds it.
    this.decoder = buildSourceDecoder(options, plugin, []);
  }

  private split(path: string, keys: string[], rowGroup?: number): FileSplit {
    const id = `${this.table === undefined ? '' : `${this.table}|`}${path}${rowGroup === undefined ? '' : `#${rowGroup}`}`;
    return {
      splitId: id,
      path,
      offset: 0,
      partitionKeys: keys,
      ...(rowGroup === undefined ? {} : { rowGroup }),
      ...(this.table === undefined ? {} : { table: this.table }),
    };
  }

  /** Lists the files to read and takes the partition keys from the first one. */
  async prepare(): Promise<void> {
    const o = this.options;
    const base = String(o.get('path'));
    const pattern = o.has('file_filter_pattern') ? new RegExp(`^(?:${String(o.get('file_filter_pattern'))})$`) : undefined;
    let entries;
    try {
      entries = await this.fs.listFiles(base);
    } catch (err) {
      throw new TidewayError(
        ErrorCode.CONNECTOR_IO,
        `${this.plugin}: cannot list ${base} in the ${this.fs.description}: ${(err as Error).message}`,
        {
          place: o.place('path'),
          retryable: true,
          cause: err,
        },
      );
    }
    const files = entries
      .filter((e) => {
        const name = e.path.slice(e.path.lastIndexOf('/') + 1);
        return e.size > 0 && name !== '_SUCCESS' && !name.startsWith('.') && (!pattern || pattern.test(name));
      })
      .map((e) => e.path);
    // binary rows have a fixed shape: no partition columns (SeaTunnel's binaryRowType)
    const binary = String(o.get('file_format_type')).toLowerCase() === 'binary';
    const keys =
      !binary && o.get<boolean>('parse_partition_from_path') && files.length > 0 ? partitionsOf(base, files[0]).map(([k]) => k) : [];
    if (String(o.get('file_format_type')).toLowerCase() === 'parquet') {
      await this.prepareParquet(files, keys);
      return;
    }
    if (String(o.get('file_format_type')).toLowerCase() === 'orc') {
      await this.prepareOrc(files, keys);
      return;
    }
    this.splits = files.map((path) => this.split(path, keys));
    this.decoder = buildSourceDecoder(o, this.plugin, keys);
    if (files.length > 0 && o.has('schema') && this.decoder.table.columns.length === keys.length) {
      throw new TidewayError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${this.plugin}: schema declares no columns, and ${base} holds files to read: name their columns in schema.fields (or leave schema out for text and csv: a column \`content\` per line).`,
        { place: o.place('schema') },
      );
    }
  }

  /** Parquet: the table comes from the first file's schema; every row group is a split. */
  private async prepareParquet(files: string[], keys: string[]): Promise<void> {
    await this.prepareGroups(files, keys, 'Parquet', async (path) => {
      const meta = await parquetMetadataOf(this.fs, path);
      return { columns: () => parquetColumns(meta, path), groups: meta.row_groups.length };
    });
  }

  /** ORC: the table comes from the first file's schema (or the schema's fields); every stripe is a split. */
  private async prepareOrc(files: string[], keys: string[]): Promise<void> {
    await this.prepareGroups(files, keys, 'ORC', async (path) => {
      const tail = await readOrcTail(this.fs, path);
      return { columns: () => orcColumns(tail), groups: tail.footer.stripes.length };
    });
  }

  /**
   * A format whose files carry their schema and are read by groups of rows (Parquet's row
   * groups, ORC's stripes): the table comes from the first file's schema, each group is a split.
   */
  private async prepareGroups(
    files: string[],
    keys: string[],
    format: string,
    footer: (path: string) => Promise<{ columns: () => Column[]; groups: number }>,
  ): Promise<void> {
    const o = this.options;
    if (files.length === 0) {
      // SeaTunnel reads an empty folder (its e2e does): its default table, and no rows
      this.splits = [];
      this.decoder = emptyFolderDecoder(this.plugin);
      return;
    }
    const splits: FileSplit[] = [];
    let columns: Column[] | undefined;
    for (const path of files) {
      let read;
      try {
        read = await footer(path);
      } catch (err) {
        if (err instanceof TidewayError) throw err;
        throw new TidewayError(
          ErrorCode.CONNECTOR_IO,
          `${this.plugin}: cannot read the ${format} footer of ${path}: ${(err as Error).message}`,
          {
            place: o.place('path'),
            cause: err,
          },
        );
      }
      columns ??= read.columns();
      for (let group = 0; group < read.groups; group++) splits.push(this.split(path, keys, group));
    }
    this.splits = splits;
    this.decoder = buildSourceDecoder(o, this.plugin, keys, columns);
  }

  createReader(ctx: SourceReaderContext): FileSourceReader {
    const o = this.options;
    return new FileSourceReader(
      {
        plugin: this.plugin,
        fs: this.fs,
        basePath: String(o.get('path')),
        decoder: this.decoder,
        encoding: String(o.get('encoding')),
        skipHeaderLines: Number(o.get('skip_header_row_number')),
        rowDelimiter: String(o.get('row_delimiter')),
        compressCodec: String(o.get('compress_codec')).toLowerCase(),
        archiveCodec: String(o.get('archive_compress_codec')).toLowerCase() as ArchiveCodec,
        entrySuffixes: SOURCE_SUFFIXES[String(o.get('file_format_type')).toLowerCase() as FileFormat] ?? [],
        ...(o.has('sheet_name') ? { sheetName: String(o.get('sheet_name')) } : {}),
        parsePartitions: o.get<boolean>('parse_partition_from_path'),
      },
      ctx,
    );
  }
}
