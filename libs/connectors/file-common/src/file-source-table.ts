import { parseSchemaConfig, Types, type CatalogTable, type Column, type PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { FileFormat } from './sink-options.js';
import { compileJsonLineParser } from './json-format.js';
import { compileTextFieldParsers, splitCsvLine } from './text-format.js';
import { javaLineSplitter } from './java-line-split.js';

/** How a file source turns lines into rows; built once from the options and the partition keys. */
export interface SourceDecoder {
  readonly table: CatalogTable;
  /** The fields of one line (before partition values), projected to read_columns. */
  decode(line: string): unknown[];
  /** Partition keys found in the first file's path (parse_partition_from_path). */
  readonly partitionKeys: readonly string[];
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

/** Builds the table and line decoder of a file source. */
export function buildSourceDecoder(o: PluginOptions, plugin: string, partitionKeys: readonly string[]): SourceDecoder {
  const format = String(o.get('file_format_type')).toLowerCase() as FileFormat;
  let base: CatalogTable;
  if (o.has('schema')) {
    base = parseSchemaConfig(o.get('schema'), { catalogName: plugin, place: o.place('schema') }).table;
  } else {
    base = parseSchemaConfig({ fields: { content: 'string' } }, { catalogName: plugin }).table;
  }
  const schemaColumns = base.columns;
  const readColumns = o.get<string[] | undefined>('read_columns') ?? [];
  const projection = readColumns.map((name) => {
    const i = schemaColumns.findIndex((c) => c.name === name);
    if (i < 0) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `Column '${name}' of read_columns is not in the schema (${schemaColumns.map((c) => c.name).join(', ')}).`, {
        place: o.place('read_columns'),
      });
    }
    return i;
  });
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
  const decode = projection.length === 0 ? parseAll : (line: string) => {
    const all = parseAll(line);
    return projection.map((i) => all[i]);
  };
  return { table, decode, partitionKeys };
}
