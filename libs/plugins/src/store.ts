/**
 * The cluster's plugin store and package archives (`@tideway/plugins/store`): apart from the
 * lazy registry, so a task-group thread that runs no stored package never loads the tar code.
 */
export * from './package-archive.js';
export * from './plugin-store.js';
export { packageError, readPluginPackage } from './packages.js';
