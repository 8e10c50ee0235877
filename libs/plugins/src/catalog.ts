import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PluginFactory, PluginType } from '@tideway/api';
import { PluginRegistry } from './plugin-registry.js';
import { packageError, packageFolders, readPluginPackage, scanPluginDirs, type PluginDeclaration, type PluginPackage } from './packages.js';

/** One plugin and how to load it (its package is imported only when a job names it). */
export interface CatalogEntry {
  readonly type: PluginType;
  /** SeaTunnel's plugin name (the factory's `name`; loading checks they are equal). */
  readonly name: string;
  /** The exported factory's name, for messages. */
  readonly factory: string;
  /** The package providing it. */
  readonly package: string;
  /** Shipped with Tideway, or found in a plugin folder. */
  readonly builtin: boolean;
  load(): Promise<PluginFactory>;
}

/** Running from the TypeScript sources (tests, tsx): built-ins load through their `source` export. */
const fromSource = import.meta.url.endsWith('.ts');
const libs = fileURLToPath(new URL('../../', import.meta.url));
/** The folder holding deploy/ and libs/: relative plugin folders are taken beside it. */
export const INSTALL_ROOT = resolve(libs, '..');
/** Where a task-group thread learns its process's plugin folders (threads inherit the environment). */
const DIRS_ENV = 'TIDEWAY_PLUGIN_DIRS';

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0];

function isFactory(v: unknown): v is PluginFactory {
  if (typeof v !== 'object' || v === null) return false;
  const f = v as Record<string, unknown>;
  return typeof f.type === 'string' && typeof f.name === 'string' && typeof f.spec === 'object' && typeof f.create === 'function';
}

/** Imports a package's entry and takes the declared factory, checking it is what package.json says. */
async function loadFactory(pkg: PluginPackage, decl: PluginDeclaration): Promise<PluginFactory> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(pkg.entry).href)) as Record<string, unknown>;
  } catch (err) {
    throw packageError(pkg, `its module ${relative(pkg.dir, pkg.entry)} does not load: ${firstLine(err)}`);
  }
  const f = mod[decl.factory];
  if (f === undefined)
    throw packageError(
      pkg,
      `it does not export ${decl.factory}, which its package.json names as the factory of its ${decl.kind} ${decl.name}`,
    );
  if (!isFactory(f))
    throw packageError(pkg, `its export ${decl.factory} is not a plugin factory (an object with type, name, spec and create)`);
  if (f.type !== decl.kind || f.name !== decl.name)
    throw packageError(
      pkg,
      `its export ${decl.factory} is the ${f.type} ${f.name}, and its package.json declares the ${decl.kind} ${decl.name}`,
    );
  return f;
}

function entriesOf(packages: readonly PluginPackage[]): CatalogEntry[] {
  return packages.flatMap((pkg) =>
    pkg.plugins.map((decl) => {
      let loading: Promise<PluginFactory> | undefined;
      return {
        type: decl.kind,
        name: decl.name,
        factory: decl.factory,
        package: pkg.name,
        builtin: pkg.builtin,
        load: () => (loading ??= loadFactory(pkg, decl)),
      };
    }),
  );
}

/** The built-in packages: every folder of libs/connectors and libs/transforms whose package.json declares plugins. */
function builtinPackages(): PluginPackage[] {
  return ['connectors', 'transforms'].flatMap((group) =>
    packageFolders(join(libs, group)).flatMap((dir) => readPluginPackage(dir, { builtin: true, fromSource }) ?? []),
  );
}

/** Every plugin Tideway ships, from its packages' declarations. */
export const PLUGIN_CATALOG: readonly CatalogEntry[] = entriesOf(builtinPackages());

let external: { dirs: string[]; entries: CatalogEntry[]; packages: PluginPackage[] } | undefined;

/**
 * Refuses a plugin folder's package whose plugin has a built-in's name, or another package's,
 * for the same kind (names match case-insensitively, as in job configs).
 */
function checkNames(packages: readonly PluginPackage[]): void {
  const owner = new Map<string, string>();
  for (const e of PLUGIN_CATALOG) owner.set(`${e.type}:${e.name.toLowerCase()}`, '');
  for (const pkg of packages) {
    for (const p of pkg.plugins) {
      const key = `${p.kind}:${p.name.toLowerCase()}`;
      const other = owner.get(key);
      if (other === '') throw packageError(pkg, `its ${p.kind} ${p.name} has the name of a built-in ${p.kind}; give it another name`);
      if (other !== undefined)
        throw packageError(
          pkg,
          `its ${p.kind} ${p.name} is also provided by plugin package ${other}; keep one of them in the plugin folders`,
        );
      owner.set(key, pkg.name);
    }
  }
}

