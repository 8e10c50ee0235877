import type { OptionDef } from '@tideway/api';

/**
 * SeaTunnel's multi-table transform options (docs/en/transform-v2/transform-multi-table.md),
 * accepted by every transform here: tables whose path matches `table_match_regex` get the
 * plugin's own options, a `table_transform` entry for a table path overrides them, and any other
 * table passes through unchanged.
 */
export const MULTI_TABLE_OPTIONS: readonly OptionDef[] = [
  {
    name: 'table_match_regex',
    type: 'string',
    default: '.*',
    description:
      "Regular expression over the upstream table path (db[.schema].table); matching tables are transformed with this plugin's options. The whole path must match.",
  },
  {
    name: 'table_transform',
    type: 'object-list',
    description: "Per-table rules: each entry has `table_path` plus this plugin's options, and replaces the outer options for that table.",
  },
];

/** The key inside a `table_transform` entry that names its table. */
export const TABLE_PATH_KEY = 'table_path';
