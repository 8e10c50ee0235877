/**
 * Option specs: each plugin declares its options once. The same spec validates job configs
 * (libs/config), drives `tideway describe <plugin>` and generates docs/connectors/.
 */

/** The value kinds an option may take. */
export type OptionType =
  | 'string'
  | 'int' // 32-bit integer
  | 'long' // 64-bit integer, held as number when safe (options are small in practice)
  | 'double'
  | 'boolean'
  | 'enum' // one of `values` (matched case-insensitively, returned in the spec's spelling)
  | 'list' // array of scalars (a single scalar or a "[a,b]" / "a,b" string is accepted too)
  | 'object' // a nested object (e.g. `schema`), checked by the plugin itself
  | 'object-list' // array of objects (e.g. Assert `field_rules`)
  | 'map' // object of string -> scalar
  | 'any'; // anything: the plugin checks it

export interface OptionDef {
  /** SeaTunnel's name, dotted as in its docs, e.g. `row.num`, `split.read-interval`. */
  readonly name: string;
  readonly type: OptionType;
  readonly description: string;
  readonly required?: boolean;
  readonly default?: unknown;
  /** For `enum`: the allowed values. */
  readonly values?: readonly string[];
  /** For `list`: the element type (default string). */
  readonly elementType?: 'string' | 'int' | 'long' | 'double' | 'boolean';
  /** Older names that mean the same option. */
  readonly fallbackNames?: readonly string[];
  /** Smallest allowed value for numbers. */
  readonly min?: number;
  /** Largest allowed value for numbers. */
  readonly max?: number;
}

/**
 * An option SeaTunnel once declared and then removed or renamed. SeaTunnel ignores options it
 * does not declare, so old configs still carry them (e.g. `save_mode` on file sinks): Tideway
 * accepts such an option with one warning saying what replaced it and that its value has no
 * effect. Options SeaTunnel never had stay errors.
 */
export interface RetiredOption {
  readonly name: string;
  /** What to use instead, as a user reads it (e.g. "data_save_mode and schema_save_mode"). */
  readonly replacement: string;
  /** When and where SeaTunnel dropped it, e.g. "removed in 2.3.0 (apache/seatunnel#3375)". */
  readonly history: string;
}

/**
 * An option SeaTunnel declares for another plugin that configs copy into this one's block (a
 * file sink's options in a file source block): SeaTunnel leaves it unread, so Tideway accepts it
 * with one warning saying why it has no effect. Everything else unknown stays an error.
 */
export interface IgnoredOption {
  readonly name: string;
  /** Why it does nothing here, as a user reads it (e.g. "it is a LocalFile sink option"). */
  readonly reason: string;
}

export interface PluginSpec {
  readonly options: readonly OptionDef[];
  /** Options SeaTunnel removed or renamed: accepted with a warning, their value unused. */
  readonly retiredOptions?: readonly RetiredOption[];
  /** Other plugins' options SeaTunnel lets this block carry unread: accepted with a warning, their value unused. */
  readonly ignoredOptions?: readonly IgnoredOption[];
  /**
   * Option name patterns accepted beyond `options`, as regular expressions over the dotted
   * name (e.g. FakeSource's per-type `<type>.min`). Use sparingly: they weaken typo checks.
   */
  readonly extraOptionPatterns?: readonly RegExp[];
  /** Cross-option rules: returns a sentence naming the option(s) when the combination is bad. */
  readonly validate?: (options: PluginOptions) => string | undefined;
}

/**
 * Options as validated against a spec: typed values with defaults applied. Plugins read them
 * by their SeaTunnel name. `raw` keeps the nested config object as written.
 */
export interface PluginOptions {
  /** The value of a declared option (its default when absent), or undefined. */
  get<T = unknown>(name: string): T;
  /** Whether the job config set this option (defaults do not count). */
  has(name: string): boolean;
  /** The options as written in the config (nested objects, unvalidated). */
  readonly raw: Readonly<Record<string, unknown>>;
  /** file:line of the plugin block, and of each option where known. */
  place(option?: string): { file?: string; line?: number; plugin?: string; option?: string };
  /** One sentence per retired or ignored option the config set (RetiredOption, IgnoredOption), for the planner to log once. */
  readonly warnings?: readonly string[];
}

/** Options every plugin accepts (the engine reads them): table wiring and parallelism. */
export const COMMON_OPTIONS: readonly OptionDef[] = [
  {
    name: 'plugin_output',
    type: 'string',
    description: 'Name of the table this plugin outputs, for plugin_input of later plugins.',
    fallbackNames: ['result_table_name'],
  },
  {
    name: 'plugin_input',
    type: 'list',
    description: 'Names of the tables this plugin reads (plugin_output of earlier plugins).',
    fallbackNames: ['source_table_name'],
  },
  { name: 'parallelism', type: 'int', description: 'Parallelism of this plugin; defaults to env.parallelism.', min: 1 },
];