/**
 * Uses the plugin packages of these folders (tideway.plugins.dirs; relative ones are taken beside
 * the install, and the default plugins/ may be absent). Reads every package's declaration now, so
 * a package that is malformed, built for another plugin API or reuses a plugin's name is refused
 * at start in one sentence naming it (a ConfigError); no plugin code is loaded. Task-group threads
 * started afterwards see the same folders.
 */
export function usePluginDirs(dirs: readonly string[]): PluginPackage[] {
  const absolute = dirs.map((d) => (isAbsolute(d) ? d : resolve(INSTALL_ROOT, d)));
  const defaultDir = resolve(INSTALL_ROOT, 'plugins');
  const packages = scanPluginDirs(absolute, { fromSource: false, optional: (d) => d === defaultDir });
  checkNames(packages);
  external = { dirs: absolute, entries: entriesOf(packages), packages };
  process.env[DIRS_ENV] = JSON.stringify(absolute);
  return packages;
}

function externalCatalog(): NonNullable<typeof external> {
  if (external) return external;
  const inherited = process.env[DIRS_ENV];
  if (inherited) {
    // A task-group thread: its process's folders (usePluginDirs sets `external`).
    usePluginDirs(JSON.parse(inherited) as string[]);
    return externalCatalog();
  }
  external = { dirs: [], entries: [], packages: [] };
  return external;
}

/** Every plugin this process knows: the built-ins, then those of its plugin folders. */
export function pluginCatalog(): readonly CatalogEntry[] {
  return [...PLUGIN_CATALOG, ...externalCatalog().entries];
}

/** The packages of this process's plugin folders. */
export function externalPluginPackages(): readonly PluginPackage[] {
  return externalCatalog().packages;
}

/** A registry of every plugin (`tideway describe`, docs): loads every package. */
export async function loadAllPlugins(): Promise<PluginRegistry> {
  const catalog = pluginCatalog();
  return new PluginRegistry(await Promise.all(catalog.map((e) => e.load())), catalog);
}

/** A registry of just the built-in plugins (the generated reference pages under docs/connectors). */
export async function loadBuiltinPlugins(): Promise<PluginRegistry> {
  return new PluginRegistry(await Promise.all(PLUGIN_CATALOG.map((e) => e.load())), PLUGIN_CATALOG);
}

/** A package folder read once per process (the job packages a cluster ships, unpacked by hash). */
const jobPackageCache = new Map<string, CatalogEntry[]>();

/** The catalog entries of an unpacked package (a job's, from the plugin store): loaded by its folder, so two versions load apart. */
function jobPackageEntries(dir: string): CatalogEntry[] {
  let entries = jobPackageCache.get(dir);
  if (!entries) {
    const pkg = readPluginPackage(dir, { builtin: false, fromSource: false });
    if (!pkg) throw packageError({ dir }, 'its package.json declares no plugins');
    checkNotBuiltin(pkg);
    entries = entriesOf([pkg]);
    jobPackageCache.set(dir, entries);
  }
  return entries;
}

/** Refuses a package whose plugin has a built-in's name (a stored package may not replace a built-in). */
export function checkNotBuiltin(pkg: PluginPackage): void {
  for (const p of pkg.plugins) {
    if (PLUGIN_CATALOG.some((e) => e.type === p.kind && e.name.toLowerCase() === p.name.toLowerCase()))
      throw packageError(pkg, `its ${p.kind} ${p.name} has the name of a built-in ${p.kind}; give it another name`);
  }
}

/**
 * A registry of just the plugins a job or task group names, loading only their packages: the
 * coordinator plans and a worker thread starts faster, with less memory, than with every
 * connector's dependencies (docs/decisions/0035). Names it does not know are reported against
 * the whole catalog; a package that does not load is reported in one sentence naming it.
 * `jobPackages` are the folders of the packages the job was given (the cluster's plugin store,
 * unpacked by hash): their plugins come first, so two jobs may run two versions of one plugin.
 */
export async function loadPluginsFor(
  wanted: ReadonlyArray<{ type: PluginType; name: string }>,
  jobPackages: readonly string[] = [],
): Promise<PluginRegistry> {
  const own = jobPackages.flatMap(jobPackageEntries);
  const key = (e: { type: PluginType; name: string }) => `${e.type}:${e.name.toLowerCase()}`;
  const ownKeys = new Set(own.map(key));
  const catalog = [...own, ...pluginCatalog().filter((e) => !ownKeys.has(key(e)))];
  const keys = new Set(wanted.map(key));
  const entries = catalog.filter((e) => keys.has(key(e)));
  return new PluginRegistry(await Promise.all(entries.map((e) => e.load())), catalog);
}
