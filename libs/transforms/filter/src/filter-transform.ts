import type { CatalogTable, OptionDef, PluginOptions, PluginSpec, TransformFactory } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  MULTI_TABLE_OPTIONS,
  multiTableTransform,
  optionValue,
  projectionStage,
  tableName,
  type TableStage,
} from '@tideway/transform-common';

const NAME = 'Filter';

const INCLUDE_FIELDS: OptionDef = {
  name: 'include_fields',
  type: 'list',
  description: 'Fields to keep, in this order; all others are removed. Exactly one of include_fields and exclude_fields must be set.',
  fallbackNames: ['fields'],
};
const EXCLUDE_FIELDS: OptionDef = {
  name: 'exclude_fields',
  type: 'list',
  description: 'Fields to remove; all others are kept in their order. Exactly one of include_fields and exclude_fields must be set.',
};

/** Filter's options (docs/en/transform-v2/filter.md) plus the multi-table ones. */
export const filterSpec: PluginSpec = { options: [INCLUDE_FIELDS, EXCLUDE_FIELDS, ...MULTI_TABLE_OPTIONS] };

function filterStage(table: CatalogTable, options: PluginOptions): TableStage {
  const include = optionValue<string[]>(options, INCLUDE_FIELDS);
  const exclude = optionValue<string[]>(options, EXCLUDE_FIELDS);
  if ((include.value === undefined) === (exclude.value === undefined)) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME} needs exactly one of 'include_fields' and 'exclude_fields'`, {
      place: options.place(include.value !== undefined ? exclude.name : include.name),
    });
  }
  const { value: listed, name: option } = include.value !== undefined ? include : exclude;
  const fields = listed as string[];
  const names = table.columns.map((c) => c.name);
  const unknown = fields.filter((f) => !names.includes(f));
  if (unknown.length > 0) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME}: ${unknown.map((f) => `'${f}'`).join(', ')} in option '${option}' ${unknown.length === 1 ? 'is not a column' : 'are not columns'} of table '${tableName(table)}' (columns: ${names.join(', ')})`,
      { place: options.place(option) },
    );
  }
  const repeated = fields.find((f, i) => fields.indexOf(f) !== i);
  if (repeated !== undefined) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: field '${repeated}' is listed twice in option '${option}'`, {
      place: options.place(option),
    });
  }
  let sources: number[];
  if (include.value !== undefined) {
    if (fields.length === 0) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: option '${option}' must name at least one field`, {
        place: options.place(option),
      });
    }
    sources = fields.map((f) => names.indexOf(f));
  } else {
    const dropped = new Set(fields);
    sources = names.flatMap((n, i) => (dropped.has(n) ? [] : [i]));
  }
  return projectionStage(
    table,
    sources,
    sources.map((s) => names[s]),
  );
}

/** SeaTunnel's Filter transform: keeps (`include_fields`) or removes (`exclude_fields`) columns. */
export const filterTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    'Keeps the listed fields (include_fields, in the order listed) or removes them (exclude_fields). A primary or constraint key survives when all its columns are kept.',
  spec: filterSpec,
  create: (ctx) => multiTableTransform(NAME, filterSpec, ctx, filterStage),
};
