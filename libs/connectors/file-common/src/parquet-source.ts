import type { Column } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  parquetMetadataAsync,
  parquetRead,
  parquetSchema,
  type AsyncBuffer,
  type ColumnData,
  type FileMetaData,
  type SchemaElement,
} from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath, isFlatColumn } from 'hyparquet/src/schema.js';
import { type ColumnDecoder, FlatColumnPages, readChunks } from './parquet-flat-reader.js';
import type { FileSystemAdapter } from './file-system.js';
import { columnsOfParquetSchema } from './parquet-schema.js';
import { compileFromParquet, TIDEWAY_PARSERS } from './parquet-values.js';

/** A Parquet file as hyparquet reads it: byte ranges through the file system adapter. */
export async function parquetFile(fs: FileSystemAdapter, path: string): Promise<AsyncBuffer> {
  const entry = (await fs.listFiles(path))[0];
  if (!entry) throw new Error(`${path} does not exist`);
  return {
    byteLength: entry.size,
    slice: async (start, end) => {
      const bytes = await fs.readRange(path, start, end ?? entry.size);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
}

/** The footer of a Parquet file. */
export async function parquetMetadataOf(fs: FileSystemAdapter, path: string): Promise<FileMetaData> {
  return parquetMetadataAsync(await parquetFile(fs, path), { parsers: TIDEWAY_PARSERS });
}

/** The table columns of a Parquet file (SeaTunnel reads the schema from the file). */
export function parquetColumns(meta: FileMetaData, path: string): Column[] {
  return columnsOfParquetSchema(meta.schema, path);
}

/**
 * The metadata hyparquet reads with: decimal annotations dropped, so decimals come back as
 * their raw unscaled integers (hyparquet turns them into floats otherwise, losing digits).
 */
function rawDecimals(meta: FileMetaData): FileMetaData {
  const schema: SchemaElement[] = meta.schema.map((e) =>
    e.converted_type === 'DECIMAL' || e.logical_type?.type === 'DECIMAL' ? { ...e, converted_type: undefined, logical_type: undefined } : e,
  );
  return { ...meta, schema };
}

/** The rows of one row group of a file from row `offset` on, projected to `columns` (file column names). */
export async function* parquetRowGroupRows(
  fs: FileSystemAdapter,
  path: string,
  rowGroup: number,
  offset: number,
  columns: readonly Column[],
  batchRows: number,
): AsyncGenerator<unknown[][]> {
  const file = await parquetFile(fs, path);
  const meta = await parquetMetadataAsync(file, { parsers: TIDEWAY_PARSERS });
  if (rowGroup >= meta.row_groups.length) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${path} has ${meta.row_groups.length} row groups, not ${rowGroup + 1}: the file changed after the job listed it.`,
    );
  }
  let start = 0;
  for (let i = 0; i < rowGroup; i++) start += Number(meta.row_groups[i].num_rows);
  const end = start + Number(meta.row_groups[rowGroup].num_rows);
  const convert = columns.map((c) => compileFromParquet(c.type));
  const first = start + offset;
  const flat = flatColumns(fs, path, meta, rowGroup, columns);
  if (flat) {
    const pages = await flat;
    for (const p of pages) p.skip(offset);
    for (let row = first; row < end; row += batchRows)
      yield batchOf(Math.min(batchRows, end - row), columns.length, (batch, i) => pages[i].fill(batch, i, convert[i]));
    return;
  }
  // Columns with nested values: hyparquet's reader assembles them.
  // One read per row group: hyparquet decodes whole column chunks, so smaller reads would decode
  // them again. Its columns are taken as they are (onChunk) and turned into rows one batch at a
  // time: the group's rows are never all made at once (they outlived the young generation and
  // made the read spend 40% of its time in the garbage collector).
  const at = new Map(columns.map((c, i) => [c.name, i]));
  const chunks: ColumnData[][] = columns.map(() => []);
  await parquetRead({
    file,
    metadata: rawDecimals(meta),
    columns: columns.map((c) => c.name),
    rowStart: first,
    rowEnd: end,
    utf8: false,
    parsers: TIDEWAY_PARSERS,
    compressors,
    onChunk: (chunk) => chunks[at.get(chunk.columnName)!].push(chunk),
  });
  for (const list of chunks) list.sort((a, b) => a.rowStart - b.rowStart);
  const cursors = chunks.map((list) => new ColumnCursor(list, first));
  for (let row = first; row < end; row += batchRows) {
    yield batchOf(Math.min(batchRows, end - row), columns.length, (batch, i) => cursors[i].fill(batch, i, convert[i]));
  }
}

/** A batch of `n` rows of `width` fields, column `i` filled by `fill(batch, i)`. */
function batchOf(n: number, width: number, fill: (batch: unknown[][], i: number) => void): unknown[][] {
  const batch = new Array<unknown[]>(n);
  for (let r = 0; r < n; r++) batch[r] = new Array<unknown>(width);
  for (let i = 0; i < width; i++) fill(batch, i);
  return batch;
}

/**
 * Page readers of `columns` in row group `rowGroup`, when every one is flat (parquet-flat-reader.ts),
 * their chunks' bytes read; undefined when one is nested, for hyparquet's reader.
 */
function flatColumns(
  fs: FileSystemAdapter,
  path: string,
  meta: FileMetaData,
  rowGroup: number,
  columns: readonly Column[],
): Promise<FlatColumnPages[]> | undefined {
  const raw = rawDecimals(meta);
  const tree = parquetSchema(raw);
  const paths = columns.map((c) => getTreePath(tree, [c.name]));
  if (!paths.every(isFlatColumn)) return undefined;
  const all = meta.row_groups[rowGroup].columns;
  const chunks = columns.map((c) => {
    const chunk = all.find((k) => k.meta_data?.path_in_schema.length === 1 && k.meta_data.path_in_schema[0] === c.name);
    if (!chunk) throw new Error(`${path}: row group ${rowGroup} has no column chunk of ${c.name}`);
    return chunk;
  });
  const parsers = { ...DEFAULT_PARSERS, ...TIDEWAY_PARSERS };
  return readChunks((from, to) => fs.readRange(path, from, to), chunks).then((bytes) =>
    columns.map((c, i) => {
      const m = chunks[i].meta_data!;
      const schemaPath = paths[i];
      const decoder: ColumnDecoder = {
        pathInSchema: m.path_in_schema,
        type: m.type,
        element: schemaPath[schemaPath.length - 1].element,
        schemaPath,
        codec: m.codec,
        parsers,
        compressors,
        utf8: false,
      };
      return new FlatColumnPages(bytes[i], decoder, `${path}: row group ${rowGroup}, column ${c.name}`);
    }),
  );
}

/** Reads one column's chunks in row order, from a given row on (a chunk may start before it: hyparquet reads whole pages). */
class ColumnCursor {
  private chunk = 0;
  private pos: number;

  constructor(
    private readonly chunks: readonly ColumnData[],
    row: number,
  ) {
    while (this.chunk < chunks.length && chunks[this.chunk].rowEnd <= row) this.chunk++;
    this.pos = this.chunk < chunks.length ? row - chunks[this.chunk].rowStart : 0;
  }

  /** Puts the next batch.length values, converted, at index `col` of each row of `batch`. */
  fill(batch: unknown[][], col: number, convert: (v: unknown) => unknown): void {
    let r = 0;
    while (r < batch.length) {
      const c = this.chunks[this.chunk];
      if (c === undefined) throw new Error(`a Parquet column has ${batch.length - r} values fewer than its row group's rows`);
      const data = c.columnData;
      const take = Math.min(batch.length - r, data.length - this.pos);
      for (let k = 0; k < take; k++) batch[r + k][col] = convert(data[this.pos + k]);
      r += take;
      this.pos += take;
      if (this.pos === data.length) {
        this.chunk++;
        this.pos = 0;
      }
    }
  }
}
