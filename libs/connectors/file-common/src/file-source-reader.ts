import { buffer } from 'node:stream/consumers';
import type { Collector, Row, SourceReader, SourceReaderContext } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { FileSplit } from './file-split-enumerator.js';
import type { FileSystemAdapter } from './file-system.js';
import { partitionsOf, type SourceDecoder } from './file-source-table.js';
import { readLines } from './line-reader.js';
import { lzopDecompress } from './lzop.js';
import { archiveEntries, type ArchiveCodec } from './archive-entries.js';
import { excelRows } from './excel-format.js';
import { binaryParts, relativePathOf } from './binary-format.js';

/** Rows emitted per pollNext at most. */
export const FILE_READ_BATCH_ROWS = 1024;

export interface FileSourceReaderConfig {
  readonly plugin: string;
  readonly fs: FileSystemAdapter;
  readonly basePath: string;
  readonly decoder: SourceDecoder;
  readonly encoding: string;
  readonly skipHeaderLines: number;
  /** row_delimiter: \n (also \r\n and \r) or an exact separator between rows of text and csv files. */
  readonly rowDelimiter: string;
  /** compress_codec: 'lzo' reads lzop files. */
  readonly compressCodec: string;
  /** archive_compress_codec: the files are zip/tar archives of files in the format. */
  readonly archiveCodec: ArchiveCodec;
  /** The suffixes an archive entry may have to be read (SeaTunnel's checkFileType): .txt, .csv, .json, .xlsx or .xls, .xml. */
  readonly entrySuffixes: readonly string[];
  /** excel: the sheet to read (default the first). */
  readonly sheetName?: string;
  readonly parsePartitions: boolean;
}

interface Current {
  readonly split: FileSplit;
  readonly lines?: AsyncIterator<string>;
  /** A Parquet row group's (ORC stripe's) rows, in batches, decoded. */
  readonly batches?: AsyncIterator<unknown[][]>;
  /** Lines consumed after the header, including blank ones. */
  offset: number;
  readonly partitionValues: (string | null)[];
}

/**
 * Reads its files line by line, in batches. Checkpointed progress is the line offset in the
 * current file: a restored split skips the header and `offset` lines, then goes on.
 */
export class FileSourceReader implements SourceReader<FileSplit> {
  private readonly queue: FileSplit[] = [];
  private current: Current | undefined;
  private noMoreSplits = false;
  private finished = false;

  constructor(
    private readonly cfg: FileSourceReaderConfig,
    private readonly ctx: SourceReaderContext,
  ) {}

  open(): void {}

  addSplits(splits: FileSplit[]): void {
    this.queue.push(...splits);
  }

  handleNoMoreSplits(): void {
    this.noMoreSplits = true;
  }

