import type { CatalogTable, OptionDef, PluginOptions, PluginSpec, Row, TransformFactory } from '@tideway/api';
import { formatType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  MULTI_TABLE_OPTIONS,
  compileJavaRegex,
  compileJavaReplacement,
  multiTableTransform,
  requireColumn,
  tableName,
  type TableStage,
} from '@tideway/transform-common';

const NAME = 'Replace';

const REPLACE_FIELD: OptionDef = {
  name: 'replace_field',
  type: 'string',
  required: true,
  description: 'The string field whose values are rewritten.',
};
const PATTERN: OptionDef = {
  name: 'pattern',
  type: 'string',
  required: true,
  description: 'Text to replace; a Java regular expression when is_regex is true.',
};
const REPLACEMENT: OptionDef = {
  name: 'replacement',
  type: 'string',
  required: true,
  description: 'Replacement text; with is_regex, `$1` / `${name}` insert groups and `\\$` is a literal $.',
};
const IS_REGEX: OptionDef = { name: 'is_regex', type: 'boolean', default: false, description: 'Whether pattern is a regular expression.' };
const REPLACE_FIRST: OptionDef = {
  name: 'replace_first',
  type: 'boolean',
  default: false,
  description: 'Replace only the first match (only with is_regex = true).',
};

/** Replace's options (docs/en/transform-v2/replace.md) plus the multi-table ones. */
export const replaceSpec: PluginSpec = { options: [REPLACE_FIELD, PATTERN, REPLACEMENT, IS_REGEX, REPLACE_FIRST, ...MULTI_TABLE_OPTIONS] };

function requiredString(options: PluginOptions, def: OptionDef): string {
  const value = options.get<unknown>(def.name);
  if (typeof value !== 'string') {
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${NAME} needs option '${def.name}' (a string)`, {
      place: options.place(def.name),
    });
  }
  return value;
}

/** The string -> string rewrite the options describe, built once. */
function compileRewrite(options: PluginOptions): (text: string) => string {
  const pattern = requiredString(options, PATTERN);
  const replacement = requiredString(options, REPLACEMENT);
  const isRegex = options.get<boolean | undefined>(IS_REGEX.name) === true;
  const first = options.get<boolean | undefined>(REPLACE_FIRST.name) === true;
  if (!isRegex) {
    if (first) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: option 'replace_first' only applies with is_regex = true`, {
        place: options.place(REPLACE_FIRST.name),
      });
    }
    const literal = () => replacement;
    return (text) => text.replaceAll(pattern, literal);
  }
  let regex: RegExp;
  try {
    regex = compileJavaRegex(pattern, first ? '' : 'g');
  } catch (e) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME}: option 'pattern' ${JSON.stringify(pattern)} is not a usable regular expression: ${(e as Error).message}`,
      {
        place: options.place(PATTERN.name),
      },
    );
  }
  let replacer: (match: string, ...rest: unknown[]) => string;
  try {
    replacer = compileJavaReplacement(replacement, regex);
  } catch (e) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME}: option 'replacement' ${JSON.stringify(replacement)}: ${(e as Error).message}`,
      { place: options.place(REPLACEMENT.name) },
    );
  }
  return (text) => text.replace(regex, replacer);
}

function replaceStage(table: CatalogTable, options: PluginOptions): TableStage {
  const field = requiredString(options, REPLACE_FIELD);
  const index = requireColumn(NAME, table, field, options, REPLACE_FIELD.name);
  const type = table.columns[index].type;
  if (type.kind !== 'string') {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME}: field '${field}' of table '${tableName(table)}' is ${formatType(type)}; replace_field must be a string field`,
      {
        place: options.place(REPLACE_FIELD.name),
      },
    );
  }
  const rewrite = compileRewrite(options);
  return {
    output: table,
    map(row: Row): Row {
      const value = row.fields[index];
      if (value === null || value === undefined) return row;
      const fields = row.fields.slice();
      fields[index] = rewrite(value as string);
      return { kind: row.kind, tableId: row.tableId, fields };
    },
  };
}

/** SeaTunnel's Replace transform: replaces text (literal or regex) in a string field. */
export const replaceTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    'Replaces every occurrence of pattern in the string field replace_field with replacement; with is_regex = true pattern is a Java regular expression and replace_first limits it to the first match. Nulls stay null.',
  spec: replaceSpec,
  create: (ctx) => multiTableTransform(NAME, replaceSpec, ctx, replaceStage),
};
