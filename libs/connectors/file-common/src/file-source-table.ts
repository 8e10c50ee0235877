import { parseSchemaConfig, Types, type CatalogTable, type Column, type PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { FileFormat } from './sink-options.js';
import { compileJsonLineParser } from './json-format.js';
import { compileTextFieldParsers, splitCsvLine } from './text-format.js';
import { javaLineSplitter } from './java-line-split.js';
import type { FileSystemAdapter } from './file-system.js';
import { parquetColumns, parquetMetadataOf, parquetRowGroupRows } from './parquet-source.js';
import { orcStripeReader } from './orc-source.js';
import { compileExcelValue } from './excel-format.js';
import { BINARY_COLUMNS } from './binary-format.js';
import { compileXmlDocumentParser } from './xml-format.js';

/** How a file source turns lines into rows; built once from the options and the partition keys. */
export interface SourceDecoder {
  readonly table: CatalogTable;
  /** The fields of one line (before partition values), projected to read_columns. */
  decode(line: string): unknown[];
  /** Partition keys found in the first file's path (parse_partition_from_path). */
  readonly partitionKeys: readonly string[];
  /** xml: the rows of one whole document, projected to read_columns. */
  readonly decodeDocument?: (text: string) => unknown[][];
  /** binary: files are read as (data, relativePath, partIndex) parts. */
  readonly binary?: boolean;
  /** Excel: the fields of one sheet row (cell values as exceljs reads them), projected to read_columns. */
  readonly decodeCells?: (cells: readonly unknown[]) => unknown[];
  /**
   * Parquet and ORC: the rows of one row group (ORC: stripe) of a file from row `offset` on, in
   * batches, projected to read_columns (before partition values).
   */
  readonly rowGroupRows?: (
    fs: FileSystemAdapter,
    path: string,
    group: number,
    offset: number,
    batchRows: number,
  ) => AsyncGenerator<unknown[][]>;
}

/** read_columns as indexes into `columns` (all of them when not set). */
function projectionOf(o: PluginOptions, columns: readonly Column[], what: string): number[] {
  const readColumns = o.get<string[] | undefined>('read_columns') ?? [];
  return readColumns.map((name) => {
    const i = columns.findIndex((c) => c.name === name);
    if (i < 0) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `Column '${name}' of read_columns is not in ${what} (${columns.map((c) => c.name).join(', ')}).`,
        {
          place: o.place('read_columns'),
        },
      );
    }
    return i;
  });
}

/**
 * The decoder of a Parquet source: the table is the file's own schema (SeaTunnel reads it from
 * the file), known after prepare() read the first file; readers read each file's schema again.
 */
function parquetDecoder(
  o: PluginOptions,
  plugin: string,
  partitionKeys: readonly string[],
  fileColumns: readonly Column[] | undefined,
): SourceDecoder {
  // the schema's table name, if it has one (source-options.ts refuses columns in it)
  const named = o.has('schema') ? { ...o.get<Record<string, unknown>>('schema'), fields: {} } : { fields: {} };
  const base = parseSchemaConfig(named, { catalogName: plugin, place: o.place('schema') }).table;
  const pick = (columns: readonly Column[], what: string): Column[] => {
    const projection = projectionOf(o, columns, what);
    return projection.length > 0 ? projection.map((i) => columns[i]) : [...columns];
  };
  const emitted = fileColumns ? pick(fileColumns, 'the Parquet file') : [];
  for (const key of partitionKeys) emitted.push({ name: key, type: Types.STRING, nullable: true });
  return {
    table: { ...base, columns: emitted },
    decode: () => {
      throw new Error('Parquet files are read by row group, not by line');
    },
    partitionKeys,
    rowGroupRows: async function* (fs, path, group, offset, batchRows) {
      const columns = pick(parquetColumns(await parquetMetadataOf(fs, path), path), path);
      yield* parquetRowGroupRows(fs, path, group, offset, columns, batchRows);
    },
  };
}

/**
 * The decoder of an ORC source: the table is the file's own schema (read by prepare() from the
 * first file), projected to read_columns; or, when `schema` has fields, those columns, read from
 * the files' columns of the same names and cast to the types given (SeaTunnel's ORC reader does so).
 */
function orcDecoder(
  o: PluginOptions,
  plugin: string,
  partitionKeys: readonly string[],
  fileColumns: readonly Column[] | undefined,
): SourceDecoder {
  const written = o.has('schema') ? (o.get<Record<string, unknown>>('schema') ?? {}) : {};
  const declared = 'fields' in written || 'columns' in written;
  const base = parseSchemaConfig(declared ? written : { ...written, fields: {} }, { catalogName: plugin, place: o.place('schema') }).table;
  const pick = (columns: readonly Column[], what: string): Column[] => {
    const projection = projectionOf(o, columns, what);
    return projection.length > 0 ? projection.map((i) => columns[i]) : [...columns];
  };
  const emitted = declared ? pick(base.columns, 'the schema') : fileColumns ? pick(fileColumns, 'the ORC file') : [];
  const read = declared ? [...emitted] : undefined;
  for (const key of partitionKeys) emitted.push({ name: key, type: Types.STRING, nullable: true });
  return {
    table: { ...base, columns: emitted },
    decode: () => {
      throw new Error('ORC files are read by stripe, not by line');
    },
    partitionKeys,
    rowGroupRows: orcStripeReader(read, pick),
  };
}

