import type * as grpc from '@grpc/grpc-js';
import { ErrorCode, TidewayError } from '@tideway/common';
import { callerOf, type TokenEntry } from '@tideway/rpc';

/**
 * Who makes a JobService call: the token entry its bearer token matched (the interceptor let
 * it in already), or undefined with authentication off, when every caller may do anything.
 */
export type Caller = TokenEntry | undefined;

export function callerOfCall(call: { metadata: grpc.Metadata }): Caller {
  const header = call.metadata.get('authorization')[0];
  return callerOf(typeof header === 'string' ? header : undefined);
}

/** The namespace a caller's jobs go to: its token's ('' for an admin token without one, and without tokens). */
export function namespaceOf(caller: Caller): string {
  return caller?.namespace ?? '';
}

/**
 * Whether a caller may see and act on (within its role) a job of namespace `ns`: an admin (and
 * anyone, without tokens) every job; a viewer or an operator the jobs of its own namespace.
 */
export function mayAccess(caller: Caller, ns: string): boolean {
  return !caller || caller.role === 'admin' || caller.namespace === ns;
}

const shownNamespace = (ns: string) => (ns ? `namespace ${ns}` : 'no namespace (an admin submitted it)');

/** Throws PERMISSION_DENIED naming the job, its namespace and the token's, unless mayAccess. */
export function checkAccess(caller: Caller, method: string, jobId: string, ns: string): void {
  if (mayAccess(caller, ns)) return;
  throw new TidewayError(
    ErrorCode.PERMISSION_DENIED,
    `${method} of job ${jobId} is refused: the job belongs to ${shownNamespace(ns)}, and token '${caller!.name}' is of namespace ${caller!.namespace}`,
    { jobId },
  );
}
