import type { Column } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  parquetMetadataAsync,
  parquetSchema,
  type AsyncBuffer,
  type ColumnChunk,
  type FileMetaData,
  type SchemaElement,
  type SchemaTree,
} from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath, isFlatColumn } from 'hyparquet/src/schema.js';
import { type ColumnDecoder, FlatColumnPages, readChunks } from './parquet-flat-reader.js';
import type { FileSystemAdapter } from './file-system.js';
import { LeveledColumnPages } from './parquet-leveled-pages.js';
import { NestedColumnReader } from './parquet-nested-reader.js';
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
  yield* parquetRowGroupBatches((from, to) => fs.readRange(path, from, to), path, meta, rowGroup, offset, columns, batchRows);
}

/**
 * The rows of row group `rowGroup` of a file whose footer is `meta`, from row `offset` on,
 * projected to `columns` (top-level file column names, read as the columns' types), in batches;
 * `read` gives the file's bytes [from, to), `where` names the file in errors.
 */
export async function* parquetRowGroupBatches(
  read: (from: number, to: number) => Promise<Uint8Array>,
  where: string,
  meta: FileMetaData,
  rowGroup: number,
  offset: number,
  columns: readonly Column[],
  batchRows: number,
): AsyncGenerator<unknown[][]> {
  let start = 0;
  for (let i = 0; i < rowGroup; i++) start += Number(meta.row_groups[i].num_rows);
  const end = start + Number(meta.row_groups[rowGroup].num_rows);
  const first = start + offset;
  const readers = await columnReaders(read, where, meta, rowGroup, columns);
  for (const r of readers) r.skip(offset);
  for (let row = first; row < end; row += batchRows)
    yield batchOf(Math.min(batchRows, end - row), columns.length, (batch, i) => readers[i].fill(batch, i));
}

/** A batch of `n` rows of `width` fields, column `i` filled by `fill(batch, i)`. */
function batchOf(n: number, width: number, fill: (batch: unknown[][], i: number) => void): unknown[][] {
  const batch = new Array<unknown[]>(n);
  for (let r = 0; r < n; r++) batch[r] = new Array<unknown>(width);
  for (let i = 0; i < width; i++) fill(batch, i);
  return batch;
}

/** A column of a row group read a batch of rows at a time. */
interface ColumnReader {
  skip(n: number): void;
  /** Puts the next batch.length values at index `col` of each row of `batch`. */
  fill(batch: unknown[][], col: number): void;
}

/**
 * Readers of `columns` in row group `rowGroup`, their chunks' bytes read: flat columns page by
 * page (parquet-flat-reader.ts), nested ones (row, array, map) by Tideway's assembly of their
 * leaves' levels (parquet-nested-reader.ts). Both make a batch of rows from the pages it needs.
 */
async function columnReaders(
  read: (from: number, to: number) => Promise<Uint8Array>,
  path: string,
  meta: FileMetaData,
  rowGroup: number,
  columns: readonly Column[],
): Promise<ColumnReader[]> {
  const tree = parquetSchema(rawDecimals(meta));
  const parsers = { ...DEFAULT_PARSERS, ...TIDEWAY_PARSERS };
  const all = meta.row_groups[rowGroup].columns;
  const chunkOf = (leaf: SchemaTree): ColumnChunk => {
    const chunk = all.find((k) => k.meta_data?.path_in_schema.join('\u0000') === leaf.path.join('\u0000'));
    if (!chunk) throw new Error(`${path}: row group ${rowGroup} has no column chunk of ${leaf.path.join('.')}`);
    return chunk;
  };
  const nodes = columns.map((c) => getTreePath(tree, [c.name]));
  const leaves = nodes.flatMap((n) => leavesOf(n.at(-1)!));
  const chunks = leaves.map(chunkOf);
  const bytes = await readChunks(read, chunks);
  const located = new Map(leaves.map((leaf, i) => [leaf, { chunk: chunks[i], bytes: bytes[i] }]));
  /** hyparquet's decoder of a leaf's chunk, its bytes, and where it is, for errors. */
  const leafOf = (leaf: SchemaTree) => {
    const { chunk, bytes } = located.get(leaf)!;
    const m = chunk.meta_data!;
    const decoder: ColumnDecoder = {
      pathInSchema: m.path_in_schema,
      type: m.type,
      element: leaf.element,
      schemaPath: getTreePath(tree, leaf.path),
      codec: m.codec,
      parsers,
      compressors,
      utf8: false,
    };
    return { decoder, bytes, entries: Number(m.num_values), where: `${path}: row group ${rowGroup}, column ${leaf.path.join('.')}` };
  };
  return columns.map((c, i) => {
    const column = nodes[i].at(-1)!;
    if (isFlatColumn(nodes[i])) {
      const { decoder, bytes: b, where } = leafOf(column);
      const pages = new FlatColumnPages(b, decoder, where);
      const convert = compileFromParquet(c.type);
      return { skip: (n) => pages.skip(n), fill: (batch, col) => pages.fill(batch, col, convert) };
    }
    return new NestedColumnReader(column, c.type, (leaf) => {
      const { decoder, bytes: b, entries, where } = leafOf(leaf);
      return new LeveledColumnPages(b, decoder, entries, where);
    });
  });
}

/** The leaves under `node` (itself when it is one), depth first: the order of the file's column chunks. */
function leavesOf(node: SchemaTree): SchemaTree[] {
  return node.children.length === 0 ? [node] : node.children.flatMap(leavesOf);
}
