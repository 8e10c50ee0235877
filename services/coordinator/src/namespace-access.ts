import type * as grpc from '@grpc/grpc-js';
import type { PeerCertificate } from 'node:tls';
import { ErrorCode, TidewayError } from '@tideway/common';
import { callerOf, certificateCallerOf, describeCaller, type CallerEntry } from '@tideway/rpc';

/**
 * Who makes a JobService call: the token entry its bearer token matched, or without a token
 * the certificate entry of its client certificate (or of the REST API's caller it forwards);
 * the interceptor let it in already. Undefined with authentication off, when every caller may
 * do anything.
 */
export type Caller = CallerEntry | undefined;

export function callerOfCall(call: { metadata: grpc.Metadata; getAuthContext(): { sslPeerCertificate?: PeerCertificate } }): Caller {
  const header = call.metadata.get('authorization')[0];
  const token = typeof header === 'string' ? header : undefined;
  return callerOf(token, token ? undefined : certificateCallerOf(call.getAuthContext().sslPeerCertificate, call.metadata));
}

/** The namespace a caller's jobs go to: its token's or certificate's ('' for an admin without one, and without authentication). */
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

/** Throws PERMISSION_DENIED naming the job, its namespace and the caller's, unless mayAccess. */
export function checkAccess(caller: Caller, method: string, jobId: string, ns: string): void {
  if (mayAccess(caller, ns)) return;
  throw new TidewayError(
    ErrorCode.PERMISSION_DENIED,
    `${method} of job ${jobId} is refused: the job belongs to ${shownNamespace(ns)}, and ${describeCaller(caller!)} is of namespace ${caller!.namespace}`,
    { jobId },
  );
}
