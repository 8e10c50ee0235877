import type { OptionDef, PluginOptions, PluginSpec, RetiredOption } from '@tideway/api';
import { DATE_FORMATS, DATETIME_FORMATS, TIME_FORMATS } from './temporal-formats.js';
import { PARQUET_WRITE_CODECS } from './parquet-encoder.js';
import { ORC_WRITE_CODECS } from './orc-compression.js';
import { charsetEncoder } from './charset.js';

/** File formats Tideway reads and writes: all of SeaTunnel's. */
export const FILE_FORMATS = ['text', 'csv', 'json', 'parquet', 'orc', 'excel', 'binary', 'xml'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** The file name suffix SeaTunnel gives each format (its FileFormat's first). */
export const FORMAT_SUFFIX: Record<FileFormat, string> = {
  text: '.txt',
  csv: '.csv',
  json: '.json',
  parquet: '.parquet',
  orc: '.orc',
  excel: '.xlsx',
  binary: '',
  xml: '.xml',
};

/** The suffixes of the files of each format SeaTunnel reads in archives (its FileFormat's getAllSuffix). */
export const SOURCE_SUFFIXES: Record<FileFormat, readonly string[]> = {
  ...(Object.fromEntries(Object.entries(FORMAT_SUFFIX).map(([f, s]) => [f, [s]])) as Record<FileFormat, string[]>),
  excel: ['.xlsx', '.xls'],
};

/** What SeaTunnel's CompressFormat puts before the format's suffix, by compress_codec. */
export const CODEC_SUFFIX: Record<string, string> = {
  none: '',
  lzo: '.lzo',
  snappy: '.snappy',
  gzip: '.gz',
  brotli: '.br',
  zstd: '.zstd',
  lz4: '.lz4',
  zlib: '.zlib',
};

export const SCHEMA_SAVE_MODES = ['RECREATE_SCHEMA', 'CREATE_SCHEMA_WHEN_NOT_EXIST', 'ERROR_WHEN_SCHEMA_NOT_EXIST', 'IGNORE'] as const;
export const DATA_SAVE_MODES = ['DROP_DATA', 'APPEND_DATA', 'ERROR_WHEN_DATA_EXISTS'] as const;

/** Options of SeaTunnel's file sinks (BaseSinkConfig) that Tideway implements, with its defaults. */
export const FILE_SINK_OPTIONS: readonly OptionDef[] = [
  {
    name: 'path',
    type: 'string',
    required: true,
    description: 'Target folder; ${database_name}, ${schema_name} and ${table_name} are replaced from the upstream table.',
  },
  {
    name: 'tmp_path',
    type: 'string',
    default: '/tmp/seatunnel',
    description: 'Where transaction files are written before the commit moves them into path.',
  },
  {
    name: 'custom_filename',
    type: 'boolean',
    default: false,
    description:
      'Accepted for compatibility: like SeaTunnel, file_name_expression and filename_time_format apply whether or not it is set.',
  },
  {
    name: 'file_name_expression',
    type: 'string',
    default: '${transactionId}',
    description:
      'File name before "_<part>" and the suffix: ${transactionId}, ${now} (filename_time_format) and ${uuid} are replaced. Must contain ${transactionId} when is_enable_transaction is true.',
  },
  {
    name: 'filename_time_format',
    type: 'string',
    default: 'yyyy.MM.dd',
    description: 'Java-style pattern for ${now} in file_name_expression (y, M, d, H, m, s, S).',
  },
  {
    name: 'file_format_type',
    type: 'enum',
    values: [...FILE_FORMATS],
    default: 'csv',
    description:
      'text, csv, json, parquet, orc, excel, xml or binary. binary writes the files a binary source read, under their relativePath.',
  },
  {
    name: 'field_delimiter',
    type: 'string',
    default: '\u0001',
    description: 'Separator between fields of the text format (csv always uses ",").',
  },
  { name: 'row_delimiter', type: 'string', default: '\n', description: 'Separator between rows of the text, csv and json formats.' },
  {
    name: 'have_partition',
    type: 'boolean',
    default: false,
    description:
      'Makes partition_by required. Like SeaTunnel (FileSinkConfig reads partition_by whatever this says), rows are partitioned whenever partition_by is set.',
  },
  { name: 'partition_by', type: 'list', description: 'Partition fields: rows go to partition folders built from their values.' },
  {
    name: 'partition_dir_expression',
    type: 'string',
    description: 'Partition folder, with ${kN}/${vN} for the N-th partition field name/value; default k0=v0/k1=v1/...',
  },
  {
    name: 'is_partition_field_write_in_file',
    type: 'boolean',
    default: false,
    description: 'Whether partition fields are also written into the files.',
  },
  {
    name: 'sink_columns',
    type: 'list',
    description: 'Columns to write, in this order (matched case-insensitively); all columns when empty.',
  },
  {
    name: 'is_enable_transaction',
    type: 'boolean',
    default: true,
    description: 'Write to tmp_path and move files into path on checkpoint commit (exactly-once); false writes straight into path.',
  },
  {
    name: 'batch_size',
    type: 'int',
    default: 1_000_000,
    min: 1,
    description: 'Maximum rows per file; a checkpoint also starts new files.',
  },
  {
    name: 'compress_codec',
    type: 'string',
    default: 'none',
    description:
      'parquet: none, snappy, gzip, brotli, zstd (level 3) or lz4 (written as LZ4_RAW, the codec the format keeps; its older LZ4 is deprecated); lzo is refused (DuckDB and Arrow read no LZO pages). orc: none, zlib, snappy, lz4 or zstd (lzo is refused: no maintained LZO compressor for Node). text, csv and json: none or lzo (the lzop format, file names end .lzo.txt etc.).',
  },
  {
    name: 'encoding',
    type: 'string',
    default: 'UTF-8',
    description:
      'Charset of written text, csv and json files: UTF-8, GBK, GB18030, ISO-8859-1, UTF-16, Big5, Shift_JIS and the others iconv-lite knows.',
  },
  {
    name: 'enable_header_write',
    type: 'boolean',
    default: false,
    description: 'Write the column names as the first line of text and csv files.',
  },
  { name: 'date_format', type: 'enum', values: DATE_FORMATS, default: 'yyyy-MM-dd', description: 'How text and csv files spell dates.' },
  {
    name: 'datetime_format',
    type: 'enum',
    values: DATETIME_FORMATS,
    default: 'yyyy-MM-dd HH:mm:ss',
    description: 'How text and csv files spell timestamps.',
  },
  { name: 'time_format', type: 'enum', values: TIME_FORMATS, default: 'HH:mm:ss', description: 'How text and csv files spell times.' },
  { name: 'sheet_name', type: 'string', description: 'excel: the sheet to write (default Sheet<random number>, as SeaTunnel names it).' },
  {
    name: 'max_rows_in_memory',
    type: 'int',
    min: 1,
    description:
      'excel: rows SeaTunnel keeps in memory before flushing (its SXSSF window). Tideway streams every row to the file as it is added, so at most one row is held whatever this says.',
  },
  { name: 'xml_root_tag', type: 'string', default: 'RECORDS', description: 'xml: the root element.' },
  { name: 'xml_row_tag', type: 'string', default: 'RECORD', description: 'xml: the element of each row.' },
  {
    name: 'xml_use_attr_format',
    type: 'boolean',
    description: 'xml: fields as attributes of the row element (true) or as child elements (false); required for xml.',
  },
  {
    name: 'schema_save_mode',
    type: 'enum',
    values: SCHEMA_SAVE_MODES,
    default: 'CREATE_SCHEMA_WHEN_NOT_EXIST',
    description: 'What to do with the target folder before the job writes: recreate, create when missing, fail when missing, or nothing.',
  },
  {
    name: 'data_save_mode',
    type: 'enum',
    values: DATA_SAVE_MODES,
    default: 'APPEND_DATA',
    description: 'What to do with files already in the target folder: delete them, keep them, or fail.',
  },
];

/** Cross-option rules of the file sinks. */
export function validateFileSinkOptions(o: PluginOptions): string | undefined {
  const format = String(o.get('file_format_type')).toLowerCase();
  const codec = String(o.get('compress_codec')).toLowerCase();
  if (format === 'parquet' && !(codec in PARQUET_WRITE_CODECS)) {
    return `Option 'compress_codec': the parquet writer implements none, snappy, gzip, brotli, zstd and lz4, got '${o.get<string>('compress_codec')}'${codec === 'lzo' ? ' (LZO pages are read by almost no Parquet reader: DuckDB and Arrow have none)' : ''}.`;
  }
  if (format === 'orc' && !(codec in ORC_WRITE_CODECS)) {
    return `Option 'compress_codec': the orc writer implements none, zlib, snappy, lz4 and zstd, got '${o.get<string>('compress_codec')}'${codec === 'lzo' ? ' (no maintained LZO compressor exists for Node: docs/decisions/0011-orc.md)' : ''}.`;
  }
  if (format === 'xml' && !o.has('xml_use_attr_format')) return "Option 'xml_use_attr_format' is required when file_format_type is xml.";
  if (format === 'xml' && codec !== 'none')
    return `Option 'compress_codec': only none is implemented for xml, got '${o.get<string>('compress_codec')}'.`;
  if (format === 'binary' && codec !== 'none')
    return `Option 'compress_codec': binary files are copied as they are; only none applies, got '${o.get<string>('compress_codec')}'.`;
  if (format === 'excel' && codec !== 'none')
    return `Option 'compress_codec': excel files are zip archives already; only none applies, got '${o.get<string>('compress_codec')}'.`;
  if (format !== 'parquet' && format !== 'orc' && codec !== 'none' && codec !== 'lzo') {
    return `Option 'compress_codec': ${format} files take lzo or none (as in SeaTunnel), got '${o.get<string>('compress_codec')}'.`;
  }
  if (!charsetEncoder(String(o.get('encoding')))) {
    return `Option 'encoding': '${o.get<string>('encoding')}' is not a charset Tideway can write (UTF-8, GBK, GB18030, ISO-8859-1, UTF-16, Big5, Shift_JIS, ... as iconv-lite knows them).`;
  }
  if (o.get<boolean>('is_enable_transaction') && !String(o.get('file_name_expression')).includes('${transactionId}')) {
    return "Option 'file_name_expression' must contain ${transactionId} when is_enable_transaction is true.";
  }
  const partitionBy = o.get<string[] | undefined>('partition_by') ?? [];
  if (o.get<boolean>('have_partition') && partitionBy.length === 0) return "Option 'partition_by' is required when have_partition is true.";
  if (String(o.get('row_delimiter')) === '') return "Option 'row_delimiter' must not be empty.";
  return undefined;
}

/**
 * Options SeaTunnel's file sinks had and dropped (found in apache/seatunnel's history). Configs
 * written for older releases still set them, and SeaTunnel ignores them silently.
 */
export const FILE_SINK_RETIRED_OPTIONS: readonly RetiredOption[] = [
  {
    name: 'save_mode',
    replacement: 'data_save_mode (and schema_save_mode)',
    history: 'removed it from its file sinks in 2.3.0 (apache/seatunnel#3375)',
  },
  { name: 'file_format', replacement: 'file_format_type', history: 'renamed it to file_format_type in 2.3.1 (apache/seatunnel#4249)' },
];

/** The spec both LocalFile and S3File sinks start from. */
export function fileSinkSpec(extra: readonly OptionDef[] = []): PluginSpec {
  return { options: [...FILE_SINK_OPTIONS, ...extra], validate: validateFileSinkOptions, retiredOptions: FILE_SINK_RETIRED_OPTIONS };
}
