import type { PluginType } from '@tideway/api';
import type { ConfigLimits } from './hocon/limits.js';

/**
 * A job config after parsing (HOCON or JSON) and variable substitution, before validation
 * against plugin specs. Values are plain JS (string, number, boolean, null, arrays, objects);
 * objects keep nesting as written (`row.num = 1` is `{ row: { num: 1 } }`).
 */
export type PlainValue = string | number | boolean | null | PlainValue[] | { [key: string]: PlainValue };
export type PlainObject = { [key: string]: PlainValue };

export interface PluginConfig {
  readonly type: PluginType;
  /** The plugin name as written, e.g. `FakeSource`, `sql`. */
  readonly name: string;
  /** Position within its section (0-based), in file order. Repeated names stay separate. */
  readonly index: number;
  readonly file: string;
  /** Line of the plugin block's name. */
  readonly line: number;
  /** The block's options, nested as written. */
  readonly options: PlainObject;
  /**
   * Line of each option, keyed by its dotted path (`row.num`, `schema.fields.name`), for
   * error messages.
   */
  readonly optionLines: Readonly<Record<string, number>>;
}

export interface JobConfig {
  readonly file: string;
  /** The `env` block (job.mode, parallelism, checkpoint.interval, job.name, tag_filter, ...). */
  readonly env: PlainObject;
  readonly envLines: Readonly<Record<string, number>>;
  readonly sources: PluginConfig[];
  readonly transforms: PluginConfig[];
  readonly sinks: PluginConfig[];
}

export interface ParseOptions {
  /** File name for messages. */
  file?: string;
  /** `hocon` (default) or `json`; `.json` files are JSON. */
  format?: 'hocon' | 'json';
  /** `-i key=value` job variables. */
  variables?: Record<string, string>;
  /**
   * Environment variables for `${NAME}` substitutions that no job variable or config path
   * resolves. Default: `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Size and nesting limits (tideway.limits.max-config-bytes, max-config-depth; default their defaults). */
  limits?: ConfigLimits;
  /** Decrypt the options shaded by env shade.identifier (default true; false for `tideway encrypt`). */
  shade?: boolean;
}
