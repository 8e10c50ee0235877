import {
  formatType,
  type CatalogTable,
  type OptionDef,
  type PluginOptions,
  type PluginSpec,
  type Row,
  type TransformFactory,
} from '@tideway/api';
import { ConfigError, ErrorCode, asError } from '@tideway/common';
import {
  MULTI_TABLE_OPTIONS,
  addColumns,
  multiTableTransform,
  requireColumn,
  rowValueError,
  tableName,
  type TableStage,
} from '@tideway/transform-common';
import { readColumnConfigs, type ErrorHandleWay } from './column-config.js';
import { compilePath, type CompiledPath } from './compiled-path.js';
import { jsonConverter, type JsonConverter } from './json-to-value.js';
import { jsonSource, type JsonSource } from './json-source.js';

const NAME = 'JsonPath';

const COLUMNS: OptionDef = {
  name: 'columns',
  type: 'object-list',
  required: true,
  description:
    'What to extract: a list of { src_field, path, dest_field, dest_type (default string), column_error_handle_way (FAIL, SKIP, SKIP_ROW) }.',
};
const ROW_ERROR_HANDLE_WAY: OptionDef = {
  name: 'row_error_handle_way',
  type: 'enum',
  values: ['FAIL', 'SKIP'],
  default: 'FAIL',
  description: 'On a data error in a column without column_error_handle_way: FAIL the job, or SKIP (drop) the row.',
};

/** JsonPath's options (docs/en/transform-v2/jsonpath.md) plus the multi-table ones. */
export const jsonPathSpec: PluginSpec = { options: [COLUMNS, ROW_ERROR_HANDLE_WAY, ...MULTI_TABLE_OPTIONS] };

/** What happens to a row when a column has a data error. */
const enum OnError {
  Fail,
  NullColumn,
  DropRow,
}

function onError(column: ErrorHandleWay | undefined, row: string): OnError {
  const way = column ?? row;
  return way === 'SKIP'
    ? column !== undefined
      ? OnError.NullColumn
      : OnError.DropRow
    : way === 'SKIP_ROW'
      ? OnError.DropRow
      : OnError.Fail;
}

function jsonPathStage(table: CatalogTable, options: PluginOptions): TableStage {
  const configs = readColumnConfigs(NAME, options);
  const rowWay = String(options.get<string | undefined>(ROW_ERROR_HANDLE_WAY.name) ?? 'FAIL').toUpperCase();
  if (rowWay !== 'FAIL' && rowWay !== 'SKIP') {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: option 'row_error_handle_way' must be FAIL or SKIP, got '${rowWay}'`, {
      place: options.place(ROW_ERROR_HANDLE_WAY.name),
    });
  }
  const place = options.place(COLUMNS.name);
  const n = configs.length;
  const src = new Int32Array(n);
  const slot = new Int32Array(n); // which parsed document a column reads (one per distinct source field)
  const readers: JsonSource[] = [];
  const slotOfSource = new Map<number, number>();
  const paths: CompiledPath[] = [];
  const converters: JsonConverter[] = [];
  const handling: OnError[] = [];
  configs.forEach((c, i) => {
    const index = requireColumn(NAME, table, c.srcField, options, COLUMNS.name);
    const type = table.columns[index].type;
    const reader = jsonSource(type);
    if (reader === undefined) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${NAME}: columns[${i}] src_field '${c.srcField}' of table '${tableName(table)}' is ${formatType(type)}; it must be string, bytes, array, map or row`,
        { place },
      );
    }
    const converter = jsonConverter(c.destType);
    if (converter === undefined) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${NAME}: columns[${i}] dest_type ${formatType(c.destType)} cannot be read from JSON`,
        { place },
      );
    }
    try {
      paths.push(compilePath(c.path));
    } catch (e) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${NAME}: columns[${i}] path '${c.path}' is not a valid JSONPath: ${(e as Error).message}`,
        { place },
      );
    }
    src[i] = index;
    if (!slotOfSource.has(index)) {
      slotOfSource.set(index, readers.length);
      readers.push(reader);
    }
    slot[i] = slotOfSource.get(index)!;
    converters.push(converter);
    handling.push(onError(c.errorHandleWay, rowWay));
  });
  const {
    table: output,
    targets,
    width,
  } = addColumns(
    table,
    configs.map((c) => ({ name: c.destField, type: c.destType, nullable: true })),
  );
  const dst = Int32Array.from(targets);
  const inputWidth = table.columns.length;
  // Per-row scratch, reused: each source field is parsed at most once per row.
  const docs = new Array<unknown>(readers.length);
  const parseErrors = new Array<Error | undefined>(readers.length);
  const parsed = new Uint8Array(readers.length);

  return {
    output,
    map(row: Row): Row | undefined {
      const from = row.fields;
      const fields = new Array<unknown>(width);
      for (let i = 0; i < inputWidth; i++) fields[i] = from[i];
      parsed.fill(0);
      for (let i = 0; i < n; i++) {
        const value = from[src[i]];
        if (value === null || value === undefined) {
          fields[dst[i]] = null;
          continue;
        }
        const s = slot[i];
        try {
          if (parsed[s] === 0) {
            parsed[s] = 1;
            parseErrors[s] = undefined;
            try {
              docs[s] = readers[s](value);
            } catch (e) {
              parseErrors[s] = asError(e);
            }
          }
          if (parseErrors[s] !== undefined) throw parseErrors[s];
          fields[dst[i]] = converters[i](paths[i](docs[s]));
        } catch (e) {
          const h = handling[i];
          if (h === OnError.NullColumn) fields[dst[i]] = null;
          else if (h === OnError.DropRow) return undefined;
          else {
            const c = configs[i];
            throw rowValueError(
              NAME,
              table,
              c.srcField,
              value,
              `gives no ${formatType(c.destType)} for '${c.destField}' at path '${c.path}': ${(e as Error).message}`,
              e,
            );
          }
        }
      }
      return { kind: row.kind, tableId: row.tableId, fields };
    },
  };
}

/** SeaTunnel's JsonPath transform: extracts typed fields from JSON with JSONPath. */
export const jsonPathTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    "Reads JSON from string, bytes, array, map or row fields and writes the value at each column's JSONPath, converted to dest_type, into dest_field (nullable). Data errors fail the job, null the column or drop the row per column_error_handle_way / row_error_handle_way.",
  spec: jsonPathSpec,
  create: (ctx) => multiTableTransform(NAME, jsonPathSpec, ctx, jsonPathStage),
};
