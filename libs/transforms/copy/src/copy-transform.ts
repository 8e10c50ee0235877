import type { CatalogTable, Column, OptionDef, PluginOptions, PluginSpec, Row, TransformFactory } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { MULTI_TABLE_OPTIONS, addColumns, multiTableTransform, requireColumn, type TableStage } from '@tideway/transform-common';
import { copyValue, needsDeepCopy } from './copy-value.js';

const NAME = 'Copy';

const FIELDS: OptionDef = {
  name: 'fields',
  type: 'map',
  description:
    'New field -> field it copies, e.g. `{ name1 = name, age1 = age }`. New fields are appended in this order; a new field named like an existing one replaces it.',
};
const SRC_FIELD: OptionDef = {
  name: 'src_field',
  type: 'string',
  description: 'Older form: the field to copy (with dest_field). Use fields instead.',
};
const DEST_FIELD: OptionDef = {
  name: 'dest_field',
  type: 'string',
  description: 'Older form: the new field (with src_field). Use fields instead.',
};

/** Copy's options (docs/en/transform-v2/copy.md, plus the older src_field/dest_field) and the multi-table ones. */
export const copySpec: PluginSpec = { options: [FIELDS, SRC_FIELD, DEST_FIELD, ...MULTI_TABLE_OPTIONS] };

/** The copies asked for, as [new field, source field] pairs in order, with the option that named them. */
function copyPairs(options: PluginOptions): { pairs: Array<[string, string]>; option: string } {
  const fields = options.get<Record<string, unknown> | undefined>(FIELDS.name);
  const src = options.get<string | undefined>(SRC_FIELD.name);
  const dest = options.get<string | undefined>(DEST_FIELD.name);
  const legacy = src !== undefined || dest !== undefined;
  if (fields !== undefined && legacy) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: set either 'fields' or 'src_field' with 'dest_field', not both`, {
      place: options.place(SRC_FIELD.name),
    });
  }
  if (legacy) {
    if (src === undefined || dest === undefined) {
      const missing = src === undefined ? SRC_FIELD.name : DEST_FIELD.name;
      throw new ConfigError(
        ErrorCode.CONFIG_MISSING_OPTION,
        `${NAME}: '${SRC_FIELD.name}' and '${DEST_FIELD.name}' go together; '${missing}' is missing`,
        { place: options.place(missing) },
      );
    }
    return { pairs: [[dest, src]], option: SRC_FIELD.name };
  }
  if (fields === undefined || fields === null || typeof fields !== 'object' || Array.isArray(fields) || Object.keys(fields).length === 0) {
    throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${NAME} needs option 'fields' (new field = source field)`, {
      place: options.place(FIELDS.name),
    });
  }
  const pairs = Object.entries(fields).map(([to, from]): [string, string] => {
    if (typeof from !== 'string' || from === '') {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${NAME}: fields.${to} must name the field to copy, got ${JSON.stringify(from)}`, {
        place: options.place(FIELDS.name),
      });
    }
    return [to, from];
  });
  return { pairs, option: FIELDS.name };
}

function copyStage(table: CatalogTable, options: PluginOptions): TableStage {
  const { pairs, option } = copyPairs(options);
  const sources = pairs.map(([, from]) => requireColumn(NAME, table, from, options, option));
  const added: Column[] = pairs.map(([to], i) => ({ ...table.columns[sources[i]], name: to }));
  const { table: output, targets, width } = addColumns(table, added);
  const inputWidth = table.columns.length;
  const src = Int32Array.from(sources);
  const dst = Int32Array.from(targets);
  const types = added.map((c) => c.type);
  const deep = types.map(needsDeepCopy);
  return {
    output,
    map(row: Row): Row {
      const from = row.fields;
      const fields = new Array<unknown>(width);
      for (let i = 0; i < inputWidth; i++) fields[i] = from[i];
      // Values come from the input row, so a copy into an existing column never reads a copied value.
      for (let i = 0; i < src.length; i++) {
        const v = from[src[i]];
        fields[dst[i]] = deep[i] ? copyValue(v, types[i]) : v;
      }
      return { kind: row.kind, tableId: row.tableId, fields };
    },
  };
}

/** SeaTunnel's Copy transform: copies fields into new fields. */
export const copyTransformFactory: TransformFactory = {
  type: 'transform',
  name: NAME,
  description:
    "Copies fields into new fields (fields { new = source }, or the older src_field/dest_field). New fields take the source column's type, nullability, default and comment; values are deep copies.",
  spec: copySpec,
  create: (ctx) => multiTableTransform(NAME, copySpec, ctx, copyStage),
};
