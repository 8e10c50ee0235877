import type { PluginOptions, PluginType } from '@tideway/api';
import { COMMON_OPTIONS } from '@tideway/api';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';

/**
 * The parts of a parsed plugin block the DAG reads. `PluginConfig` from @tideway/config has this
 * shape; declaring it here keeps the DAG independent of the parser.
 */
export interface PluginBlock {
  readonly type: PluginType;
  readonly name: string;
  readonly index: number;
  readonly file: string;
  readonly line: number;
  readonly options: Readonly<Record<string, unknown>>;
  readonly optionLines: Readonly<Record<string, number>>;
}

/** The parts of a parsed job config the DAG reads (`JobConfig` from @tideway/config fits). */
export interface JobBlocks {
  readonly file: string;
  readonly env: Readonly<Record<string, unknown>>;
  readonly envLines: Readonly<Record<string, number>>;
  readonly sources: readonly PluginBlock[];
  readonly transforms: readonly PluginBlock[];
  readonly sinks: readonly PluginBlock[];
}

/**
 * The table name SeaTunnel gives a plugin that sets no `plugin_output`, and reads when a plugin
 * sets no `plugin_input` (SeaTunnel's FactoryUtil.DEFAULT_ID).
 */
export const DEFAULT_TABLE = 'default';

/**
 * What the DAG needs to know about one plugin block: its identity and place for messages, the
 * table wiring and its own parallelism. Built from the parsed config by {@link plannedPluginOf},
 * so the DAG never needs the config parser.
 */
export interface PlannedPlugin {
  readonly type: PluginType;
  /** The plugin name as written, e.g. `FakeSource`. */
  readonly name: string;
  /** Position within its section (0-based), in file order. */
  readonly index: number;
  readonly file: string;
  /** Line of the plugin block's name. */
  readonly line: number;
  /** `plugin_output` (or `result_table_name`) when set. Sinks output nothing; theirs is unused. */
  readonly output?: string;
  /** `plugin_input` (or `source_table_name`) as written, in order; empty when not set. */
  readonly inputs: readonly string[];
  /** The plugin's own `parallelism` option when set. */
  readonly parallelism?: number;
  /** Line of the `plugin_output` option, for messages. */
  readonly outputLine?: number;
  /** Line of the `plugin_input` option, for messages. */
  readonly inputLine?: number;
}

const OUTPUT = COMMON_OPTIONS.find((o) => o.name === 'plugin_output')!;
const INPUT = COMMON_OPTIONS.find((o) => o.name === 'plugin_input')!;

/** The option's key as set in the block: its name or one of its older names. */
function keySet(raw: Readonly<Record<string, unknown>>, name: string, fallbacks: readonly string[] = []): string | undefined {
  return [name, ...fallbacks].find((k) => raw[k] !== undefined);
}

/** `plugin_input` as a list: an array, or a string holding one name or `a,b` / `[a,b]`. */
function tableList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter((v) => v !== '');
  const text = textOf(value)
    .trim()
    .replace(/^\[(.*)\]$/s, '$1');
  return text
    .split(',')
    .map((v) => v.trim().replace(/^["']|["']$/g, ''))
    .filter((v) => v !== '');
}

/**
 * Builds the DAG's view of one plugin block. With validated `options` the typed values are used;
 * without, the block's own values (accepting the older names `result_table_name` and
 * `source_table_name`, as SeaTunnel does).
 */
export function plannedPluginOf(config: PluginBlock, options?: PluginOptions): PlannedPlugin {
  const raw: Readonly<Record<string, unknown>> = options?.raw ?? config.options;
  const outputKey = keySet(raw, OUTPUT.name, OUTPUT.fallbackNames);
  const inputKey = keySet(raw, INPUT.name, INPUT.fallbackNames);
  const outputValue = options?.get<unknown>(OUTPUT.name) ?? (outputKey ? raw[outputKey] : undefined);
  const inputValue = options?.get<unknown>(INPUT.name) ?? (inputKey ? raw[inputKey] : undefined);
  const parallelismValue = options?.get<unknown>('parallelism') ?? raw['parallelism'];
  const place = { file: config.file, line: config.line, plugin: config.name };
  let parallelism: number | undefined;
  if (parallelismValue !== undefined && parallelismValue !== null) {
    parallelism = Number(parallelismValue);
    if (!Number.isInteger(parallelism) || parallelism < 1) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `parallelism must be a whole number of at least 1, not ${JSON.stringify(parallelismValue)}`,
        {
          place: { ...place, line: config.optionLines['parallelism'] ?? config.line, option: 'parallelism' },
        },
      );
    }
  }
  const output =
    outputValue === undefined || outputValue === null || textOf(outputValue).trim() === '' ? undefined : textOf(outputValue).trim();
  return {
    type: config.type,
    name: config.name,
    index: config.index,
    file: config.file,
    line: config.line,
    output,
    inputs: [...new Set(tableList(inputValue))],
    parallelism,
    outputLine: outputKey ? config.optionLines[outputKey] : undefined,
    inputLine: inputKey ? config.optionLines[inputKey] : undefined,
  };
}

/** Every plugin of a job in SeaTunnel's order: sources, transforms, sinks, each in file order. */
export function plannedPluginsOf(job: JobBlocks, optionsOf?: (config: PluginBlock) => PluginOptions): PlannedPlugin[] {
  return [...job.sources, ...job.transforms, ...job.sinks].map((c) => plannedPluginOf(c, optionsOf?.(c)));
}

/**
 * `env.parallelism` (SeaTunnel's default parallelism for sources; 1 when unset). A value that is
 * not a whole number of at least 1 is a config error naming the env line.
 */
export function envParallelism(job: Pick<JobBlocks, 'env' | 'envLines' | 'file'>): number {
  const value = job.env['parallelism'];
  if (value === undefined || value === null) return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `env parallelism must be a whole number of at least 1, not ${JSON.stringify(value)}`,
      {
        place: { file: job.file, line: job.envLines['parallelism'], option: 'parallelism' },
      },
    );
  }
  return n;
}