  async pollNext(output: Collector): Promise<void> {
    if (this.finished) return;
    if (!this.current) {
      const next = this.queue.shift();
      if (!next) {
        if (this.noMoreSplits) {
          this.finished = true;
          this.ctx.signalNoMoreElement();
        }
        return;
      }
      this.current = await this.openSplit(next);
    }
    const cur = this.current;
    const { decoder } = this.cfg;
    const tableId = decoder.table.tableId;
    const partitionCount = cur.partitionValues.length;
    if (cur.batches) {
      const r = await this.io(cur.split, () => cur.batches!.next());
      if (r.done) {
        this.current = undefined;
        return;
      }
      const batch = r.value;
      const n = batch.length;
      cur.offset += n;
      if (n === 0) return;
      const out = new Array<Row>(n);
      for (let k = 0; k < n; k++) {
        const fields = batch[k];
        for (let i = 0; i < partitionCount; i++) fields.push(cur.partitionValues[i]);
        out[k] = { kind: '+I', tableId, fields };
      }
      output.collectBatch(out);
      return;
    }
    const rows: Row[] = [];
    while (rows.length < FILE_READ_BATCH_ROWS) {
      const r = await this.io(cur.split, () => cur.lines!.next());
      if (r.done) {
        this.current = undefined;
        break;
      }
      cur.offset++;
      if (r.value === '') continue; // SeaTunnel's text deserializer yields no row for an empty line
      let fields: unknown[];
      try {
        fields = decoder.decode(r.value);
      } catch (err) {
        throw new TidewayError(
          ErrorCode.VALUE_CONVERSION,
          `${this.cfg.plugin}: ${cur.split.path} line ${this.cfg.archiveCodec === 'none' ? this.cfg.skipHeaderLines + cur.offset : `${cur.offset} (after each entry's header)`}: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      for (let i = 0; i < partitionCount; i++) fields.push(cur.partitionValues[i]);
      rows.push({ kind: '+I', tableId, fields });
    }
    if (rows.length > 0) output.collectBatch(rows);
  }

  /** Runs an I/O step of a split, turning a failure into a retryable CONNECTOR_IO error. */
  private async io<T>(split: FileSplit, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (err instanceof TidewayError) throw err;
      throw new TidewayError(
        ErrorCode.CONNECTOR_IO,
        `${this.cfg.plugin}: cannot read ${split.path} from the ${this.cfg.fs.description}: ${(err as Error).message}`,
        {
          retryable: true,
          cause: err,
        },
      );
    }
  }

  private async openSplit(split: FileSplit): Promise<Current> {
    const found = this.cfg.parsePartitions ? new Map(partitionsOf(this.cfg.basePath, split.path)) : new Map<string, string>();
    const partitionValues = (split.partitionKeys ?? this.cfg.decoder.partitionKeys).map((k) => found.get(k) ?? null);
    if (split.rowGroup !== undefined) {
      const rowGroup = split.rowGroup;
      const batches = await this.io(split, async () =>
        this.cfg.decoder.rowGroupRows!(this.cfg.fs, split.path, rowGroup, split.offset, FILE_READ_BATCH_ROWS)[Symbol.asyncIterator](),
      );
      return { split, batches, offset: split.offset, partitionValues };
    }
    if (this.cfg.decoder.binary) {
      const batches = binaryParts(
        this.cfg.fs.read(split.path),
        relativePathOf(this.cfg.basePath, split.path),
        split.offset,
        FILE_READ_BATCH_ROWS,
      )[Symbol.asyncIterator]();
      return { split, batches, offset: split.offset, partitionValues: [] };
    }
    if (this.cfg.decoder.decodeDocument) {
      const batches = this.xmlBatches(split)[Symbol.asyncIterator]();
      return { split, batches, offset: split.offset, partitionValues };
    }
    if (this.cfg.decoder.decodeCells) {
      const batches = this.excelBatches(split)[Symbol.asyncIterator]();
      return { split, batches, offset: split.offset, partitionValues };
    }
    const lines = await this.io(split, async () => {
      const it = this.linesOf(split)[Symbol.asyncIterator]();
      for (let skip = split.offset; skip > 0; skip--) if ((await it.next()).done) break;
      return it;
    });
    return { split, lines, offset: split.offset, partitionValues };
  }

  /** Whether an archive's entry is read: one whose name ends with a suffix of the format (a file that is no archive is). */
  private isRead(entryName: string): boolean {
    return this.cfg.archiveCodec === 'none' || this.cfg.entrySuffixes.some((s) => entryName.endsWith(s));
  }

  /** An xml file's rows (every archive entry's, for archives), each document read whole, after `offset` rows, in batches. */
  private async *xmlBatches(split: FileSplit): AsyncGenerator<unknown[][]> {
    const { fs, archiveCodec } = this.cfg;
    const size = archiveCodec === 'zip' ? ((await fs.listFiles(split.path))[0]?.size ?? 0) : 0;
    let skipRows = split.offset;
    for await (const entry of archiveEntries(fs, split.path, archiveCodec, size)) {
      if (!this.isRead(entry.name)) continue;
      let rows = this.cfg.decoder.decodeDocument!(new TextDecoder(this.cfg.encoding).decode(await buffer(entry.bytes)));
      if (skipRows > 0) {
        const skipped = Math.min(skipRows, rows.length);
        rows = rows.slice(skipped);
        skipRows -= skipped;
      }
      for (let at = 0; at < rows.length; at += FILE_READ_BATCH_ROWS) yield rows.slice(at, at + FILE_READ_BATCH_ROWS);
    }
  }

  /** An excel file's rows (every archive entry's, for archives) after the header rows and `offset` more, decoded, in batches. */
  private async *excelBatches(split: FileSplit): AsyncGenerator<unknown[][]> {
    const { fs, archiveCodec } = this.cfg;
    const decode = this.cfg.decoder.decodeCells!;
    const size = archiveCodec === 'zip' ? ((await fs.listFiles(split.path))[0]?.size ?? 0) : 0;
    let skipRows = split.offset;
    let batch: unknown[][] = [];
    for await (const entry of archiveEntries(fs, split.path, archiveCodec, size)) {
      if (!this.isRead(entry.name)) continue;
      let skip = this.cfg.skipHeaderLines;
      for await (const cells of excelRows(entry.bytes, entry.name, this.cfg.sheetName, `${split.path} (${entry.name})`)) {
        if (skip > 0) {
          skip--;
          continue;
        }
        if (skipRows > 0) {
          skipRows--;
          continue;
        }
        batch.push(decode(cells));
        if (batch.length >= FILE_READ_BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  /**
   * The lines of a file after skip_header_row_number, or of every entry of an archive whose
   * name ends with the format's suffix, each entry's header skipped (SeaTunnel reads entries
   * one after the other as if each were a file); lzo decompresses each file or entry.
   */
  private async *linesOf(split: FileSplit): AsyncGenerator<string> {
    const { fs, archiveCodec } = this.cfg;
    const size = archiveCodec === 'zip' ? ((await fs.listFiles(split.path))[0]?.size ?? 0) : 0;
    for await (const entry of archiveEntries(fs, split.path, archiveCodec, size)) {
      if (!this.isRead(entry.name)) continue;
      const bytes = this.cfg.compressCodec === 'lzo' ? lzopDecompress(entry.bytes) : entry.bytes;
      let skip = this.cfg.skipHeaderLines;
      for await (const line of readLines(bytes, this.cfg.encoding, this.cfg.rowDelimiter)) {
        if (skip > 0) {
          skip--;
          continue;
        }
        yield line;
      }
    }
  }

  snapshotState(): FileSplit[] {
    const out: FileSplit[] = [];
    if (this.current) out.push({ ...this.current.split, offset: this.current.offset });
    out.push(...this.queue);
    return out;
  }

  async close(): Promise<void> {
    await this.current?.lines?.return?.();
    await this.current?.batches?.return?.();
    this.current = undefined;
  }
}
