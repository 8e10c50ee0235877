/**
 * The plugin registry: every connector and transform Tideway ships, and those of the plugin
 * folders, looked up by SeaTunnel's plugin name (case-insensitive, as SeaTunnel matches them).
 * Importing this module loads every plugin; a worker thread that needs only a few uses
 * `loadPluginsFor` from `@tideway/plugins/lazy` instead.
 */
import { loadAllPlugins } from './catalog.js';

export * from './lazy.js';
export { loadAllPlugins, loadBuiltinPlugins } from './catalog.js';

/** Every plugin this process knows (built-ins and its plugin folders' at import), loaded. */
export const registry = await loadAllPlugins();
export * from './reference-docs.js';
