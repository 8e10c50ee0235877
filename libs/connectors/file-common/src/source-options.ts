import {
  resolveOptionItem,
  type IgnoredOption,
  type OptionDef,
  type PluginOptions,
  type PluginSpec,
  type RetiredOption,
} from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { DATE_FORMATS, DATETIME_FORMATS, TIME_FORMATS } from './temporal-formats.js';
import { FILE_FORMATS, FILE_SINK_OPTIONS } from './sink-options.js';
import { ARCHIVE_CODECS } from './archive-entries.js';

/** Options of SeaTunnel's file sources (BaseSourceConfigOptions) that Tideway implements. */
export const FILE_SOURCE_OPTIONS: readonly OptionDef[] = [
  {
    name: 'path',
    type: 'string',
    description:
      'A file, or a folder read recursively (files named _SUCCESS, starting with "." or empty are skipped). Required unless tables_configs is set.',
  },
  {
    name: 'file_format_type',
    type: 'enum',
    values: [...FILE_FORMATS],
    description:
      'text, csv, json, parquet, orc, excel, xml or binary. excel reads .xlsx files, and Excel 97-2003 workbooks of files named .xls. binary reads whole files as rows (data bytes, relativePath string, partIndex bigint) of 1024 bytes. Parquet and orc files bring their own schema; each row group (orc: stripe) is a split. Required unless tables_configs is set.',
  },
  {
    name: 'schema',
    type: 'object',
    description:
      'The columns in the files (required for json, excel and xml; text and csv without it read each line into one string column `content`; parquet takes its columns from the file and from schema only its table name; orc takes its columns from the file, or, when schema has fields, reads the columns of those names from the files as the types given (a cast, as the orc reader of SeaTunnel does); binary has a fixed one). A folder with no files reads no rows: parquet and orc then have one string column `content`, as in SeaTunnel; `schema {}` (no columns) is accepted only for such a folder.',
  },
  {
    name: 'read_columns',
    type: 'list',
    description: 'Columns of the schema to emit, in this order (partition columns are appended after them).',
  },
  {
    name: 'field_delimiter',
    type: 'string',
    default: '\u0001',
    fallbackNames: ['delimiter'],
    description: 'Separator between fields of text files (csv uses "," unless set).',
  },
  {
    name: 'row_delimiter',
    type: 'string',
    default: '\n',
    description:
      "text and csv: the separator between rows. The default \\n also ends a row at \\r\\n or \\r (as Java's BufferedReader does); any other text ends a row exactly where it occurs. json files are read a line per row.",
  },
  {
    name: 'parse_partition_from_path',
    type: 'boolean',
    default: true,
    description: 'Add a string column per `key=value` folder between path and the file.',
  },
  {
    name: 'skip_header_row_number',
    type: 'long',
    default: 0,
    min: 0,
    description: 'Lines to skip at the start of every text or csv file (rows of every excel sheet).',
  },
  { name: 'sheet_name', type: 'string', description: 'excel: the sheet to read (default the first).' },
  {
    name: 'xml_row_tag',
    type: 'string',
    description: 'xml: the element of each row (every element of that name in the document); required for xml.',
  },
  {
    name: 'xml_use_attr_format',
    type: 'boolean',
    description: 'xml: fields are attributes of the row element (true) or child elements (false); required for xml.',
  },
  { name: 'file_filter_pattern', type: 'string', description: 'Regular expression a file name must match as a whole to be read.' },
  {
    name: 'compress_codec',
    type: 'string',
    default: 'none',
    description: 'text, csv and json: none or lzo (lzop files, decompressed as they stream in). Parquet files name their own codec.',
  },
  {
    name: 'archive_compress_codec',
    type: 'enum',
    values: ARCHIVE_CODECS,
    default: 'none',
    description:
      "zip, tar or tar_gz: every file is an archive; its entries whose names end with the format's suffix (.txt, .csv, .json, .xlsx or .xls, .xml) are read in order, streamed, each with its own header rows skipped. Not for parquet or binary.",
  },
  {
    name: 'encoding',
    type: 'string',
    default: 'UTF-8',
    description: 'Charset of the files: any the WHATWG Encoding standard names (UTF-8, GBK, ISO-8859-1, ...).',
  },
  {
    name: 'date_format',
    type: 'enum',
    values: DATE_FORMATS,
    default: 'yyyy-MM-dd',
    description: 'Accepted for compatibility: like SeaTunnel, dates in yyyy-MM-dd, yyyy.MM.dd, yyyy/MM/dd and yyyyMMdd are all recognised.',
  },
  {
    name: 'datetime_format',
    type: 'enum',
    values: DATETIME_FORMATS,
    default: 'yyyy-MM-dd HH:mm:ss',
    description:
      'Accepted for compatibility: like SeaTunnel, timestamps in any of these spellings (ISO with T and 1 to 9 fraction digits too) are recognised whichever is set.',
  },
  {
    name: 'time_format',
    type: 'enum',
    values: TIME_FORMATS,
    default: 'HH:mm:ss',
    description: 'Accepted for compatibility: times HH:mm:ss with an optional fraction are recognised.',
  },
];

