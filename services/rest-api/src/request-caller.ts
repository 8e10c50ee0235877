import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The bearer token of the REST request being answered, for the whole of its handling (async
 * calls included): the JobApi passes it on with each JobService call, so the coordinator applies
 * the caller's role and namespace, not the REST API's.
 */
const current = new AsyncLocalStorage<string | undefined>();

/** The bearer token of the REST request being answered, undefined without one (authentication off). */
export function requestToken(): string | undefined {
  return current.getStore();
}

/** Runs the rest of a request's handling with its caller's token. */
export function runAsCaller(token: string | undefined, next: () => void): void {
  current.run(token, next);
}
