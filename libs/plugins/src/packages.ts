/**
 * Plugin packages: a folder whose package.json declares, under `tideway`, the plugin API range it
 * was built for and the plugins it provides (name, kind, the export holding the factory). The
 * built-in connectors and transforms declare theirs the same way; nothing here imports a
 * package's code (that happens when a job names one of its plugins).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PLUGIN_API_VERSION, type PluginType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
// The two functions only: semver's index loads its ~45 files, which every task thread paid at start.
import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';

const KINDS: readonly PluginType[] = ['source', 'sink', 'transform'];

/** One plugin a package declares. */
export interface PluginDeclaration {
  readonly name: string;
  readonly kind: PluginType;
  /** The name of the module export holding the factory. */
  readonly factory: string;
}

/** A plugin package as its package.json declares it. */
export interface PluginPackage {
  /** The package's name (`name` in package.json). */
  readonly name: string;
  readonly version: string;
  /** Its folder, absolute. */
  readonly dir: string;
  /** The module a plugin's factory is imported from, absolute. */
  readonly entry: string;
  /** The plugin API range it was built for (`tideway.api`). */
  readonly api: string;
  readonly plugins: readonly PluginDeclaration[];
  /** Shipped with Tideway (libs/connectors, libs/transforms). */
  readonly builtin: boolean;
}

/** The one-sentence error about a plugin package: it names the package and its folder. */
export function packageError(pkg: { name?: string; dir: string }, reason: string): ConfigError {
  const who = pkg.name ? `plugin package ${pkg.name} (${pkg.dir})` : `plugin package ${pkg.dir}`;
  return new ConfigError(ErrorCode.PLUGIN_PACKAGE, `${who}: ${reason}`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The module file of a package's `exports['.']` (or `main`): with `fromSource`, the `source`
 * condition first (the workspace's TypeScript, as tests and tsx run it), then `import`, `node`
 * and `default`.
 */
function entryOf(manifest: Record<string, unknown>, fromSource: boolean): string | undefined {
  const conditions = fromSource ? ['source', 'import', 'node', 'default'] : ['import', 'node', 'default'];
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target;
    if (!isRecord(target)) return undefined;
    for (const c of conditions) {
      const hit = pick(target[c]);
      if (hit) return hit;
    }
    return undefined;
  };
  const exports = manifest.exports;
  if (exports !== undefined) {
    const root = isRecord(exports) && Object.keys(exports).some((k) => k.startsWith('.')) ? exports['.'] : exports;
    return pick(root);
  }
  return typeof manifest.main === 'string' ? manifest.main : 'index.js';
}

/**
 * Reads a package folder's declaration. Undefined when its package.json has no `tideway` key
 * (a library such as file-common); a ConfigError naming the package when the declaration is
 * malformed, its entry module is missing, or its API range does not take this API's version.
 */
export function readPluginPackage(dir: string, options: { builtin: boolean; fromSource: boolean }): PluginPackage | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) throw packageError({ dir }, 'has no package.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw packageError({ dir }, `package.json is not JSON (${(err as Error).message})`);
  }
  if (!isRecord(manifest)) throw packageError({ dir }, 'package.json is not an object');
  const name = typeof manifest.name === 'string' ? manifest.name : undefined;
  const decl = manifest.tideway;
  if (decl === undefined) {
    if (options.builtin) return undefined;
    throw packageError({ name, dir }, 'its package.json declares no plugins (a "tideway" key with "api" and "plugins": docs/plugins.md)');
  }
  const fail = (reason: string): never => {
    throw packageError({ name, dir }, reason);
  };
  if (!name) fail('its package.json has no "name"');
  if (!isRecord(decl)) return fail('"tideway" in its package.json must be an object with "api" and "plugins"');
  const api = decl.api;
  if (typeof api !== 'string' || validRange(api) === null)
    return fail(`"tideway.api" must be a semver range of the plugin API it was built for (this Tideway has API ${PLUGIN_API_VERSION})`);
  if (!satisfies(PLUGIN_API_VERSION, api))
    fail(
      `it was built for plugin API ${api}, and this Tideway has API ${PLUGIN_API_VERSION}; rebuild it against @tideway/api ${PLUGIN_API_VERSION}`,
    );
  if (!Array.isArray(decl.plugins) || decl.plugins.length === 0) fail('"tideway.plugins" must list at least one plugin');
  const plugins = (decl.plugins as unknown[]).map((p, i): PluginDeclaration => {
    const at = `"tideway.plugins[${i}]"`;
    if (!isRecord(p)) return fail(`${at} must be an object with name, kind and factory`);
    if (typeof p.name !== 'string' || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(p.name))
      fail(`${at}.name must be a plugin name (letters, digits, - and _)`);
    if (!KINDS.includes(p.kind as PluginType)) fail(`${at}.kind must be one of ${KINDS.join(', ')} (got ${JSON.stringify(p.kind)})`);
    if (typeof p.factory !== 'string' || p.factory === '') fail(`${at}.factory must name the export holding the factory`);
    return { name: p.name as string, kind: p.kind as PluginType, factory: p.factory as string };
  });
  const seen = new Set<string>();
  for (const p of plugins) {
    const key = `${p.kind}:${p.name.toLowerCase()}`;
    if (seen.has(key)) fail(`it declares the ${p.kind} ${p.name} twice`);
    seen.add(key);
  }
  const entry = entryOf(manifest, options.fromSource);
  if (!entry) return fail('its package.json "exports" has no "." entry Tideway can import');
  const entryPath = resolve(dir, entry);
  // A built-in that is not built yet fails only the jobs that name it (when its module is imported).
  if (!options.builtin && !existsSync(entryPath)) fail(`its entry module ${entry} does not exist (is the package built?)`);
  return {
    name: name as string,
    version: typeof manifest.version === 'string' ? manifest.version : '0.0.0',
    dir,
    entry: entryPath,
    api,
    plugins,
    builtin: options.builtin,
  };
}