/** SeaTunnel's table of a file source without a schema: one string column `content`. */
function simpleTextTable(plugin: string): CatalogTable {
  return parseSchemaConfig({ fields: { content: 'string' } }, { catalogName: plugin }).table;
}

/**
 * The table of a Parquet source whose folder holds no file to take a schema from: SeaTunnel's
 * default table (simpleTextTable, its CatalogTableUtil.buildSimpleTextTable), with no rows to read.
 */
export function emptyFolderDecoder(plugin: string): SourceDecoder {
  return {
    table: simpleTextTable(plugin),
    decode: () => {
      throw new Error('an empty folder has no lines');
    },
    partitionKeys: [],
  };
}

/** Partition `key=value` folders between `base` and the file. */
export function partitionsOf(base: string, file: string): [string, string][] {
  const root = base.replace(/\/+$/, '');
  const rest = file.startsWith(`${root}/`) ? file.slice(root.length + 1) : '';
  const dirs = rest.split('/').slice(0, -1);
  const out: [string, string][] = [];
  for (const d of dirs) {
    const at = d.indexOf('=');
    if (at > 0) out.push([d.slice(0, at), d.slice(at + 1)]);
  }
  return out;
}

/** Builds the table and line decoder of a file source (`fileColumns`: a Parquet or ORC file's schema, once read). */
export function buildSourceDecoder(
  o: PluginOptions,
  plugin: string,
  partitionKeys: readonly string[],
  fileColumns?: readonly Column[],
): SourceDecoder {
  const format = String(o.get('file_format_type')).toLowerCase() as FileFormat;
  if (format === 'parquet') return parquetDecoder(o, plugin, partitionKeys, fileColumns);
  if (format === 'orc') return orcDecoder(o, plugin, partitionKeys, fileColumns);
  if (format === 'binary') {
    const table = { ...parseSchemaConfig({ fields: {} }, { catalogName: plugin }).table, columns: [...BINARY_COLUMNS] };
    return {
      table,
      decode: () => {
        throw new Error('binary files are read in parts, not by line');
      },
      partitionKeys: [],
      binary: true,
    };
  }
  let base: CatalogTable;
  if (o.has('schema')) {
    // `schema {}` is a table of no columns, as SeaTunnel builds it (its e2e reads an empty folder
    // so); prepare() refuses it when there are files to read
    const written = o.get<Record<string, unknown>>('schema');
    const schema = Object.keys(written ?? {}).length === 0 ? { fields: {} } : written;
    base = parseSchemaConfig(schema, { catalogName: plugin, place: o.place('schema') }).table;
  } else {
    base = simpleTextTable(plugin);
  }
  const schemaColumns = base.columns;
  const projection = projectionOf(o, schemaColumns, 'the schema');
  const emitted: Column[] = projection.length > 0 ? projection.map((i) => schemaColumns[i]) : [...schemaColumns];
  for (const key of partitionKeys) emitted.push({ name: key, type: Types.STRING, nullable: true });
  const table: CatalogTable = { ...base, columns: emitted };

  let parseAll: (line: string) => unknown[];
  if (format === 'json') {
    parseAll = compileJsonLineParser(schemaColumns);
  } else if (!o.has('schema')) {
    parseAll = (line) => [line];
  } else {
    const delimiter = format === 'csv' && !o.has('field_delimiter') ? ',' : String(o.get('field_delimiter'));
    const parsers = compileTextFieldParsers(schemaColumns, delimiter);
    const split = format === 'csv' ? (l: string) => splitCsvLine(l, delimiter) : javaLineSplitter(delimiter);
    parseAll = (line) => {
      const parts = split(line);
      const out = new Array<unknown>(parsers.length);
      for (let i = 0; i < parsers.length; i++) out[i] = parsers[i](parts[i]);
      return out;
    };
  }
  const decode =
    projection.length === 0
      ? parseAll
      : (line: string) => {
          const all = parseAll(line);
          return projection.map((i) => all[i]);
        };
  if (format === 'xml') {
    const parseDoc = compileXmlDocumentParser(schemaColumns, {
      rootTag: '',
      rowTag: String(o.get('xml_row_tag')),
      useAttributes: o.get<boolean>('xml_use_attr_format'),
      fieldDelimiter: String(o.get('field_delimiter')),
    });
    const picked = projection.length > 0 ? projection : schemaColumns.map((_, i) => i);
    const decodeDocument = (text: string): unknown[][] => parseDoc(text).map((row) => picked.map((i) => row[i]));
    return { table, decode, partitionKeys, decodeDocument };
  }
  if (format === 'excel') {
    const cells = schemaColumns.map((c) => compileExcelValue(c.type, String(o.get('field_delimiter'))));
    const picked = projection.length > 0 ? projection : schemaColumns.map((_, i) => i);
    const decodeCells = (row: readonly unknown[]): unknown[] => picked.map((i) => cells[i](row[i]));
    return { table, decode, partitionKeys, decodeCells };
  }
  return { table, decode, partitionKeys };
}
