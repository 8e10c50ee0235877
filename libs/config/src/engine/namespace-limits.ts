/** What the jobs of one namespace may touch (tideway.auth.namespaces.<name>); an empty list: no limit of that kind. */
export interface NamespaceLimits {
  readonly allowedPlugins: readonly string[];
  readonly localFilePathPrefixes: readonly string[];
  /** Jobs that may hold slots at once; 0 or absent: no limit. */
  readonly maxRunningJobs?: number;
  /** Slots its jobs may hold at once; 0 or absent: no limit. */
  readonly maxSlots?: number;
}

/** Namespace names, as `tideway token create --namespace` accepts them. */
export const NAMESPACE_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * Refuses a namespace name tokens could not carry and a path prefix that is not absolute or
 * that `..` would move (the limits compare normalised absolute paths).
 */
export function checkNamespaceLimits(namespaces: Readonly<Record<string, NamespaceLimits>>, fail: (message: string) => never): void {
  for (const [name, limits] of Object.entries(namespaces)) {
    const where = `tideway.auth.namespaces.${name}`;
    if (!NAMESPACE_NAME.test(name)) fail(`${where}: a namespace name has letters, digits, '.', '_' and '-' only`);
    for (const prefix of limits.localFilePathPrefixes) {
      if (!prefix.startsWith('/') || prefix.split('/').some((s) => s === '..' || s === '.'))
        fail(`${where}.local-file-path-prefixes: '${prefix}' is not an absolute folder without '.' or '..' segments (e.g. /data/${name}/)`);
    }
  }
}
