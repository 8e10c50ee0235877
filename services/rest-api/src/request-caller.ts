import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who sent the REST request being answered: its bearer token, or without one the name of the
 * tideway.auth.certificates entry its client certificate matched (the REST API checked it).
 */
export interface RequestCaller {
  readonly token?: string;
  readonly certificate?: string;
}

/**
 * The caller of the REST request being answered, for the whole of its handling (async calls
 * included): the JobApi passes it on with each JobService call, so the coordinator applies the
 * caller's role and namespace, not the REST API's. A certificate caller goes on by its entry's
 * name, which the coordinator accepts only from a peer with its own certificate (cert-auth.ts).
 */
const current = new AsyncLocalStorage<RequestCaller | undefined>();

/** The bearer token of the REST request being answered, undefined without one. */
export function requestToken(): string | undefined {
  return current.getStore()?.token;
}

/** The certificate entry of the REST request being answered, when it came with a certificate and no token. */
export function requestCertificateCaller(): string | undefined {
  return current.getStore()?.certificate;
}

/** Runs the rest of a request's handling as its caller (undefined: authentication off). */
export function runAsCaller(caller: RequestCaller | undefined, next: () => void): void {
  current.run(caller, next);
}
