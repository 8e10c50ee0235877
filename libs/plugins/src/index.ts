/**
 * The plugin registry: every connector and transform Tideway ships, looked up by SeaTunnel's
 * plugin name (case-insensitive, as SeaTunnel matches them). Importing this module loads every
 * plugin; a worker thread that needs only a few uses `loadPluginsFor` from
 * `@tideway/plugins/lazy` instead.
 */
import { loadAllPlugins } from './catalog.js';

export { PluginRegistry } from './plugin-registry.js';
export {
  PLUGIN_CATALOG,
  INSTALL_ROOT,
  externalPluginPackages,
  loadAllPlugins,
  loadBuiltinPlugins,
  loadPluginsFor,
  pluginCatalog,
  usePluginDirs,
  type CatalogEntry,
} from './catalog.js';
export type { PluginDeclaration, PluginPackage } from './packages.js';
export * from './instantiate.js';

/** Every plugin Tideway ships, loaded. */
export const registry = await loadAllPlugins();
export * from './reference-docs.js';
