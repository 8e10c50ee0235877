import type { CatalogTable, PluginContext, Sink, SinkFactory } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { AssertSinkWriter } from './assert-writer.js';
import { checkCatalogTable } from './catalog-check.js';
import type { CompiledCheck } from './field-check.js';
import { compileFieldRules } from './field-check.js';
import { RowCountCommitter } from './row-count-committer.js';
import type { TableRules, ValueRule } from './rules.js';
import { ANY_TABLE, parseAssertRules } from './rules.js';
import { ASSERT_SINK_SPEC } from './spec.js';

export { AssertSinkWriter } from './assert-writer.js';
export type { AssertCommitInfo } from './assert-writer.js';
export { RowCountCommitter } from './row-count-committer.js';
export type { AssertAggregatedInfo } from './row-count-committer.js';
export { ASSERT_SINK_SPEC } from './spec.js';

/**
 * Builds the Assert sink: rules without tables_configs apply to every input table (SeaTunnel
 * runs one Assert per table with the same rules); with tables_configs, each table_path's rules
 * apply to that table. catalog_table_rule is checked here, against the input tables.
 */
function createAssertSink(ctx: PluginContext): Sink {
  const rules = parseAssertRules(ctx.options);
  const tables = new Map<string, CatalogTable>(ctx.inputTables.map((t) => [t.tableId, t]));
  const rulesFor = (tableId: string): TableRules | undefined => rules.tables.get(tableId) ?? rules.tables.get(ANY_TABLE);
  const checks = new Map<string, readonly CompiledCheck[]>();
  for (const t of ctx.inputTables) {
    const r = rulesFor(t.tableId);
    if (!r) continue;
    if (r.catalogRule) checkCatalogTable(t, r.catalogRule);
    if (r.fieldRules.length > 0) checks.set(t.tableId, compileFieldRules(r.fieldRules, t));
  }
  for (const [key, r] of rules.tables) {
    if (key !== ANY_TABLE && r.catalogRule && !tables.has(key)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `Assert catalog_table_rule is for table_path ${key}, which is not an input table (inputs: ${[...tables.keys()].join(', ')})`,
        { place: ctx.options.place('rules') },
      );
    }
  }
  const rowRules = new Map<string, readonly ValueRule[]>();
  for (const [key, r] of rules.tables) {
    if (r.rowRules.length === 0) continue;
    if (key === ANY_TABLE) for (const t of ctx.inputTables) rowRules.set(t.tableId, r.rowRules);
    else rowRules.set(key, r.rowRules);
  }
  return {
    createWriter: (w) => new AssertSinkWriter(w.subtaskIndex, checks, tables),
    createAggregatedCommitter: () => new RowCountCommitter(rowRules, rules.tableNames),
  };
}

/** SeaTunnel's Assert sink: fails the job when the data breaks the declared rules. */
export const assertSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'Assert',
  description:
    'Checks the data against rules and fails the job when one breaks: per-field type and value rules on every row, row-count rules (MIN_ROW/MAX_ROW) across all parallel writers at the end, catalog table rules on the input schema, per table with tables_configs.',
  spec: ASSERT_SINK_SPEC,
  create: createAssertSink,
};
