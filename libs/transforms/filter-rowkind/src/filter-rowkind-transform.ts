import {
  parseRowKind,
  type CatalogTable,
  type OptionDef,
  type PluginOptions,
  type PluginSpec,
  type Row,
  type RowKind,
  type TransformFactory,
} from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { MULTI_TABLE_OPTIONS, multiTableTransform, type TableStage } from '@tideway/transform-common';

const NAME = 'FilterRowKind';
const KINDS = 'INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE';

const INCLUDE_KINDS: OptionDef = {
  name: 'include_kinds',
  type: 'list',
  description: `Row kinds to keep (${KINDS}); set this or exclude_kinds.`,
};
const EXCLUDE_KINDS: OptionDef = {
  name: 'exclude_kinds',
  type: 'list',
  description: `Row kinds to drop (${KINDS}); set this or include_kinds.`,
};

/** FilterRowKind's options (docs/en/transform-v2/filter-rowkind.md) plus the multi-table ones. */
export const filterRowKindSpec: PluginSpec = { options: [INCLUDE_KINDS, EXCLUDE_KINDS, ...MULTI_TABLE_OPTIONS] };

function parseKinds(options: PluginOptions, option: string, values: unknown[]): Set<RowKind> {
  const kinds = new Set<RowKind>();
  for (const v of values) {
    const kind = typeof v === 'string' ? parseRowKind(v) : undefined;
    if (kind === undefined) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${NAME}: ${JSON.stringify(v)} in option '${option}' is not a row kind (${KINDS})`,
        { place: options.place(option) },
      );
    }
    kinds.add(kind);
  }
  return kinds;
}

function filterRowKindStage(table: CatalogTable, options: PluginOptions): TableStage {
  const include = options.get<unknown[] | undefined>(INCLUDE_KINDS.name);
  const exclude = options.get<unknown[] | undefined>(EXCLUDE_KINDS.name);
  const hasInclude = include !== undefined && include.length > 0;
  const hasExclude = exclude !== undefined && exclude.length > 0;
  if (hasInclude === hasExclude) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${NAME} needs exactly one of 'include_kinds' and 'exclude_kinds', with at least one row kind`,
      {
        place: options.place(hasInclude ? EXCLUDE_KINDS.name : INCLUDE_KINDS.name),
      },
    );
  }
  const keep = hasInclude;
  const kinds = hasInclude ? parseKinds(options, INCLUDE_KINDS.name, include) : parseKinds(options, EXCLUDE_KINDS.name, exclude!);
  return {
    output: table,
    map: (row: Row) => (kinds.has(row.kind) === keep ? row : undefined),
  };
}

/** SeaTunnel's FilterRowKind transform: keeps or drops rows by their row kind. */
export const filterRowKindTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    'Keeps rows whose kind is in include_kinds, or drops rows whose kind is in exclude_kinds (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE). The schema is unchanged.',
  spec: filterRowKindSpec,
  create: (ctx) => multiTableTransform(NAME, filterRowKindSpec, ctx, filterRowKindStage),
};