/** The sub-folders of a folder, sorted (a plugin folder's packages, the built-ins' packages). */
export function packageFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules')
    .map((d) => join(dir, d.name))
    .sort();
}

/**
 * The packages of the plugin folders (tideway.plugins.dirs, made absolute). A folder that does
 * not exist is refused unless `optional` says it may be absent (the default plugins/); a packed
 * tarball in one is refused with how to unpack it.
 */
export function scanPluginDirs(
  dirs: readonly string[],
  options: { fromSource: boolean; optional?: (dir: string) => boolean },
): PluginPackage[] {
  const out: PluginPackage[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) {
      if (options.optional?.(dir)) continue;
      throw new ConfigError(ErrorCode.ENGINE_CONFIG, `tideway.plugins.dirs: the plugin folder ${dir} does not exist`);
    }
    if (!statSync(dir).isDirectory()) throw new ConfigError(ErrorCode.ENGINE_CONFIG, `tideway.plugins.dirs: ${dir} is not a folder`);
    for (const f of readdirSync(dir)) {
      if (/\.(tgz|tar\.gz)$/.test(f))
        throw packageError(
          { dir: join(dir, f) },
          `a packed plugin is not loaded from a tarball; unpack it into a folder of its own (mkdir p && tar -xzf ${f} -C p --strip-components=1)`,
        );
    }
    for (const pkgDir of packageFolders(dir)) {
      const pkg = readPluginPackage(pkgDir, { builtin: false, fromSource: options.fromSource });
      if (pkg) out.push(pkg);
    }
  }
  return out;
}

/**
 * The folder a process unpacks stored packages into when jar-storage.connector-jar-storage-path
 * is empty: its own (a coordinator and a worker of one process share it), removed when it stops.
 */
export const processPluginCache = (): string => join(tmpdir(), 'tideway-plugin-cache', String(process.pid));
