import { newCatalogTable, Types, type CatalogTable, type Column, type OptionDef, type PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { PlainObject, PluginConfig } from './job-config.js';

/**
 * SeaTunnel's row-level error handling (apache/seatunnel#10306, docs
 * introduction/configuration/error-handling.md; newer than the 2.3.8 oracle, which has none of
 * it): `env.error_handler` gives every stage its defaults, `env.transform_error_handler` and
 * `env.sink_error_handler` override them per stage. Tideway implements DISABLE, LOG and ROUTE (a
 * dead-letter sink) for the transform stage; what it does not implement is refused by name
 * (docs/error-handling.md).
 */
export const ERROR_HANDLER_KEYS = ['error_handler', 'transform_error_handler', 'sink_error_handler'] as const;
export type ErrorHandlerKey = (typeof ERROR_HANDLER_KEYS)[number];

export type ErrorHandlingMode = 'DISABLE' | 'LOG' | 'ROUTE';

/** How one stage treats a row-level error. */
export interface ErrorHandlerConfig {
  readonly mode: ErrorHandlingMode;
  /** Bad rows allowed per vertex; 0: no limit by count. */
  readonly maxErrorRecords: number;
  /** Share of bad rows allowed per vertex, 0..1; 0: no limit by ratio. */
  readonly maxErrorRatio: number;
  /** Rows a vertex must have seen before max_error_ratio is checked. */
  readonly maxErrorRatioMinRecords: number;
  /** Whether the log line of a bad row shows the row. */
  readonly includeOriginalData: boolean;
  readonly includeStacktrace: boolean;
  /** The row as logged is cut to this many characters. */
  readonly originalDataMaxLength: number;
  /** The env key that set `mode` (for messages), e.g. `env.transform_error_handler.mode`. */
  readonly setBy: string;
  /** mode ROUTE: where the bad rows go. */
  readonly route?: DeadLetterConfig;
}

/** What to do with a batch's bad rows past `queue_capacity` (SeaTunnel's queue_overflow_policy). */
export type QueueOverflowPolicy = 'FAIL' | 'DROP' | 'BLOCK';

/**
 * mode ROUTE's dead-letter sink, as written under `<stage>.sink`: a sink plugin (any, by
 * `plugin_name`) with its own options, and the bound on one batch's bad rows held for it.
 */
export interface DeadLetterConfig {
  /** The sink block's options, `plugin_name` included, as written. */
  readonly sink: Readonly<Record<string, unknown>>;
  /** The env key of the block, e.g. `transform_error_handler.sink`, to find its lines. */
  readonly key: string;
  /** Bad rows one batch may hold for the dead-letter sink before queue_overflow_policy applies. */
  readonly queueCapacity: number;
  readonly queueOverflowPolicy: QueueOverflowPolicy;
}

const SUB_OPTIONS: readonly (Omit<OptionDef, 'name'> & { sub: string })[] = [
  {
    sub: 'mode',
    type: 'enum',
    values: ['DISABLE', 'LOG', 'ROUTE'],
    description:
      'DISABLE (a row error fails the task), LOG (the row is dropped and logged) or ROUTE (dropped, logged and written to the dead-letter sink of `sink`).',
  },
  {
    sub: 'max_error_records',
    type: 'long',
    min: 0,
    description: 'Bad rows a vertex may drop before the job fails naming the row; 0: no limit.',
  },
  {
    sub: 'max_error_ratio',
    type: 'double',
    min: 0,
    max: 1,
    description: 'Share of its rows a vertex may drop before the job fails naming the row; 0: no limit.',
  },
  {
    sub: 'max_error_ratio_min_records',
    type: 'long',
    min: 0,
    description: 'Rows a vertex must have seen before max_error_ratio is checked (default 10000).',
  },
  { sub: 'include_original_data', type: 'boolean', description: 'Whether the log line of a bad row shows the row (default false).' },
  { sub: 'include_stacktrace', type: 'boolean', description: 'Whether the log line of a bad row has the error’s stack (default false).' },
  { sub: 'original_data_max_length', type: 'int', min: 1, description: 'A logged row is cut to this many characters (default 8192).' },
  { sub: 'original_data_format', type: 'enum', values: ['TEXT'], description: 'How a bad row is shown: TEXT (SeaTunnel’s only value).' },
  {
    sub: 'queue_capacity',
    type: 'int',
    min: 1,
    description:
      'ROUTE: bad rows one batch may hold for the dead-letter sink, which the task writes before the batch goes on (default 10000).',
  },
  {
    sub: 'queue_overflow_policy',
    type: 'enum',
    values: ['FAIL', 'DROP', 'BLOCK'],
    description:
      'ROUTE, a batch with more bad rows than queue_capacity: FAIL (the job fails, the default), DROP (the excess is logged and not routed) or BLOCK (written in parts of queue_capacity).',
  },
  { sub: 'sink', type: 'object', description: 'ROUTE’s dead-letter sink: `plugin_name` and the options of that sink.' },
];

/** The env options of the three keys, for ENV_OPTIONS (docs are generated from them). */
export const ERROR_HANDLER_OPTIONS: readonly OptionDef[] = ERROR_HANDLER_KEYS.flatMap((key) =>
  SUB_OPTIONS.map(({ sub, ...def }) => ({
    ...def,
    name: `${key}.${sub}`,
    description: `${key === 'error_handler' ? 'Every stage' : key === 'transform_error_handler' ? 'Transforms' : 'Sinks'}: ${def.description}`,
  })),
);

/** The stages' error handling, as set by env: defaults, then error_handler, then the stage's own key. */
export interface ErrorHandling {
  readonly transform: ErrorHandlerConfig;
  /** Rows a sink refuses for themselves (only sinks whose writers tell them apart: SinkWriter.handleRowErrors). */
  readonly sink: ErrorHandlerConfig;
}

const DEFAULTS: Omit<ErrorHandlerConfig, 'setBy'> = {
  mode: 'DISABLE',
  maxErrorRecords: 0,
  maxErrorRatio: 0,
  maxErrorRatioMinRecords: 10_000,
  includeOriginalData: false,
  includeStacktrace: false,
  originalDataMaxLength: 8192,
};

function refuse(o: PluginOptions, option: string, why: string): never {
  const p = o.place(option);
  throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `env.${option} ${why}`, { place: { file: p.file, line: p.line } });
}

