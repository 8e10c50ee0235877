import { formatType, type CatalogTable, type Column, type DataType, type PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode, ValueConversionError } from '@tideway/common';
import { javaDoubleText, javaFloatText, isoTemporalText } from './java-text.js';
import { compileJsonLineWriter } from './json-format.js';
import { substituteTablePlaceholders, substituteVariables } from './file-name.js';
import { CODEC_SUFFIX, FORMAT_SUFFIX, type FileFormat } from './sink-options.js';
import { charsetEncoder } from './charset.js';
import { compileTextLineWriter } from './text-format.js';
import { CompressedFileEncoder, LineFileEncoder, type FileEncoder } from './file-encoder.js';
import { LzopWriter } from './lzop.js';
import { newParquetEncoder, PARQUET_WRITE_CODECS } from './parquet-encoder.js';
import { parquetSchemaOf } from './parquet-schema.js';
import { checkOrcColumns, OrcFileWriter } from './orc-writer.js';
import { ORC_WRITE_CODECS } from './orc-compression.js';
import { CompressionKind } from './gen/orc_file.js';
import { ExcelFileEncoder, loadExcel } from './excel-format.js';
import { binaryLayout } from './binary-format.js';
import { XmlFileEncoder } from './xml-format.js';
import { loadZstd } from './zstd-lz4.js';
import type { DateFormat, DateTimeFormat, TimeFormat } from './temporal-formats.js';

/**
 * How one upstream table is written: target folder, the columns that go into files, the
 * partition fields and the file encoder. Built once per table; the per-row work is only
 * `pick(fields)`, the encoder's `add` and, when partitioned, `partitionDir(fields)`.
 */
export interface TableLayout {
  readonly tableId: string;
  /** Target folder with ${table_name} etc. replaced, without a trailing '/'. */
  readonly path: string;
  readonly format: FileFormat;
  readonly suffix: string;
  /** The partition folder of a row; absent when the table is not partitioned. */
  partitionDir?(fields: readonly unknown[]): string;
  /** The written columns of a row (full upstream fields in; the array is reused, or is `fields` itself when every column is written). */
  pick(fields: readonly unknown[]): unknown[];
  /** Where each written column is in the upstream fields; absent when every column is written, in order. */
  readonly columns?: readonly number[];
  /** A new encoder for one file of this table. */
  newEncoder(): FileEncoder;
  /** Loads what the encoder needs (exceljs is loaded only by jobs writing excel). */
  load?(): Promise<void>;
  /** binary: the file a row belongs to (its relativePath), instead of file_name_expression. */
  fileNameOf?(fields: readonly unknown[]): string;
}

/** A partition value as Java's toString spells it (folder names must match SeaTunnel's). */
function partitionText(type: DataType): (v: unknown) => string {
  switch (type.kind) {
    case 'float':
      return (v) => javaFloatText(v as number);
    case 'double':
      return (v) => javaDoubleText(v as number);
    case 'time':
    case 'timestamp':
      return (v) => isoTemporalText(v as string);
    case 'string':
    case 'boolean':
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'decimal':
    case 'date':
    case 'timestamp_tz':
      return (v) => String(v);
    default:
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `A ${formatType(type)} field cannot be a partition field.`);
  }
}

/** Builds the layout of `table` from the sink's options. */
export function buildTableLayout(o: PluginOptions, table: CatalogTable, plugin: string): TableLayout {
  if (String(o.get('file_format_type')).toLowerCase() === 'binary') return binaryLayout(o, table, plugin, targetPath(o, table));
  const names = table.columns.map((c) => c.name.toLowerCase());
  const indexOf = (name: string, option: string): number => {
    const i = names.indexOf(name.toLowerCase());
    if (i < 0) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `Column '${name}' of option '${option}' is not in table ${table.tableId} (${table.columns.map((c) => c.name).join(', ')}).`,
        {
          place: o.place(option),
        },
      );
    }
    return i;
  };
  const sinkColumns = o.get<string[] | undefined>('sink_columns') ?? [];
  let written = sinkColumns.length > 0 ? sinkColumns.map((c) => indexOf(c, 'sink_columns')) : table.columns.map((_, i) => i);
  // SeaTunnel partitions by partition_by whether or not have_partition is set.
  const partitionBy = o.get<string[] | undefined>('partition_by') ?? [];
  const partitionIdx = partitionBy.map((c) => indexOf(c, 'partition_by'));
  for (const p of partitionIdx) {
    if (!written.includes(p)) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `Partition field '${table.columns[p].name}' must be one of the sink columns.`, {
        place: o.place('partition_by'),
      });
    }
  }
  if (partitionIdx.length > 0 && !o.get<boolean>('is_partition_field_write_in_file'))
    written = written.filter((i) => !partitionIdx.includes(i));
  if (written.length === 0)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `No column of table ${table.tableId} is left to write into files.`, {
      place: o.place('sink_columns'),
    });

  const format = String(o.get('file_format_type')).toLowerCase() as FileFormat;
  const columns = written.map((i) => table.columns[i]);
  const picked: unknown[] = new Array(written.length);
  // every column, in order: the row's own fields (encoders copy what they keep)
  const all = written.length === table.columns.length && written.every((c, i) => c === i);
  const pick = all
    ? (fields: readonly unknown[]): unknown[] => fields as unknown[]
    : (fields: readonly unknown[]): unknown[] => {
        for (let i = 0; i < written.length; i++) picked[i] = fields[written[i]];
        return picked;
      };

  const partitionNames = partitionIdx.map((i) => table.columns[i].name);
  const partitionTexts = partitionIdx.map((i) => partitionText(table.columns[i].type));
  const expression =
    o.has('partition_dir_expression') && String(o.get('partition_dir_expression')).trim() !== ''
      ? String(o.get('partition_dir_expression'))
      : undefined;
  const partitionDir = (fields: readonly unknown[]): string => {
    const values = partitionIdx.map((idx, k) => {
      const v = fields[idx];
      if (v === null || v === undefined) {
        throw new ValueConversionError(
          ErrorCode.VALUE_CONVERSION,
          `${plugin}: partition field '${partitionNames[k]}' is null in a row of ${table.tableId}; a partition folder needs a value.`,
        );
      }
      return partitionTexts[k](v);
    });
    if (expression === undefined) return partitionNames.map((n, k) => `${n}=${values[k]}`).join('/');
    const vars: Record<string, string> = {};
    partitionNames.forEach((n, k) => {
      vars[`k${k}`] = n;
      vars[`v${k}`] = values[k];
    });
    return substituteVariables(expression, vars).replace(/^\/+|\/+$/g, '');
  };

  const path = targetPath(o, table);
  return {
    tableId: table.tableId,
    path,
    format,
    // SeaTunnel puts the codec before the format's suffix: x.lzo.txt, x.snappy.parquet.
    suffix: CODEC_SUFFIX[String(o.get('compress_codec')).toLowerCase()] + FORMAT_SUFFIX[format],
    partitionDir: partitionIdx.length > 0 ? partitionDir : undefined,
    pick,
    columns: all ? undefined : written,
    newEncoder:
      format === 'parquet'
        ? parquetEncoderFactory(o, columns)
        : format === 'orc'
          ? orcEncoderFactory(o, columns)
          : format === 'excel'
            ? excelEncoderFactory(o, columns, written)
            : format === 'xml'
              ? xmlEncoderFactory(o, columns)
              : lineEncoderFactory(o, format as LineFormat, columns),
    ...(format === 'excel' ? { load: async () => void (await loadExcel()) } : {}),
    ...(format === 'parquet' && PARQUET_WRITE_CODECS[String(o.get('compress_codec')).toLowerCase()] === 'ZSTD' ? { load: loadZstd } : {}),
    ...(format === 'orc' && ORC_WRITE_CODECS[String(o.get('compress_codec')).toLowerCase()] === CompressionKind.ZSTD
      ? { load: loadZstd }
      : {}),
  };
}