/** `tables_configs`: several tables from one source block, each item a set of the options above. */
const TABLES_CONFIGS: OptionDef = {
  name: 'tables_configs',
  type: 'object-list',
  description:
    'Several tables from one source: each item takes the options above (path, file_format_type, schema with its table name, ...); options outside the list do not apply to its items.',
};

/** The options of each `tables_configs` item, checked; undefined when the source has one table. */
export function tableItemOptions(o: PluginOptions, plugin: string): PluginOptions[] | undefined {
  if (!o.has('tables_configs')) return undefined;
  const items = o.get<Record<string, unknown>[]>('tables_configs');
  const place = o.place('tables_configs');
  return items.map((item, i) => {
    const options = resolveOptionItem(item, FILE_SOURCE_OPTIONS, { ...place, plugin }, ITEM_UNUSED);
    const problem = validateOneTable(options);
    if (problem) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${plugin}: tables_configs item ${i + 1}: ${problem}`, { place });
    return options;
  });
}

export function validateFileSourceOptions(o: PluginOptions): string | undefined {
  if (!o.has('tables_configs')) return validateOneTable(o);
  const single = FILE_SOURCE_OPTIONS.find((d) => o.has(d.name));
  if (single) return `Option '${single.name}' is not used when tables_configs is set: each item of tables_configs takes its own.`;
  if (o.get<unknown[]>('tables_configs').length === 0) return "Option 'tables_configs' has no table.";
  tableItemOptions(o, o.place().plugin ?? 'file source'); // throws naming the item
  return undefined;
}

function validateOneTable(o: PluginOptions): string | undefined {
  if (!o.has('path')) return "Option 'path' is required (or tables_configs).";
  if (!o.has('file_format_type')) return "Option 'file_format_type' is required (or tables_configs).";
  const format = String(o.get('file_format_type')).toLowerCase();
  if (!(FILE_FORMATS as readonly string[]).includes(format))
    return `Option 'file_format_type': Tideway does not implement the ${format} format; use text, csv, json, parquet, orc, excel, xml or binary.`;
  if (format === 'xml' && (!o.has('xml_row_tag') || !o.has('xml_use_attr_format')))
    return "Options 'xml_row_tag' and 'xml_use_attr_format' are required when file_format_type is xml.";
  if (format === 'xml' && String(o.get('compress_codec')).toLowerCase() !== 'none')
    return "Option 'compress_codec': only none applies to xml.";
  if ((format === 'json' || format === 'excel' || format === 'xml') && !o.has('schema'))
    return `Option 'schema' is required when file_format_type is ${format}.`;
  if (format === 'excel' && String(o.get('compress_codec')).toLowerCase() !== 'none')
    return "Option 'compress_codec': excel files are zip archives already; only none applies.";
  if (String(o.get('archive_compress_codec')) !== 'none' && (format === 'parquet' || format === 'orc'))
    return `Option 'archive_compress_codec' applies to text, csv and json files; ${format === 'orc' ? 'ORC' : 'Parquet'} files are read by byte range, not from archives.`;
  if (String(o.get('row_delimiter')) === '') return "Option 'row_delimiter' is empty: rows need a separator (the default is \\n).";
  if (o.has('row_delimiter') && String(o.get('row_delimiter')) !== '\n' && format !== 'text' && format !== 'csv')
    return `Option 'row_delimiter' applies to text and csv files; ${format} files are not cut into rows by a separator${format === 'json' ? ' (a json file holds one object per line)' : ''}.`;
  if (format === 'binary' && o.has('schema'))
    return "Option 'schema' is not used with binary: its rows are always (data bytes, relativePath string, partIndex bigint).";
  if (
    format === 'binary' &&
    (String(o.get('compress_codec')).toLowerCase() !== 'none' || String(o.get('archive_compress_codec')) !== 'none')
  )
    return 'The binary format reads files as they are: compress_codec and archive_compress_codec do not apply.';
  // SeaTunnel takes only the table's name from a parquet source's schema (its tables_configs e2e names two tables so)
  if (format === 'parquet' && o.has('schema')) {
    const schema = o.get<Record<string, unknown>>('schema') ?? {};
    if ('fields' in schema || 'columns' in schema)
      return "Option 'schema' names only the table with parquet (schema.table): the columns come from the files' own schema (use read_columns to pick some).";
  }
  // Parquet files name their codec per column chunk, ORC files in their postscript: any compress_codec reads them.
  if (format !== 'parquet' && format !== 'orc' && !['none', 'lzo'].includes(String(o.get('compress_codec')).toLowerCase())) {
    return `Option 'compress_codec': ${format} files are read with lzo or none (as in SeaTunnel), got '${o.get<string>('compress_codec')}'.`;
  }
  try {
    new TextDecoder(String(o.get('encoding')));
  } catch {
    return `Option 'encoding': '${o.get<string>('encoding')}' is not a charset Tideway can read.`;
  }
  if (o.has('file_filter_pattern')) {
    try {
      new RegExp(String(o.get('file_filter_pattern')));
    } catch (err) {
      return `Option 'file_filter_pattern' is not a valid regular expression: ${(err as Error).message}.`;
    }
  }
  return undefined;
}

/**
 * The file sinks' options that a file source does not have: SeaTunnel's source leaves them
 * unread, and its own e2e configs set some in source blocks (partition_dir_expression,
 * file_name_expression, is_enable_transaction, ...), so they are accepted with a warning.
 */
export const FILE_SOURCE_IGNORED_OPTIONS: readonly IgnoredOption[] = FILE_SINK_OPTIONS.filter(
  (d) => !FILE_SOURCE_OPTIONS.some((s) => s.name === d.name),
).map((d) => ({ name: d.name, reason: "it is an option of the file sinks, which SeaTunnel's file sources leave unread" }));

/** Options SeaTunnel's file sources had and renamed (apache/seatunnel's history). */
export const FILE_SOURCE_RETIRED_OPTIONS: readonly RetiredOption[] = [
  { name: 'type', replacement: 'file_format_type', history: 'renamed it to file_format_type in 2.3.1 (apache/seatunnel#4249)' },
];

/** What an item of tables_configs may carry with no effect, as the top level may (config validation warns about each). */
const ITEM_UNUSED: ReadonlySet<string> = new Set([...FILE_SOURCE_IGNORED_OPTIONS, ...FILE_SOURCE_RETIRED_OPTIONS].map((r) => r.name));

export function fileSourceSpec(extra: readonly OptionDef[] = []): PluginSpec {
  return {
    options: [...FILE_SOURCE_OPTIONS, TABLES_CONFIGS, ...extra],
    validate: validateFileSourceOptions,
    retiredOptions: FILE_SOURCE_RETIRED_OPTIONS,
    ignoredOptions: FILE_SOURCE_IGNORED_OPTIONS,
  };
}