/** The value of `sub` for a stage: its own key's, else error_handler's. */
function pick<T>(o: PluginOptions, stage: ErrorHandlerKey, sub: string): { value: T; key: string } | undefined {
  for (const key of [stage, 'error_handler']) if (o.has(`${key}.${sub}`)) return { value: o.get<T>(`${key}.${sub}`), key: `${key}.${sub}` };
  return undefined;
}

/** One stage's settings: its own key's, else error_handler's, else the defaults. */
function stageOf(o: PluginOptions, stage: 'transform_error_handler' | 'sink_error_handler'): ErrorHandlerConfig {
  const mode = pick<ErrorHandlingMode>(o, stage, 'mode');
  const get = <T>(sub: string, fallback: T): T => pick<T>(o, stage, sub)?.value ?? fallback;
  let route: DeadLetterConfig | undefined;
  if (mode?.value === 'ROUTE') {
    const sink = pick<Record<string, unknown>>(o, stage, 'sink');
    if (!sink)
      refuse(
        o,
        mode.key,
        `= ROUTE needs a dead-letter sink: add \`${stage}.sink { plugin_name = ... }\` (a LocalFile folder, a Jdbc table, a Kafka topic), or use LOG`,
      );
    if (typeof sink.value.plugin_name !== 'string' || sink.value.plugin_name === '')
      refuse(o, sink.key, 'has no plugin_name: name the sink plugin that receives the bad rows (for example plugin_name = "LocalFile")');
    route = {
      sink: sink.value,
      key: sink.key,
      queueCapacity: get('queue_capacity', 10_000),
      queueOverflowPolicy: get<QueueOverflowPolicy>('queue_overflow_policy', 'FAIL'),
    };
  } else {
    for (const sub of ['queue_capacity', 'queue_overflow_policy', 'sink']) {
      const set = pick(o, stage, sub);
      // error_handler's may serve the other stage; checked below.
      if (set?.key.startsWith(stage))
        refuse(o, set.key, `configures mode = ROUTE, but the ${stage.split('_')[0]} stage's mode is ${mode?.value ?? DEFAULTS.mode}`);
    }
  }
  return {
    mode: mode?.value ?? DEFAULTS.mode,
    maxErrorRecords: get('max_error_records', DEFAULTS.maxErrorRecords),
    maxErrorRatio: get('max_error_ratio', DEFAULTS.maxErrorRatio),
    maxErrorRatioMinRecords: get('max_error_ratio_min_records', DEFAULTS.maxErrorRatioMinRecords),
    includeOriginalData: get('include_original_data', DEFAULTS.includeOriginalData),
    includeStacktrace: get('include_stacktrace', DEFAULTS.includeStacktrace),
    originalDataMaxLength: get('original_data_max_length', DEFAULTS.originalDataMaxLength),
    setBy: `env.${mode?.key ?? `${stage}.mode`}`,
    ...(route ? { route } : {}),
  };
}

