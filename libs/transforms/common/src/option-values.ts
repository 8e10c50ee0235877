import type { OptionDef, PluginOptions } from '@tideway/api';

/**
 * The value of an option under its name or one of its older names (SeaTunnel's fallback keys,
 * e.g. Filter's `fields` for `include_fields`), and the name the config used. Config validation
 * may already have folded fallbacks into the main name; this reads either way.
 */
export function optionValue<T>(options: PluginOptions, def: OptionDef): { value: T | undefined; name: string } {
  if (options.has(def.name)) return { value: options.get<T>(def.name), name: def.name };
  for (const alt of def.fallbackNames ?? []) {
    if (options.has(alt)) return { value: options.get<T>(alt) ?? (options.raw[alt] as T), name: alt };
  }
  return { value: options.get<T>(def.name) ?? undefined, name: def.name };
}

/** Whether the config set the option under its name or an older name. */
export function optionIsSet(options: PluginOptions, def: OptionDef): boolean {
  return options.has(def.name) || (def.fallbackNames ?? []).some((n) => options.has(n));
}
