import type { CatalogTable, OptionDef, PluginOptions, PluginSpec, TransformFactory } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { MULTI_TABLE_OPTIONS, multiTableTransform, projectionStage, tableName, type TableStage } from '@tideway/transform-common';

const NAME = 'FieldMapper';

const FIELD_MAPPER: OptionDef = {
  name: 'field_mapper',
  type: 'map',
  required: true,
  description: 'Input field -> output field name. The output has exactly these fields, in this order; input fields not listed are dropped.',
};

/** FieldMapper's options (docs/en/transform-v2/field-mapper.md) plus the multi-table ones. */
export const fieldMapperSpec: PluginSpec = { options: [FIELD_MAPPER, ...MULTI_TABLE_OPTIONS] };

function fieldMapperStage(table: CatalogTable, options: PluginOptions): TableStage {
  const mapping = options.get<Record<string, unknown> | undefined>(FIELD_MAPPER.name);
  const place = options.place(FIELD_MAPPER.name);
  if (mapping === undefined || mapping === null || typeof mapping !== 'object' || Array.isArray(mapping)) {
    throw new ConfigError(
      ErrorCode.CONFIG_MISSING_OPTION,
      `${NAME} needs option 'field_mapper' (an object of input field = output field)`,
      { place },
    );
  }
  const entries = Object.entries(mapping);
  if (entries.length === 0) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: option 'field_mapper' must map at least one field`, { place });
  }
  const names = table.columns.map((c) => c.name);
  const unknown = entries.map(([from]) => from).filter((from) => !names.includes(from));
  if (unknown.length > 0) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME}: ${unknown.map((f) => `'${f}'`).join(', ')} in option 'field_mapper' ${unknown.length === 1 ? 'is not a column' : 'are not columns'} of table '${tableName(table)}' (columns: ${names.join(', ')})`,
      { place },
    );
  }
  const outNames: string[] = [];
  for (const [from, to] of entries) {
    if (typeof to !== 'string' || to === '') {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${NAME}: field_mapper.${from} must be an output field name, got ${JSON.stringify(to)}`,
        { place },
      );
    }
    if (outNames.includes(to)) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: output field '${to}' appears twice in option 'field_mapper'`, { place });
    }
    outNames.push(to);
  }
  return projectionStage(
    table,
    entries.map(([from]) => names.indexOf(from)),
    outNames,
  );
}

/** SeaTunnel's FieldMapper transform: selects, reorders and renames fields. */
export const fieldMapperTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    'Outputs exactly the fields listed in field_mapper (input = output name), in that order, renamed; other fields are dropped. Keys survive, renamed, when all their columns are kept.',
  spec: fieldMapperSpec,
  create: (ctx) => multiTableTransform(NAME, fieldMapperSpec, ctx, fieldMapperStage),
};
