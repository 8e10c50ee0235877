import { posix } from 'node:path';
import type { CatalogTable, PluginOptions } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import type { NamespaceLimits } from '@tideway/config';
import type { PluginBlock } from '@tideway/dag';
import { pluginCatalog } from '@tideway/plugins/lazy';

/**
 * The options of each plugin that name a folder or file on the worker's own disk: LocalFile is
 * the only plugin that touches the local file system (libs/connectors/file-common's
 * local-file-system), its sink through `path` and its transaction folder `tmp_path`.
 */
const LOCAL_PATH_OPTIONS: Readonly<Record<string, Readonly<Partial<Record<PluginBlock['type'], readonly string[]>>>>> = {
  localfile: { source: ['path'], sink: ['path', 'tmp_path'] },
};

/** The sink path variables the LocalFile sink replaces from each upstream table (table-layout.ts). */
const TABLE_VARIABLES = /\$\{(database_name|schema_name|table_name)\}/g;

function fail(block: PluginBlock, option: string | undefined, message: string): never {
  const line = (option && block.optionLines[option]) || block.line;
  throw new ConfigError(ErrorCode.CONFIG_NOT_ALLOWED, message, { place: { file: block.file, line } });
}

/** Whether a normalised absolute path is the folder `prefix` or inside it. */
function inside(path: string, prefix: string): boolean {
  const folder = posix.normalize(prefix).replace(/\/+$/, '');
  return folder === '' || path === folder || path.startsWith(`${folder}/`);
}

/**
 * Refuses a path outside every prefix, after normalising it (`/data/team-a/../x` is `/data/x`).
 * A sink path's `${table_name}` and the like are checked again with the tables' names in, once
 * the job is planned (admitSinkTables).
 */
function checkPath(ns: string, limits: NamespaceLimits, block: PluginBlock, option: string, value: string, given: boolean): void {
  const prefixes = limits.localFilePathPrefixes;
  const shown = `${block.type} ${block.name} option ${option} '${value}'${given ? '' : ' (the default)'}`;
  const allowed = `namespace ${ns}'s allowed prefixes ${prefixes.join(', ')}`;
  if (!value.startsWith('/')) fail(block, option, `${shown} is a relative path: ${allowed} take absolute paths only`);
  // As the file system will see it (a `${...}` left unreplaced is a folder name like any other).
  const path = posix.normalize(value).replace(/\/+$/, '') || '/';
  if (!prefixes.some((p) => inside(path, p))) fail(block, option, `${shown} is outside ${allowed}`);
}

/**
 * Refuses a job of namespace `ns` that uses a plugin its limits do not allow, or a LocalFile
 * folder outside its prefixes: one sentence naming the block and the option. Runs before any
 * plugin is created (PlanRequest.admit).
 */
export function admitBlocks(
  ns: string,
  limits: NamespaceLimits | undefined,
  blocks: ReadonlyArray<{ block: PluginBlock; options: PluginOptions }>,
): void {
  if (!limits) return;
  const allowed = limits.allowedPlugins.map((p) => p.toLowerCase());
  for (const { block, options } of blocks) {
    if (allowed.length > 0 && !allowed.includes(block.name.toLowerCase())) {
      fail(
        block,
        undefined,
        `${block.type} ${block.name} is not allowed in namespace ${ns} (allowed-plugins: ${limits.allowedPlugins.join(', ')})`,
      );
    }
    if (limits.localFilePathPrefixes.length === 0) continue;
    for (const option of LOCAL_PATH_OPTIONS[block.name.toLowerCase()]?.[block.type] ?? []) {
      const value = options.get(option); // the default when not written
      if (typeof value !== 'string') continue; // the spec makes every path option a string
      checkPath(ns, limits, block, option, value, option in block.options);
    }
  }
}

/**
 * After planning: each LocalFile sink folder with its tables' names in (a table named `../x`
 * must not move the folder out of the namespace's prefixes).
 */
export function admitSinkTables(
  ns: string,
  limits: NamespaceLimits | undefined,
  sinks: ReadonlyArray<{ plugin: PluginBlock; inputTables: readonly CatalogTable[] }>,
): void {
  if (!limits || limits.localFilePathPrefixes.length === 0) return;
  for (const { plugin, inputTables } of sinks) {
    if (plugin.name.toLowerCase() !== 'localfile') continue;
    const path = plugin.options.path;
    if (typeof path !== 'string' || !path.includes('${')) continue;
    for (const t of inputTables) {
      const names: Record<string, string> = {
        database_name: t.path.database ?? '',
        schema_name: t.path.schema ?? '',
        table_name: t.path.table,
      };
      const value = path.replace(TABLE_VARIABLES, (_, name: string) => names[name] ?? '');
      checkPath(ns, limits, plugin, 'path', value, true);
    }
  }
}

/**
 * Refuses (as an engine-config error) an allowed-plugins entry that names no plugin: a typo would
 * refuse every job of the namespace. With a plugin store (`installable`), a name no package of
 * this coordinator provides may be one installed later (tideway plugins install): it is returned,
 * for a warning, instead of refused.
 */
export function checkAllowedPlugins(namespaces: Readonly<Record<string, NamespaceLimits>>, installable = false): string[] {
  const catalog = pluginCatalog();
  const known = new Set(catalog.map((p) => p.name.toLowerCase()));
  const later: string[] = [];
  for (const [ns, limits] of Object.entries(namespaces)) {
    for (const unknown of limits.allowedPlugins.filter((p) => !known.has(p.toLowerCase()))) {
      if (installable) {
        later.push(`tideway.auth.namespaces.${ns}.allowed-plugins: ${unknown}`);
        continue;
      }
      throw new ConfigError(
        ErrorCode.ENGINE_CONFIG,
        `tideway.auth.namespaces.${ns}.allowed-plugins: '${unknown}' is not a plugin (known: ${[...new Set(catalog.map((p) => p.name))].sort((a, b) => a.localeCompare(b)).join(', ')})`,
      );
    }
  }
  return later;
}
