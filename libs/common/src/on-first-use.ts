import { createRequire } from 'node:module';

/**
 * A CommonJS package loaded when first asked for, not when the module naming it is imported:
 * for packages only some processes need (ioredis and Redlock for a Redis state store, the gRPC
 * health service and proto-loader for a server). Every `tideway` process imports the same
 * libraries, and each of these cost a process start 100-150 ms of CPU on a 2-core machine
 * (docs/decisions/0035-process-start.md). `from` is the caller's `import.meta.url`: the package
 * resolves from the caller's own dependencies.
 */
export function onFirstUse<T>(specifier: string, from: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= createRequire(from)(specifier) as T;
    return loaded;
  };
}
