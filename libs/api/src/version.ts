/**
 * The version of this plugin API (the package's own version; a test keeps them equal). A plugin
 * package declares the range it was built for (`tideway.api` in its package.json) and Tideway
 * refuses one whose range this version does not satisfy.
 */
export const PLUGIN_API_VERSION = '0.1.5';
