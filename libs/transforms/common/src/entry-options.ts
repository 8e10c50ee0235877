import type { OptionDef, PluginOptions, PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { TABLE_PATH_KEY } from './table-options.js';

type Place = ReturnType<PluginOptions['place']>;

/**
 * The options of one `table_transform` entry, read against the plugin's spec the way config
 * validation reads the plugin block: older names folded into the main name, values coerced to
 * their declared type, defaults applied, unknown and missing options refused. The entry alone
 * configures its table (SeaTunnel does not merge the outer options into it).
 */
export class TableEntryOptions implements PluginOptions {
  private readonly values = new Map<string, unknown>();
  private readonly setNames = new Set<string>();

  constructor(
    readonly raw: Readonly<Record<string, unknown>>,
    spec: PluginSpec,
    private readonly parent: PluginOptions,
    /** Describes the entry in messages, e.g. `table_transform[1] (test.xyz)`. */
    private readonly label: string,
  ) {
    const byName = new Map<string, OptionDef>();
    for (const def of spec.options) {
      byName.set(def.name, def);
      for (const alt of def.fallbackNames ?? []) byName.set(alt, def);
    }
    for (const [key, value] of Object.entries(raw)) {
      if (key === TABLE_PATH_KEY) continue;
      const def = byName.get(key);
      if (def === undefined) {
        if (spec.extraOptionPatterns?.some((p) => p.test(key))) {
          this.values.set(key, value);
          this.setNames.add(key);
          continue;
        }
        throw new ConfigError(ErrorCode.CONFIG_UNKNOWN_OPTION, `${label} has unknown option '${key}'`, { place: this.place(key) });
      }
      this.values.set(def.name, coerceOption(def, value, label, this.place(def.name)));
      this.setNames.add(def.name);
    }
    for (const def of spec.options) {
      if (this.values.has(def.name)) continue;
      if (def.default !== undefined) this.values.set(def.name, def.default);
      else if (def.required) {
        throw new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${label} misses required option '${def.name}'`, {
          place: this.place(def.name),
        });
      }
    }
    const problem = spec.validate?.(this);
    if (problem !== undefined) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${label}: ${problem}`, { place: this.place() });
  }

  get<T = unknown>(name: string): T {
    return this.values.get(name) as T;
  }

  has(name: string): boolean {
    return this.setNames.has(name);
  }

  /** Entries have no lines of their own: the place is the `table_transform` option, named by entry. */
  place(option?: string): Place {
    const outer = this.parent.place('table_transform');
    return { ...outer, option: option === undefined ? 'table_transform' : `table_transform.${option}` };
  }
}

function bad(def: OptionDef, value: unknown, label: string, place: Place, expected: string): ConfigError {
  return new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${label}: option '${def.name}' must be ${expected}, got ${JSON.stringify(value)}`, {
    place,
  });
}

function coerceScalar(def: OptionDef, kind: string, value: unknown, label: string, place: Place): unknown {
  switch (kind) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw bad(def, value, label, place, 'a string');
    case 'int':
    case 'long':
    case 'double': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (Number.isNaN(n) || (kind !== 'double' && !Number.isInteger(n)))
        throw bad(def, value, label, place, kind === 'double' ? 'a number' : 'an integer');
      if ((def.min !== undefined && n < def.min) || (def.max !== undefined && n > def.max))
        throw bad(def, value, label, place, `within [${def.min ?? ''}, ${def.max ?? ''}]`);
      return n;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      throw bad(def, value, label, place, 'true or false');
    default:
      return value;
  }
}

/** Coerces one option value to its declared type (the same leniency as config validation). */
export function coerceOption(def: OptionDef, value: unknown, label: string, place: Place): unknown {
  switch (def.type) {
    case 'enum': {
      const text = String(value);
      const hit = def.values?.find((v) => v.toUpperCase() === text.toUpperCase());
      if (hit === undefined) throw bad(def, value, label, place, `one of ${(def.values ?? []).join(', ')}`);
      return hit;
    }
    case 'list': {
      let items: unknown[];
      if (Array.isArray(value)) items = value;
      else if (typeof value === 'string') {
        const inner = value.trim().replace(/^\[(.*)\]$/s, '$1');
        items = inner === '' ? [] : inner.split(',').map((s) => s.trim().replace(/^(["'])(.*)\1$/s, '$2'));
      } else items = [value];
      return items.map((item) => coerceScalar(def, def.elementType ?? 'string', item, label, place));
    }
    case 'object':
    case 'map':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(def, value, label, place, 'an object');
      return value;
    case 'object-list':
      if (!Array.isArray(value) || value.some((v) => v === null || typeof v !== 'object' || Array.isArray(v)))
        throw bad(def, value, label, place, 'a list of objects');
      return value;
    case 'any':
      return value;
    default:
      return coerceScalar(def, def.type, value, label, place);
  }
}