/** Reads the three keys from the validated env; refuses, naming the key, what Tideway does not do. */
export function errorHandlingOf(o: PluginOptions): ErrorHandling {
  const transform = stageOf(o, 'transform_error_handler');
  const sink = stageOf(o, 'sink_error_handler');
  // One dead-letter sink per job: both stages may route to it, set once (error_handler.sink) or twice alike.
  if (transform.route && sink.route && JSON.stringify(transform.route.sink) !== JSON.stringify(sink.route.sink))
    refuse(
      o,
      sink.route.key,
      `is a second dead-letter sink (the transform stage routes to ${transform.route.key}): one per job is supported; set it once under error_handler.sink`,
    );
  if (!transform.route && !sink.route)
    for (const sub of ['queue_capacity', 'queue_overflow_policy', 'sink'])
      if (o.has(`error_handler.${sub}`)) refuse(o, `error_handler.${sub}`, "configures mode = ROUTE, but no stage's mode is ROUTE");
  return { transform, sink };
}

/** The columns of a dead-letter row (SeaTunnel's error table, its names and order). */
export const DEAD_LETTER_COLUMNS: readonly Column[] = [
  { name: 'error_stage', type: Types.STRING, nullable: false },
  { name: 'plugin_type', type: Types.STRING, nullable: false },
  { name: 'plugin_name', type: Types.STRING, nullable: false },
  { name: 'source_table_path', type: Types.STRING, nullable: true },
  { name: 'job_id', type: Types.BIGINT, nullable: false },
  { name: 'error_message', type: Types.STRING, nullable: true },
  { name: 'exception_class', type: Types.STRING, nullable: true },
  { name: 'stacktrace', type: Types.STRING, nullable: true },
  { name: 'original_data', type: Types.STRING, nullable: true },
  { name: 'occur_time', type: Types.TIMESTAMP, nullable: false },
];

/**
 * The dead-letter sink as a sink block of the job (`<stage>.sink` in env), and the one table it
 * receives. Jdbc's `error_table` (SeaTunnel's name for the error table) becomes its `table`, with
 * `generate_sink_sql` on unless written; another sink refuses `error_table`.
 */
export function deadLetterSink(
  route: DeadLetterConfig,
  config: { file: string; envLines: Readonly<Record<string, number>> },
  index: number,
): { plugin: PluginConfig; table: CatalogTable } {
  const { plugin_name: name, error_table: errorTable, ...options } = route.sink as Record<string, unknown> & { plugin_name: string };
  const prefix = `${route.key}.`;
  const optionLines: Record<string, number> = {};
  for (const [k, line] of Object.entries(config.envLines)) if (k.startsWith(prefix)) optionLines[k.slice(prefix.length)] = line;
  const line = config.envLines[`${route.key}.plugin_name`] ?? config.envLines[route.key] ?? 1;
  const place = { file: config.file, line: config.envLines[`${route.key}.error_table`] ?? line };
  let tableName = 'error_rows';
  if (errorTable !== undefined) {
    if (name.toLowerCase() !== 'jdbc')
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `env.${route.key}.error_table is Jdbc's option (the error table); a ${name} dead-letter sink takes its own options for where rows go`,
        { place },
      );
    if (typeof errorTable !== 'string' || errorTable === '')
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `env.${route.key}.error_table must name a table`, { place });
    if (options.table !== undefined)
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `env.${route.key} sets both error_table and table: keep one`, { place });
    options.table = errorTable;
    if (options.generate_sink_sql === undefined && options.query === undefined) options.generate_sink_sql = true;
    optionLines.table = place.line;
    tableName = errorTable.split('.').pop()!;
  }
  return {
    plugin: { type: 'sink', name, index, file: config.file, line, options: options as PlainObject, optionLines },
    table: newCatalogTable(
      { table: tableName },
      DEAD_LETTER_COLUMNS.map((c) => ({ ...c })),
    ),
  };
}
