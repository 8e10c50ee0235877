import { COMMON_OPTIONS, ResolvedOptions, type IgnoredOption, type OptionDef, type PluginSpec, type RetiredOption } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { PluginConfig } from './job-config.js';
import { coerceOption, showValue } from './option-coercion.js';
import { suggestName } from './suggest-name.js';

/** Types whose value is a whole object: everything written below them belongs to them. */
const CONTAINER_TYPES = new Set(['object', 'map', 'any', 'object-list']);

/** A located problem; the first one in file order is reported. */
interface Problem {
  line: number;
  /** Missing options sort after everything written: a typo is usually why one is missing. */
  late: boolean;
  error: ConfigError;
}

/**
 * Checks a plugin block against its spec and returns the typed options (defaults applied).
 * COMMON_OPTIONS are always accepted; a fallback name (result_table_name, source_table_name)
 * sets its option. A dotted option name is found through nested objects and quoted keys alike
 * (`row.num` matches `row { num = 1 }` and `"row.num" = 1`). Throws a ConfigError naming file,
 * line, plugin and option for the first problem in file order: an unknown option (with a
 * suggestion), a wrong type, a value out of range, a missing required option, then the spec's
 * own cross-option rule.
 */
export function validatePluginOptions(spec: PluginSpec, plugin: PluginConfig): ResolvedOptions {
  const defs = new Map<string, OptionDef>();
  for (const def of spec.options) defs.set(def.name, def);
  for (const def of COMMON_OPTIONS) if (!defs.has(def.name)) defs.set(def.name, def);
  return validateOptionBlock([...defs.values()], spec, { ...plugin, label: plugin.name, plugin: plugin.name });
}

/** The warning for a retired or ignored option the config set: where, why it does nothing, and (retired) what replaced it. */
function unusedWarning(r: RetiredOption | IgnoredOption, label: string, value: unknown, place: { file?: string; line?: number }): string {
  const where = place.file !== undefined ? ` (${place.file}:${place.line ?? '?'})` : '';
  const why = 'reason' in r ? r.reason : `SeaTunnel ${r.history}`;
  const instead = 'replacement' in r ? `; use ${r.replacement} instead` : '';
  return `${label} option '${r.name}'${where} is accepted but has no effect: ${why} (value ${JSON.stringify(value)} ignored)${instead}.`;
}

/** A block of options to check: a plugin block, or the env block. */
export interface OptionBlock {
  readonly file: string;
  /** Line of the block's name. */
  readonly line: number;
  /** Names the block in messages (`FakeSource`, `env`). */
  readonly label: string;
  /** The plugin name for the error's place, when the block is a plugin. */
  readonly plugin?: string;
  readonly options: Readonly<Record<string, unknown>>;
  readonly optionLines: Readonly<Record<string, number>>;
}

