/**
 * The lazy side of the plugin registry, for worker threads: load only the plugins a task group
 * runs. Importing this module loads no connector.
 */
export { PluginRegistry } from './plugin-registry.js';
export {
  PLUGIN_CATALOG,
  INSTALL_ROOT,
  externalPluginPackages,
  loadPluginsFor,
  pluginCatalog,
  usePluginDirs,
  checkNotBuiltin,
  type CatalogEntry,
} from './catalog.js';
export type { PluginDeclaration, PluginPackage } from './packages.js';
export { processPluginCache } from './packages.js';
export * from './instantiate.js';
