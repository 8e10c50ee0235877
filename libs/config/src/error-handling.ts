import type { OptionDef, PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';

/**
 * SeaTunnel's row-level error handling (apache/seatunnel#10306, docs
 * introduction/configuration/error-handling.md; newer than the 2.3.8 oracle, which has none of
 * it): `env.error_handler` gives every stage its defaults, `env.transform_error_handler` and
 * `env.sink_error_handler` override them per stage. Tideway implements DISABLE and LOG for the
 * transform stage; what it does not implement is refused by name (docs/error-handling.md).
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
}

const SUB_OPTIONS: readonly (Omit<OptionDef, 'name'> & { sub: string })[] = [
  {
    sub: 'mode',
    type: 'enum',
    values: ['DISABLE', 'LOG', 'ROUTE'],
    description:
      'DISABLE (a row error fails the task), LOG (the row is dropped and logged) or ROUTE (to a dead-letter sink: not supported yet, refused).',
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
  { sub: 'queue_capacity', type: 'int', min: 1, description: 'ROUTE’s queue of bad rows: not supported yet, refused.' },
  {
    sub: 'queue_overflow_policy',
    type: 'enum',
    values: ['FAIL', 'DROP', 'BLOCK'],
    description: 'ROUTE’s queue policy: not supported yet, refused.',
  },
  { sub: 'sink', type: 'object', description: 'ROUTE’s dead-letter sink (`plugin_name` and its options): not supported yet, refused.' },
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

/** Reads the three keys from the validated env; refuses, naming the key, what Tideway does not do. */
export function errorHandlingOf(o: PluginOptions): ErrorHandling {
  for (const key of ERROR_HANDLER_KEYS) {
    for (const sub of ['queue_capacity', 'queue_overflow_policy', 'sink']) {
      if (o.has(`${key}.${sub}`))
        refuse(
          o,
          `${key}.${sub}`,
          'is not supported: it configures mode = ROUTE (a dead-letter sink), which Tideway does not implement yet (LOG and DISABLE are)',
        );
    }
  }
  const sinkMode = pick<ErrorHandlingMode>(o, 'sink_error_handler', 'mode');
  if (sinkMode && sinkMode.value !== 'DISABLE')
    refuse(
      o,
      sinkMode.key,
      `= ${sinkMode.value} is not supported for sinks: no Tideway sink classifies its errors as row-level yet, so a sink error always fails the task (set sink_error_handler.mode = DISABLE, or set the mode in transform_error_handler)`,
    );
  const stage = 'transform_error_handler';
  const mode = pick<ErrorHandlingMode>(o, stage, 'mode');
  if (mode?.value === 'ROUTE')
    refuse(o, mode.key, '= ROUTE (a dead-letter sink) is not supported yet: use LOG, which drops and logs the bad row');
  const get = <T>(sub: string, fallback: T): T => pick<T>(o, stage, sub)?.value ?? fallback;
  return {
    transform: {
      mode: mode?.value ?? DEFAULTS.mode,
      maxErrorRecords: get('max_error_records', DEFAULTS.maxErrorRecords),
      maxErrorRatio: get('max_error_ratio', DEFAULTS.maxErrorRatio),
      maxErrorRatioMinRecords: get('max_error_ratio_min_records', DEFAULTS.maxErrorRatioMinRecords),
      includeOriginalData: get('include_original_data', DEFAULTS.includeOriginalData),
      includeStacktrace: get('include_stacktrace', DEFAULTS.includeStacktrace),
      originalDataMaxLength: get('original_data_max_length', DEFAULTS.originalDataMaxLength),
      setBy: `env.${mode?.key ?? `${stage}.mode`}`,
    },
  };
}