/** validatePluginOptions for any block of options against an explicit list of definitions. */
export function validateOptionBlock(
  defList: readonly OptionDef[],
  spec: Pick<PluginSpec, 'extraOptionPatterns' | 'validate' | 'retiredOptions' | 'ignoredOptions'>,
  plugin: OptionBlock,
): ResolvedOptions {
  const defs = new Map<string, OptionDef>(defList.map((d) => [d.name, d]));
  const place = (line: number | undefined, option?: string) => ({
    file: plugin.file,
    line: line ?? plugin.line,
    plugin: plugin.plugin,
    option,
  });
  const problems: Problem[] = [];
  const names = new Map<string, OptionDef>(); // written name (incl. fallbacks) -> def
  for (const def of defs.values()) {
    names.set(def.name, def);
    for (const f of def.fallbackNames ?? []) names.set(f, def);
  }

  const unused = new Map<string, RetiredOption | IgnoredOption>(
    [...(spec.retiredOptions ?? []), ...(spec.ignoredOptions ?? [])].map((r) => [r.name, r]),
  );
  const warnings: string[] = [];

  // Unknown options: every written leaf must belong to a declared name or an extra pattern.
  for (const leaf of leaves(plugin.options, '', names)) {
    if (covered(leaf, names) || spec.extraOptionPatterns?.some((p) => p.test(leaf))) continue;
    const old = unused.get(leaf);
    if (old) {
      warnings.push(unusedWarning(old, plugin.label, findDotted(plugin.options, leaf.split('.'))?.value, place(plugin.optionLines[leaf])));
      continue;
    }
    const suggestion = suggestName(leaf, names.keys());
    const line = plugin.optionLines[leaf] ?? plugin.line;
    const hint = suggestion ? `; did you mean '${suggestion}'?` : '';
    problems.push({
      line,
      late: false,
      error: new ConfigError(ErrorCode.CONFIG_UNKNOWN_OPTION, `${plugin.label} has no option '${leaf}'${hint}`, {
        place: place(line, leaf),
      }),
    });
  }

  // the same options written in an item of an object-list (tables_configs): the same warning
  for (const def of unused.size === 0 ? [] : defs.values()) {
    if (def.type !== 'object-list') continue;
    const items = findDotted(plugin.options, def.name.split('.'))?.value;
    if (!Array.isArray(items)) continue;
    items.forEach((item: unknown, i) => {
      if (typeof item !== 'object' || item === null) return;
      for (const [key, value] of Object.entries(item)) {
        const old = unused.get(key);
        if (old)
          warnings.push(unusedWarning(old, `${plugin.label} ${def.name} item ${i + 1}:`, value, place(plugin.optionLines[def.name])));
      }
    });
  }

  const values = new Map<string, unknown>();
  const setNames = new Set<string>();
  const optionLines: Record<string, number> = {};
  for (const def of defs.values()) {
    const found = [def.name, ...(def.fallbackNames ?? [])]
      .map((n) => ({ name: n, hit: findDotted(plugin.options, n.split('.')) }))
      .find((f) => f.hit !== undefined);
    if (!found || found.hit === undefined || found.hit.value === null) {
      if (def.required) {
        problems.push({
          line: plugin.line,
          late: true,
          error: new ConfigError(ErrorCode.CONFIG_MISSING_OPTION, `${plugin.label} needs the option '${def.name}' (${def.description})`, {
            place: place(plugin.line, def.name),
          }),
        });
      } else if (def.default !== undefined) values.set(def.name, def.default);
      continue;
    }
    const line = plugin.optionLines[found.hit.path] ?? plugin.line;
    optionLines[def.name] = line;
    const bad = (reason: string) =>
      problems.push({ line, late: false, error: new ConfigError(ErrorCode.CONFIG_BAD_VALUE, reason, { place: place(line, found.name) }) });
    const r = coerceOption(def, found.hit.value);
    if (!r.ok) {
      bad(`${plugin.label} option '${found.name}' has a wrong value: ${r.reason}`);
      continue;
    }
    if (typeof r.value === 'number' && ((def.min !== undefined && r.value < def.min) || (def.max !== undefined && r.value > def.max))) {
      bad(`${plugin.label} option '${found.name}' is ${showValue(r.value)}, outside ${rangeText(def)}`);
      continue;
    }
    values.set(def.name, r.value);
    setNames.add(def.name);
  }

  const first = problems.sort((a, b) => Number(a.late) - Number(b.late) || a.line - b.line)[0];
  if (first) throw first.error;
  const resolved = new ResolvedOptions(
    values,
    setNames,
    plugin.options,
    { file: plugin.file, line: plugin.line, plugin: plugin.plugin, optionLines },
    warnings,
  );
  const rule = spec.validate?.(resolved);
  if (rule !== undefined) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${plugin.label}: ${rule}`, { place: place(plugin.line) });
  return resolved;
}

function rangeText(def: OptionDef): string {
  if (def.min !== undefined && def.max !== undefined) return `the range ${def.min}..${def.max}`;
  return def.min !== undefined ? `the minimum ${def.min}` : `the maximum ${def.max}`;
}

/**
 * Finds a dotted option name in nested options, trying the longest key first at each level so
 * a quoted "row.num" key and `row { num }` both match.
 */
export function findDotted(obj: unknown, segments: readonly string[]): { value: unknown; path: string } | undefined {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const record = obj as Record<string, unknown>;
  for (let i = segments.length; i >= 1; i--) {
    const key = segments.slice(0, i).join('.');
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    if (i === segments.length) return { value: record[key], path: key };
    const rest = findDotted(record[key], segments.slice(i));
    if (rest) return { value: rest.value, path: `${key}.${rest.path}` };
  }
  return undefined;
}

/**
 * Dotted paths of what the block sets: objects are descended into, except where the path is a
 * declared name (its value is the whole object). An empty object is a leaf itself.
 */
function leaves(obj: Record<string, unknown>, prefix: string, names: ReadonlyMap<string, OptionDef>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    const isObject = typeof v === 'object' && v !== null && !Array.isArray(v);
    if (isObject && !names.has(path) && Object.keys(v).length > 0) out.push(...leaves(v as Record<string, unknown>, path, names));
    else out.push(path);
  }
  return out;
}

/** A leaf is known when it is a declared name, lies under a container option, or leads to a declared name. */
function covered(leaf: string, names: ReadonlyMap<string, OptionDef>): boolean {
  if (names.has(leaf)) return true;
  for (const [name, def] of names) {
    if (leaf.startsWith(`${name}.`) && CONTAINER_TYPES.has(def.type)) return true;
    if (name.startsWith(`${leaf}.`)) return true; // e.g. `row = {}` on the way to `row.num`
  }
  return false;
}
