import {
  Types,
  formatType,
  type CatalogTable,
  type DataType,
  type OptionDef,
  type PluginOptions,
  type PluginSpec,
  type Row,
  type TransformFactory,
} from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  MULTI_TABLE_OPTIONS,
  addColumns,
  compileJavaRegex,
  multiTableTransform,
  requireColumn,
  tableName,
  type TableStage,
} from '@tideway/transform-common';
import { javaDoubleText, javaSplit } from './java-split.js';

const NAME = 'Split';

const SEPARATOR: OptionDef = {
  name: 'separator',
  type: 'string',
  required: true,
  description: 'Where to split: a Java regular expression, as in String.split (e.g. " ", ",", "\\\\|").',
};
const SPLIT_FIELD: OptionDef = {
  name: 'split_field',
  type: 'string',
  required: true,
  description: 'The field to split (its text form for non-string fields).',
};
const OUTPUT_FIELDS: OptionDef = {
  name: 'output_fields',
  type: 'list',
  required: true,
  description: 'Names of the string fields that receive the pieces, in order. The last one gets the unsplit rest; missing pieces are null.',
};

/** Split's options (docs/en/transform-v2/split.md) plus the multi-table ones. */
export const splitSpec: PluginSpec = { options: [SEPARATOR, SPLIT_FIELD, OUTPUT_FIELDS, ...MULTI_TABLE_OPTIONS] };

/** The value as Java's toString would print it, for the scalar types Split accepts. */
function textOf(type: DataType): ((v: unknown) => string) | undefined {
  switch (type.kind) {
    case 'string':
    case 'decimal':
    case 'date':
    case 'time':
    case 'timestamp':
    case 'timestamp_tz':
      return (v) => v as string;
    case 'boolean':
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      return (v) => String(v);
    case 'float':
    case 'double':
      return (v) => javaDoubleText(v as number);
    default:
      return undefined;
  }
}

function splitStage(table: CatalogTable, options: PluginOptions): TableStage {
  const separator = options.get<unknown>(SEPARATOR.name);
  if (typeof separator !== 'string' || separator === '') {
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${NAME} needs option 'separator' (a non-empty string)`, {
      place: options.place(SEPARATOR.name),
    });
  }
  const field = options.get<unknown>(SPLIT_FIELD.name);
  if (typeof field !== 'string') {
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${NAME} needs option 'split_field'`, {
      place: options.place(SPLIT_FIELD.name),
    });
  }
  const outputs = options.get<unknown[] | undefined>(OUTPUT_FIELDS.name);
  if (outputs === undefined || outputs.length === 0 || outputs.some((o) => typeof o !== 'string' || o === '')) {
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${NAME} needs option 'output_fields' (a list of field names)`, {
      place: options.place(OUTPUT_FIELDS.name),
    });
  }
  const names = outputs as string[];
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated !== undefined) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: field '${repeated}' is listed twice in option 'output_fields'`, {
      place: options.place(OUTPUT_FIELDS.name),
    });
  }
  const index = requireColumn(NAME, table, field, options, SPLIT_FIELD.name);
  const toText = textOf(table.columns[index].type);
  if (toText === undefined) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME}: field '${field}' of table '${tableName(table)}' is ${formatType(table.columns[index].type)}, which has no text form to split`,
      { place: options.place(SPLIT_FIELD.name) },
    );
  }
  let regex: RegExp;
  try {
    regex = compileJavaRegex(separator, 'g');
  } catch (e) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME}: option 'separator' ${JSON.stringify(separator)} is not a usable regular expression: ${(e as Error).message}`,
      {
        place: options.place(SEPARATOR.name),
      },
    );
  }
  const {
    table: output,
    targets,
    width,
  } = addColumns(
    table,
    names.map((name) => ({ name, type: Types.STRING, nullable: true })),
  );
  const dst = Int32Array.from(targets);
  const limit = names.length;
  const inputWidth = table.columns.length;
  return {
    output,
    map(row: Row): Row {
      const from = row.fields;
      const fields = new Array<unknown>(width);
      for (let i = 0; i < inputWidth; i++) fields[i] = from[i];
      const value = from[index];
      const pieces = value === null || value === undefined ? undefined : javaSplit(toText(value), regex, limit);
      for (let i = 0; i < limit; i++) fields[dst[i]] = pieces !== undefined && i < pieces.length ? pieces[i] : null;
      return { kind: row.kind, tableId: row.tableId, fields };
    },
  };
}

/** SeaTunnel's Split transform: splits one field into several string fields. */
export const splitTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    'Splits split_field by the regular expression separator into at most as many pieces as output_fields, written to those (nullable string) fields; a null value gives nulls.',
  spec: splitSpec,
  create: (ctx) => multiTableTransform(NAME, splitSpec, ctx, splitStage),
};
