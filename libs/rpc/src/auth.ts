import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { PeerCertificate } from 'node:tls';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { CertificateEntry } from './cert-auth.js';
import { TokenTable, type StoredTokenSource } from './token-table.js';

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
 * is a submit), cancel, savepoint and checkpoint, and drain workers and hand the leadership over
 * (a rolling upgrade). A method missing here needs admin.
 */
export const METHOD_ROLES: Readonly<Record<string, Role>> = {
  ListJobs: 'viewer',
  GetJob: 'viewer',
  GetJobMetrics: 'viewer',
  WatchJob: 'viewer',
  GetClusterOverview: 'viewer',
  GetJobLogs: 'viewer',
  ListPluginPackages: 'viewer',
  DescribePluginPackage: 'viewer',
  PlanJob: 'operator',
  SubmitJob: 'operator',
  CancelJob: 'operator',
  SavepointJob: 'operator',
  CheckpointJob: 'operator',
  DrainWorker: 'operator',
  UndrainWorker: 'operator',
  StepDown: 'operator',
};

/** The services whose calls need a token: the client API, and the tokens' own (admin only: not in METHOD_ROLES). */
const SERVICE_PREFIXES = ['/tideway.v1.JobService/', '/tideway.v1.TokenService/'];

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
      message: `${method} needs a bearer token (pass --token or set TIDEWAY_TOKEN; tideway token create makes one)${orCertificate}`,
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
 * Why a caller with this `authorization` header (or, without a token, this `certificate`:
 * certificateCallerOf of the call) may not do `what` now, against the process's table
 * (configureAuth), the state store's tokens brought up to date first; undefined when it may
 * (always, with authentication off).
 */
export async function authorizeCall(
  header: string | undefined,
  what: string,
  needed: Role,
  certificate?: CertificateEntry | string,
): Promise<ReturnType<typeof authorize>> {
  if (!authEnabled()) return undefined;
  const token = bearerOf(header);
  await table.refresh(token !== undefined && findToken(table.entries(), token) !== undefined);
  return authorize(table.entries(), header, what, needed, certificate);
}

/** Who makes a call: the token entry or the client certificate entry that let it in. */
export type CallerEntry = TokenEntry | CertificateEntry;

/** How a caller reads in a refusal: `token 'ci'` or `client certificate 'alice'`. */
export function describeCaller(entry: CallerEntry): string {
  return 'hash' in entry ? `token '${entry.name}'` : `client certificate '${entry.name}'`;
}

/**
 * The entry of a call's caller, once authorizeCall let it in: its bearer token's, or without a
 * token its certificate's (`certificate` as given to authorizeCall); undefined with
 * authentication off (the caller may do anything). A token gone since (revoked between the
 * check and the handler) is refused, never taken for "no authentication".
 */
export function callerOf(header: string | undefined, certificate?: CertificateEntry | string): CallerEntry | undefined {
  if (!authEnabled()) return undefined;
  const token = bearerOf(header);
  if (token === undefined && certificate !== undefined && typeof certificate !== 'string') return certificate;
  const entry = token === undefined ? undefined : findToken(table.entries(), token);
  if (!entry) throw new TidewayError(ErrorCode.PERMISSION_DENIED, "the bearer token is not one of this cluster's tokens (any more)");
  return entry;
}

/** The peer certificate and forwarded-caller header of a gRPC call, as certificateCallerOf reads them. */
export type CertificateOf = (cert: PeerCertificate | undefined, metadata: grpc.Metadata) => CertificateEntry | string | undefined;

/**
 * A server interceptor that checks the bearer token (or, without one, the client certificate:
 * `certificateOf`) of every JobService and TokenService call before the handler runs; the other
 * services (internal ones, protected by mutual TLS; health; reflection) pass. With
 * authentication off every call passes.
 */
export function jobServiceAuth(certificateOf: CertificateOf = () => undefined): grpc.ServerInterceptor {
  return (method, call) => {
    const prefix = SERVICE_PREFIXES.find((p) => method.path.startsWith(p));
    if (!authEnabled() || !prefix) return new grpc.ServerInterceptingCall(call);
    const name = method.path.slice(prefix.length);
    return new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, mdNext) => {
            const header = metadata.get('authorization')[0];
            authorizeCall(
              typeof header === 'string' ? header : undefined,
              name,
              METHOD_ROLES[name] ?? 'admin',
              certificateOf(call.getAuthContext().sslPeerCertificate, metadata),
            ).then(
              (refusal) => {
                if (refusal) call.sendStatus({ code: refusal.code, details: refusal.message, metadata: new grpc.Metadata() });
                else mdNext(metadata);
              },
              (err: unknown) =>
                call.sendStatus({
                  code: grpc.status.INTERNAL,
                  details: `${name}: ${(err as Error).message}`,
                  metadata: new grpc.Metadata(),
                }),
            );
          },
        });
      },
    });
  };
}

/**
 * A client interceptor that sends `authorization: Bearer <token>` with every call; a function
 * is asked at each call (the REST API passes on its caller's token), and none is sent when it
 * gives undefined.
 */
export function bearerInterceptor(token: string | (() => string | undefined)): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) => {
        const t = typeof token === 'string' ? token : token();
        if (t !== undefined) metadata.set('authorization', `Bearer ${t}`);
        next(metadata, listener);
      },
    });
}

let table = new TokenTable([]);
let certificates: readonly CertificateEntry[] = [];

/** Whether calls need a token or a client certificate of tideway.auth.certificates. */
function authEnabled(): boolean {
  return table.enabled || certificates.length > 0;
}

/**
 * Sets the tokens this process's JobService, TokenService and REST API check calls against,
 * and the client certificates that stand in for a token (tideway.auth.certificates,
 * cert-auth.ts); with neither, authentication is off.
 */
export function configureAuth(tokens: readonly TokenEntry[], certificateTable: readonly CertificateEntry[] = []): void {
  certificates = certificateTable;
  table = new TokenTable(tokens, certificateTable.length > 0);
}

/** The client certificate table configureAuth set (empty: certificates authenticate nobody). */
export function authCertificates(): readonly CertificateEntry[] {
  return certificates;
}

/** Accept the state store's tokens too (tideway token create --store), read as TokenTable says. */
export function useStoredTokens(source: StoredTokenSource | undefined): void {
  table.useSource(source);
}

/** This process changed the state store's tokens: the next call reads them again. */
export function storedTokensChanged(): void {
  table.invalidate();
}

/** Every token accepted now: the engine config's and the state store's as last read. */
export function authTokens(): readonly TokenEntry[] {
  return table.entries();
}

/** The engine config's tokens (configureAuth). */
export function configTokens(): readonly TokenEntry[] {
  return table.config;
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
