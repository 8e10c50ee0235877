import type { Column } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { parquetMetadataAsync, parquetRead, type AsyncBuffer, type FileMetaData, type SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
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
  // One read per row group: hyparquet decodes whole column chunks, so smaller reads would decode them again.
  let rows: unknown[][] = [];
  await parquetRead({
    file,
    metadata: rawDecimals(meta),
    columns: columns.map((c) => c.name),
    rowStart: start + offset,
    rowEnd: end,
    rowFormat: 'array',
    utf8: false,
    parsers: TIDEWAY_PARSERS,
    compressors,
    onComplete: (r) => {
      rows = r;
    },
  });
  for (let at = 0; at < rows.length; at += batchRows) {
    const batch = rows.slice(at, at + batchRows);
    for (const row of batch) for (let i = 0; i < convert.length; i++) row[i] = convert[i](row[i]);
    yield batch;
  }
}
