import {
  RowKind,
  Types,
  rowKindName,
  type CatalogTable,
  type OptionDef,
  type PluginOptions,
  type PluginSpec,
  type Row,
  type TransformFactory,
} from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { MULTI_TABLE_OPTIONS, addColumns, multiTableTransform, tableName, type TableStage } from '@tideway/transform-common';

const NAME = 'RowKindExtractor';

const CUSTOM_FIELD_NAME: OptionDef = {
  name: 'custom_field_name',
  type: 'string',
  default: 'row_kind',
  description: 'Name of the added field that holds the row kind.',
};
const TRANSFORM_TYPE: OptionDef = {
  name: 'transform_type',
  type: 'enum',
  values: ['SHORT', 'FULL'],
  default: 'SHORT',
  description: 'How the row kind is written: SHORT (+I, -U, +U, -D) or FULL (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE).',
};

/** RowKindExtractor's options (docs/en/transform-v2/rowkind-extractor.md) plus the multi-table ones. */
export const rowKindExtractorSpec: PluginSpec = { options: [CUSTOM_FIELD_NAME, TRANSFORM_TYPE, ...MULTI_TABLE_OPTIONS] };

const FULL_NAMES: Record<RowKind, string> = {
  '+I': rowKindName('+I'),
  '-U': rowKindName('-U'),
  '+U': rowKindName('+U'),
  '-D': rowKindName('-D'),
};

function rowKindExtractorStage(table: CatalogTable, options: PluginOptions): TableStage {
  const field = options.get<string | undefined>(CUSTOM_FIELD_NAME.name) ?? 'row_kind';
  const type = String(options.get<string | undefined>(TRANSFORM_TYPE.name) ?? 'SHORT').toUpperCase();
  if (type !== 'SHORT' && type !== 'FULL') {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: option 'transform_type' must be SHORT or FULL, got '${type}'`, {
      place: options.place(TRANSFORM_TYPE.name),
    });
  }
  if (field === '' || table.columns.some((c) => c.name === field)) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      field === ''
        ? `${NAME}: option 'custom_field_name' must not be empty`
        : `${NAME}: field '${field}' (option 'custom_field_name') already exists in table '${tableName(table)}'`,
      { place: options.place(CUSTOM_FIELD_NAME.name) },
    );
  }
  const { table: output, width } = addColumns(table, [
    { name: field, type: Types.STRING, nullable: false, defaultValue: RowKind.INSERT, comment: 'Output column of RowKind' },
  ]);
  const full = type === 'FULL';
  const inputWidth = table.columns.length;
  return {
    output,
    map(row: Row): Row {
      const from = row.fields;
      const fields = new Array<unknown>(width);
      for (let i = 0; i < inputWidth; i++) fields[i] = from[i];
      fields[inputWidth] = full ? FULL_NAMES[row.kind] : row.kind;
      return { kind: RowKind.INSERT, tableId: row.tableId, fields };
    },
  };
}

/** SeaTunnel's RowKindExtractor transform: turns a changelog into append-only rows that carry their kind. */
export const rowKindExtractorTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    "Appends a non-null string field (custom_field_name, default row_kind) holding each row's kind (SHORT: +I/-U/+U/-D, FULL: INSERT/...), and emits every row as INSERT.",
  spec: rowKindExtractorSpec,
  create: (ctx) => multiTableTransform(NAME, rowKindExtractorSpec, ctx, rowKindExtractorStage),
};
