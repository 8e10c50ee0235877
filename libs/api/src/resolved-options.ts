import type { PluginOptions, PluginSpec } from './options.js';

export interface OptionPlace {
  file?: string;
  line?: number;
  plugin?: string;
  option?: string;
}

/**
 * The PluginOptions that config validation produces: values keyed by option name (defaults
 * applied), the names the config set, the raw nested object and the lines of options.
 */
export class ResolvedOptions implements PluginOptions {
  constructor(
    private readonly values: ReadonlyMap<string, unknown>,
    private readonly setNames: ReadonlySet<string>,
    readonly raw: Readonly<Record<string, unknown>> = {},
    private readonly places: { file?: string; line?: number; plugin?: string; optionLines?: Readonly<Record<string, number>> } = {},
    readonly warnings: readonly string[] = [],
  ) {}

  get<T = unknown>(name: string): T {
    return this.values.get(name) as T;
  }

  has(name: string): boolean {
    return this.setNames.has(name);
  }

  /** Every option name with a value (set or defaulted). */
  names(): string[] {
    return [...this.values.keys()];
  }

  place(option?: string): OptionPlace {
    const line = (option !== undefined ? this.places.optionLines?.[option] : undefined) ?? this.places.line;
    return { file: this.places.file, line, plugin: this.places.plugin, option };
  }
}

/**
 * Options straight from a flat record, without validation: for unit tests of plugins
 * (`optionsOf({ 'row.num': 5 }, spec)`). Keys are option names; every key counts as set;
 * the spec's defaults fill the rest.
 */
export function optionsOf(values: Record<string, unknown>, spec?: PluginSpec): ResolvedOptions {
  const all = new Map<string, unknown>();
  for (const def of spec?.options ?? []) if (def.default !== undefined) all.set(def.name, def.default);
  for (const [k, v] of Object.entries(values)) all.set(k, v);
  return new ResolvedOptions(all, new Set(Object.keys(values)), values, { plugin: 'test' });
}
