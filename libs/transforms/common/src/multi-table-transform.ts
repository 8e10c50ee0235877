import {
  formatTablePath,
  type CatalogTable,
  type PluginContext,
  type PluginOptions,
  type PluginSpec,
  type Row,
  type Transform,
} from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { TableEntryOptions } from './entry-options.js';
import { TABLE_PATH_KEY } from './table-options.js';

/** What a transform does to the rows of one table. */
export interface TableStage {
  /** The schema of the rows `map` returns. */
  readonly output: CatalogTable;
  /** Maps one row; `undefined` drops it. Must not modify `row` (it may be shared). */
  map(row: Row): Row | undefined;
}

/** Builds the stage for one input table from the options that apply to it. */
export type TableStageBuilder = (input: CatalogTable, options: PluginOptions) => TableStage;

/** Passes a table's rows through unchanged (tables no rule matches). */
function identityStage(input: CatalogTable): TableStage {
  return { output: input, map: (row) => row };
}

/** The name a table goes by in multi-table rules and messages: `db[.schema].table`. */
export function tableName(table: CatalogTable): string {
  return formatTablePath(table.path);
}

function compileTableRegex(options: PluginOptions): RegExp {
  const text = options.get<string | undefined>('table_match_regex') ?? '.*';
  try {
    // SeaTunnel matches the whole path (Java's Matcher.matches()).
    return new RegExp(`^(?:${text})$`);
  } catch (e) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `table_match_regex '${text}' is not a valid regular expression: ${(e as Error).message}`,
      {
        place: options.place('table_match_regex'),
      },
    );
  }
}

function tableEntries(pluginName: string, spec: PluginSpec, options: PluginOptions): Map<string, PluginOptions> {
  const list = options.get<unknown>('table_transform');
  const entries = new Map<string, PluginOptions>();
  if (list === undefined || list === null) return entries;
  if (!Array.isArray(list)) {
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${pluginName}: table_transform must be a list of objects`, {
      place: options.place('table_transform'),
    });
  }
  list.forEach((entry: unknown, i) => {
    const label = `${pluginName} table_transform[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${label} must be an object`, { place: options.place('table_transform') });
    }
    const path = (entry as Record<string, unknown>)[TABLE_PATH_KEY];
    if (typeof path !== 'string' || path === '') {
      throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${label} needs '${TABLE_PATH_KEY}' (db[.schema].table)`, {
        place: options.place('table_transform'),
      });
    }
    if (entries.has(path)) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${label}: table '${path}' already has a rule in table_transform`, {
        place: options.place('table_transform'),
      });
    }
    entries.set(path, new TableEntryOptions(entry as Record<string, unknown>, spec, options, `${label} (${path})`));
  });
  return entries;
}

/**
 * A transform over one or many tables, with SeaTunnel's multi-table rules: a `table_transform`
 * entry for a table's path wins, else the plugin's options apply when `table_match_regex` matches
 * the path, else the table passes through. Stages are built once; rows are dispatched by tableId.
 */
export function multiTableTransform(pluginName: string, spec: PluginSpec, ctx: PluginContext, build: TableStageBuilder): Transform {
  const options = ctx.options;
  if (ctx.inputTables.length === 0) {
    throw new ConfigError(ErrorCode.CONFIG_WIRING, `${pluginName} has no input table`, { place: options.place() });
  }
  const regex = compileTableRegex(options);
  const entries = tableEntries(pluginName, spec, options);
  const names = ctx.inputTables.map(tableName);
  for (const path of entries.keys()) {
    if (!names.includes(path)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `${pluginName}: table_transform names table '${path}', which is not an input table (inputs: ${names.join(', ')})`,
        {
          place: options.place('table_transform'),
        },
      );
    }
  }
  const stages = new Map<string, TableStage>();
  const ordered: TableStage[] = [];
  ctx.inputTables.forEach((table, i) => {
    const entry = entries.get(names[i]);
    const stage = entry !== undefined ? build(table, entry) : regex.test(names[i]) ? build(table, options) : identityStage(table);
    stages.set(table.tableId, stage);
    ordered.push(stage);
  });
  return new DispatchingTransform(pluginName, stages, ordered);
}

class DispatchingTransform implements Transform {
  constructor(
    private readonly pluginName: string,
    private readonly stages: ReadonlyMap<string, TableStage>,
    private readonly ordered: readonly TableStage[],
  ) {}

  outputTables(): CatalogTable[] {
    return this.ordered.map((s) => s.output);
  }

  transform(rows: readonly Row[]): Row[] {
    const out: Row[] = [];
    let lastId: string | undefined;
    let stage: TableStage | undefined;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.tableId !== lastId) {
        stage = this.stageFor(row.tableId);
        lastId = row.tableId;
      }
      const mapped = stage!.map(row);
      if (mapped !== undefined) out.push(mapped);
    }
    return out;
  }

  private stageFor(tableId: string): TableStage {
    const stage = this.stages.get(tableId);
    if (stage !== undefined) return stage;
    // A single-table stream: SeaTunnel's single-table transforms never look at the row's table.
    if (this.ordered.length === 1) return this.ordered[0];
    throw new TidewayError(
      ErrorCode.INTERNAL,
      `${this.pluginName} got a row of table '${tableId}', which is not one of its input tables (${[...this.stages.keys()].join(', ')})`,
    );
  }
}
