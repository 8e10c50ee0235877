import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { PeerCertificate } from 'node:tls';
import type { CertificateEntry } from './cert-auth.js';

/** The roles of JobService callers, each allowed what the one before is, and more. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** One bearer token of the engine config: only its hash is stored. */
export interface TokenEntry {
  /** `sha256:<hex>` of the token. */
  readonly hash: string;
  readonly role: Role;
  /** The namespace of the jobs it submits ('' for admin tokens). */
  readonly namespace: string;
  /** A label for logs and refusals (never the token). */
  readonly name: string;
}

/**
 * The lowest role each JobService method needs. Viewers read (list, status, metrics, watch,
 * overview); operators also plan (planning connects to the job's databases), submit (restore
 * is a submit), cancel and savepoint. A method missing here needs admin.
 */
export const METHOD_ROLES: Readonly<Record<string, Role>> = {
  ListJobs: 'viewer',
  GetJob: 'viewer',
  GetJobMetrics: 'viewer',
  WatchJob: 'viewer',
  GetClusterOverview: 'viewer',
  PlanJob: 'operator',
  SubmitJob: 'operator',
  CancelJob: 'operator',
  SavepointJob: 'operator',
};

const SERVICE_PREFIX = '/tideway.v1.JobService/';

/** `sha256:<hex>` of a token, as the engine config stores it. */
export function hashToken(token: string): string {
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

/** A new random bearer token (256 bits, base64url, prefixed so that it is recognisable in a leak scan). */
export function newToken(): string {
  return `tw_${randomBytes(32).toString('base64url')}`;
}

/** The entry whose hash matches the token, compared in constant time. */
export function findToken(tokens: readonly TokenEntry[], token: string): TokenEntry | undefined {
  const h = Buffer.from(hashToken(token));
  return tokens.find((t) => {
    const b = Buffer.from(t.hash);
    return b.length === h.length && timingSafeEqual(b, h);
  });
}

/** Whether a role may do what `needed` allows. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** The token of an `authorization: Bearer <token>` header value, or undefined. */
export function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/**
 * Why a caller with this `authorization` header may not do `what` (a JobService method or a
 * REST route), which needs the role `needed`: the status and one sentence; undefined when it may.
 * Without a token, `certificate` (callerOfCertificate of the client certificate) decides.
 */
export function authorize(
  tokens: readonly TokenEntry[],
  header: string | undefined,
  what: string,
  needed: Role,
  certificate?: CertificateEntry | string,
): { code: grpc.status; http: 401 | 403; message: string } | undefined {
  const method = what;
  const token = bearerOf(header);
  if (token === undefined && typeof certificate === 'string')
    return { code: grpc.status.UNAUTHENTICATED, http: 401, message: `${method}: ${certificate}` };
  if (token === undefined && certificate === undefined) {
    const orCertificate = certificates.length ? ', or present a client certificate named in tideway.auth.certificates' : '';
    return {
      code: grpc.status.UNAUTHENTICATED,
      http: 401,
      message: `${method} needs a bearer token: pass --token or set TIDEWAY_TOKEN (tideway token create makes one)${orCertificate}`,
    };
  }
  const entry = token === undefined ? (certificate as CertificateEntry) : findToken(tokens, token);
  if (!entry)
    return { code: grpc.status.UNAUTHENTICATED, http: 401, message: `${method}: the bearer token is not one of this cluster's tokens` };
  if (!roleAllows(entry.role, needed)) {
    const who = token === undefined ? `client certificate '${entry.name}'` : `token '${entry.name}'`;
    return {
      code: grpc.status.PERMISSION_DENIED,
      http: 403,
      message: `${method} needs the role ${needed} or above: ${who} has the role ${entry.role}`,
    };
  }
  return undefined;
}

/**
 * A server interceptor that checks the bearer token of every JobService call against the
 * table before the handler runs; the other services (internal ones, protected by mutual TLS;
 * health; reflection) pass. With an empty table every call passes (authentication off).
 * `certificateOf` maps the caller's client certificate for calls without a token.
 */
export function jobServiceAuth(
  tokens: readonly TokenEntry[],
  certificateOf: (cert: PeerCertificate | undefined) => CertificateEntry | string | undefined = () => undefined,
): grpc.ServerInterceptor {
  return (method, call) => {
    if (tokens.length === 0 || !method.path.startsWith(SERVICE_PREFIX)) return new grpc.ServerInterceptingCall(call);
    const name = method.path.slice(SERVICE_PREFIX.length);
    return new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, mdNext) => {
            const header = metadata.get('authorization')[0];
            const refusal = authorize(
              tokens,
              typeof header === 'string' ? header : undefined,
              name,
              METHOD_ROLES[name] ?? 'admin',
              certificateOf(call.getAuthContext().sslPeerCertificate),
            );
            if (refusal) call.sendStatus({ code: refusal.code, details: refusal.message, metadata: new grpc.Metadata() });
            else mdNext(metadata);
          },
        });
      },
    });
  };
}

/** A client interceptor that sends `authorization: Bearer <token>` with every call. */
export function bearerInterceptor(token: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) => {
        metadata.set('authorization', `Bearer ${token}`);
        next(metadata, listener);
      },
    });
}

let table: readonly TokenEntry[] = [];
let internal: string | undefined;
let certificates: readonly CertificateEntry[] = [];

/**
 * Sets the token table every TidewayServer made afterwards checks JobService calls against
 * (empty: authentication off), and the client certificates that stand in for a token
 * (tideway.auth.certificates, cert-auth.ts). With either, a random admin token for this
 * process's own clients (the REST API, which checks its callers itself) is added: internalToken().
 */
export function configureAuth(tokens: readonly TokenEntry[], certificateTable: readonly CertificateEntry[] = []): void {
  certificates = certificateTable;
  internal = tokens.length || certificateTable.length ? newToken() : undefined;
  table = internal ? [...tokens, { hash: hashToken(internal), role: 'admin', namespace: '', name: 'this process' }] : [];
}

/** The client certificate table configureAuth set (empty: certificates authenticate nobody). */
export function authCertificates(): readonly CertificateEntry[] {
  return certificates;
}

/** The table configureAuth set (with the internal token). */
export function authTokens(): readonly TokenEntry[] {
  return table;
}

/** This process's own admin token when authentication is on, undefined otherwise. */
export function internalToken(): string | undefined {
  return internal;
}

/**
 * Parses tideway.auth.tokens: name -> `<sha256:hex> <role> [<namespace>]`. `where` names the
 * setting in errors.
 */
export function parseTokenTable(map: Readonly<Record<string, unknown>>, where: string): TokenEntry[] {
  return Object.entries(map).map(([name, value]) => {
    const parts = String(value).trim().split(/\s+/);
    const [hash, role, namespace = ''] = parts;
    if (parts.length > 3 || !hash || !/^sha256:[0-9a-f]{64}$/.test(hash) || !ROLES.includes(role as Role)) {
      throw new Error(
        `${where}.${name}: expected "<sha256:hex> <role> [<namespace>]" with a role of ${ROLES.join(', ')} (tideway token create prints one)`,
      );
    }
    if (role !== 'admin' && !namespace) throw new Error(`${where}.${name}: a ${role} token needs a namespace`);
    return { hash, role: role as Role, namespace, name };
  });
}
