import { ConfigError, ErrorCode } from '@tideway/common';
import type { Place } from '@tideway/common';
import type { OptionDef } from './options.js';
import { ResolvedOptions } from './resolved-options.js';

/**
 * Reads one item of an object-list option such as `tables_configs` (FakeSource, LocalFile). The
 * engine validates top-level options against the spec; the items of an object-list are plain
 * nested objects as written (`row.num = 16` is `{ row: { num: 16 } }`), so the plugin checks
 * them against its item options itself, with the same rules: unknown options and wrong types
 * are errors, defaults fill the rest.
 */
export type OptionLookup = (name: string) => unknown;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Dotted option names found in a nested object; values of declared options are kept whole. */
function flatten(obj: Record<string, unknown>, declared: ReadonlySet<string>, prefix: string, out: Map<string, unknown>): void {
  for (const [k, v] of Object.entries(obj)) {
    const name = prefix + k;
    if (declared.has(name) || !isObject(v)) out.set(name, v);
    else flatten(v, declared, `${name}.`, out);
  }
}

function coerceScalar(v: unknown, type: string, bad: () => never): unknown {
  switch (type) {
    case 'int':
    case 'long': {
      if (typeof v === 'bigint') return v;
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isInteger(n)) return bad();
      return n;
    }
    case 'double': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || Number.isNaN(n)) return bad();
      return n;
    }
    case 'boolean':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      return bad();
    default:
      if (typeof v === 'object' && v !== null) return bad();
      return String(v);
  }
}

function coerce(def: OptionDef, v: unknown, place: Place): unknown {
  const bad = (): never => {
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `option '${def.name}' has value ${JSON.stringify(v)}, which is not a valid ${def.type}`,
      { place: { ...place, option: def.name } },
    );
  };
  switch (def.type) {
    case 'object':
    case 'map':
      return isObject(v) ? v : bad();
    case 'object-list':
      return Array.isArray(v) && v.every(isObject) ? v : bad();
    case 'list': {
      const items = Array.isArray(v)
        ? v
        : typeof v === 'string'
          ? v
              .replace(/^\[|\]$/g, '')
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== '')
          : [v];
      return items.map((item) => coerceScalar(item, def.elementType ?? 'string', bad));
    }
    case 'enum': {
      const text = String(v).toLowerCase();
      return def.values?.find((x) => x.toLowerCase() === text) ?? bad();
    }
    case 'int':
    case 'long':
    case 'double': {
      const n = coerceScalar(v, def.type, bad) as number;
      if ((def.min !== undefined && n < def.min) || (def.max !== undefined && n > def.max)) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `option '${def.name}' is ${String(v)}, it must be between ${def.min ?? '-∞'} and ${def.max ?? '∞'}`,
          { place: { ...place, option: def.name } },
        );
      }
      return n;
    }
    default:
      return coerceScalar(v, def.type, bad);
  }
}

/**
 * Checks one `tables_configs` item against `defs` and returns its options, defaults applied.
 * Names in `unused` (the plugin's retired and ignored options, which config validation warned
 * about) are left out, without an error.
 */
export function resolveOptionItem(
  item: Record<string, unknown>,
  defs: readonly OptionDef[],
  place: Place,
  unused: ReadonlySet<string> = new Set(),
): ResolvedOptions {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const flat = new Map<string, unknown>();
  flatten(item, new Set(byName.keys()), '', flat);
  const values = new Map<string, unknown>();
  const set = new Set<string>();
  for (const d of defs) if (d.default !== undefined) values.set(d.name, d.default);
  for (const [name, v] of flat) {
    const def = byName.get(name);
    if (!def && unused.has(name)) continue;
    if (!def)
      throw new ConfigError(ErrorCode.CONFIG_UNKNOWN_OPTION, `tables_configs item has unknown option '${name}'`, {
        place: { ...place, option: `tables_configs.${name}` },
      });
    if (v !== null && v !== undefined) {
      values.set(name, coerce(def, v, place));
      set.add(name);
    }
  }
  return new ResolvedOptions(values, set, item, { file: place.file, line: place.line, plugin: place.plugin });
}

/** resolveOptionItem as a plain lookup. */
export function resolveTableItem(item: Record<string, unknown>, defs: readonly OptionDef[], place: Place): OptionLookup {
  const options = resolveOptionItem(item, defs, place);
  return (name) => options.get(name);
}