function orcEncoderFactory(o: PluginOptions, columns: readonly Column[]): () => FileEncoder {
  const codec = ORC_WRITE_CODECS[String(o.get('compress_codec')).toLowerCase()];
  checkOrcColumns(columns); // a column ORC cannot hold fails now, at planning, not in a worker
  return () => new OrcFileWriter(columns, codec);
}

function parquetEncoderFactory(o: PluginOptions, columns: readonly Column[]): () => FileEncoder {
  const codec = PARQUET_WRITE_CODECS[String(o.get('compress_codec')).toLowerCase()];
  parquetSchemaOf(columns); // a column Parquet cannot hold fails now, at planning, not in a worker
  return () => newParquetEncoder(columns, codec);
}

/** The target folder of a table: path with ${database_name} etc. replaced, without a trailing '/'. */
function targetPath(o: PluginOptions, table: CatalogTable): string {
  const path = substituteTablePlaceholders(String(o.get('path')), table.path).replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

function excelEncoderFactory(o: PluginOptions, columns: readonly Column[], positions: readonly number[]): () => FileEncoder {
  const options = {
    sheetName: o.has('sheet_name') ? String(o.get('sheet_name')) : undefined,
    fieldDelimiter: String(o.get('field_delimiter')),
    dateFormat: o.get<DateFormat>('date_format'),
    dateTimeFormat: o.get<DateTimeFormat>('datetime_format'),
    timeFormat: o.get<TimeFormat>('time_format'),
  };
  return () => new ExcelFileEncoder(columns, positions, options);
}

function xmlEncoderFactory(o: PluginOptions, columns: readonly Column[]): () => FileEncoder {
  const options = {
    rootTag: String(o.get('xml_root_tag')),
    rowTag: String(o.get('xml_row_tag')),
    useAttributes: o.get<boolean>('xml_use_attr_format'),
    fieldDelimiter: String(o.get('field_delimiter')),
  };
  const newCharsetEncoder = charsetEncoder(String(o.get('encoding')))!;
  return () => new XmlFileEncoder(columns, options, newCharsetEncoder());
}

type LineFormat = 'text' | 'csv' | 'json';

function lineEncoderFactory(o: PluginOptions, format: LineFormat, columns: readonly Column[]): () => FileEncoder {
  const fieldDelimiter = format === 'csv' ? ',' : String(o.get('field_delimiter'));
  const encodeColumns =
    format === 'json'
      ? compileJsonLineWriter(columns)
      : compileTextLineWriter(
          columns.map((c) => c.type),
          {
            fieldDelimiter,
            dateFormat: o.get<DateFormat>('date_format'),
            dateTimeFormat: o.get<DateTimeFormat>('datetime_format'),
            timeFormat: o.get<TimeFormat>('time_format'),
          },
        );
  const rowDelimiter = String(o.get('row_delimiter'));
  const header = o.get<boolean>('enable_header_write') && format !== 'json' ? columns.map((c) => c.name).join(fieldDelimiter) : undefined;
  const newCharsetEncoder = charsetEncoder(String(o.get('encoding')))!; // validated by the spec
  const lzo = String(o.get('compress_codec')).toLowerCase() === 'lzo';
  return () => {
    const lines = new LineFileEncoder(encodeColumns, rowDelimiter, newCharsetEncoder(), header);
    return lzo ? new CompressedFileEncoder(lines, new LzopWriter()) : lines;
  };
}
