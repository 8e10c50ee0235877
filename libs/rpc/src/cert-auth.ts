import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { ROLES, authCertificates, type Role } from './auth.js';
import { currentTlsFiles } from './tls.js';

/**
 * One entry of tideway.auth.certificates: the callers whose client certificate (signed by the
 * cluster CA, checked by the TLS handshake) carries `kind`/`value`, with their role.
 */
export interface CertificateEntry {
  /** What of the certificate is compared: its subject CN, or one subjectAltName of that type. */
  readonly kind: CertificateField;
  readonly value: string;
  readonly role: Role;
  /** The namespace of the jobs it submits ('' for admin). */
  readonly namespace: string;
  /** The key as written in the engine config, for logs and refusals. */
  readonly name: string;
}

/** The parts of a certificate an entry can name: the subject CN, or a subjectAltName. */
export const CERTIFICATE_FIELDS = ['CN', 'DNS', 'URI', 'email', 'IP'] as const;
export type CertificateField = (typeof CERTIFICATE_FIELDS)[number];

/** The names OpenSSL (Node's `subjectaltname`) prints, for the fields an entry can name. */
const SAN_PREFIX: Readonly<Record<string, CertificateField>> = { DNS: 'DNS', URI: 'URI', email: 'email', 'IP Address': 'IP' };

/**
 * Parses tideway.auth.certificates: `<CN>` (or `CN:<cn>`, `DNS:<name>`, `URI:<uri>`,
 * `email:<address>`, `IP:<address>`) -> `<role> [<namespace>]`, the token table's shape
 * without the hash. `where` names the setting in errors.
 */
export function parseCertificateTable(map: Readonly<Record<string, unknown>>, where: string): CertificateEntry[] {
  return Object.entries(map).map(([name, value]) => {
    const { kind, value: matched } = parseKey(name, `${where}.${name}`);
    const parts = typeof value === 'string' ? value.trim().split(/\s+/) : [];
    const [role, namespace = ''] = parts;
    if (parts.length === 0 || parts.length > 2 || !ROLES.includes(role as Role)) {
      throw new Error(`${where}.${name}: expected "<role> [<namespace>]" with a role of ${ROLES.join(', ')}, e.g. "operator team-a"`);
    }
    if (role !== 'admin' && !namespace) throw new Error(`${where}.${name}: a ${role} certificate needs a namespace`);
    return { kind, value: matched, role: role as Role, namespace, name };
  });
}

function parseKey(key: string, where: string): { kind: CertificateField; value: string } {
  const m = /^([A-Za-z]+):(.*)$/.exec(key);
  if (!m) {
    if (key.trim() === '' || key !== key.trim()) throw new Error(`${where}: expected a subject CN or DNS:, URI:, email:, IP: and a name`);
    return { kind: 'CN', value: key };
  }
  const kind = CERTIFICATE_FIELDS.find((f) => f === m[1]);
  if (!kind || m[2] === '') {
    throw new Error(
      `${where}: ${kind ? 'nothing after the colon' : `'${m[1]}:' is not a certificate field`}; expected a subject CN (or CN:<cn>) or ${CERTIFICATE_FIELDS.slice(
        1,
      )
        .map((f) => `${f}:<value>`)
        .join(', ')}`,
    );
  }
  return { kind, value: m[2] };
}

/** The subject CNs and subjectAltNames of a certificate, as `kind:value` pairs. */
export function certificateNames(cert: PeerCertificate): Array<{ kind: CertificateField; value: string }> {
  const cn = cert.subject?.CN;
  const out: Array<{ kind: CertificateField; value: string }> = (Array.isArray(cn) ? cn : cn ? [cn] : []).map((value) => ({
    kind: 'CN',
    value,
  }));
  // Node prints `DNS:a, IP Address:127.0.0.1, URI:...`, quoting (JSON) a value that has a comma or quote.
  for (const m of (cert.subjectaltname ?? '').matchAll(/(?:^|, )([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)/g)) {
    const kind = SAN_PREFIX[m[1]];
    if (kind) out.push({ kind, value: m[2].startsWith('"') ? (JSON.parse(m[2]) as string) : m[2] });
  }
  return out;
}

/** How a certificate reads in a refusal: its CN, or its first subjectAltName. */
function describe(cert: PeerCertificate): string {
  const [first] = certificateNames(cert);
  return first ? `${first.kind}=${first.value}` : `with serial ${cert.serialNumber}`;
}

/**
 * The entry a client certificate maps to, or why it maps to none (a sentence to follow the
 * call's name): not in the table, or in it under entries that disagree about role or namespace.
 */
export function certificateCaller(entries: readonly CertificateEntry[], cert: PeerCertificate): CertificateEntry | string {
  const names = certificateNames(cert);
  const matches = entries.filter((e) => names.some((n) => n.kind === e.kind && n.value === e.value));
  if (matches.length === 0)
    return `the client certificate ${describe(cert)} is not in tideway.auth.certificates, and no bearer token was sent`;
  const [first, ...rest] = matches;
  if (rest.some((e) => e.role !== first.role || e.namespace !== first.namespace)) {
    return `the client certificate ${describe(cert)} matches tideway.auth.certificates entries with different roles or namespaces (${matches.map((e) => `'${e.name}'`).join(', ')})`;
  }
  return first;
}

/**
 * Who a client certificate (signed by the cluster CA, as the TLS handshake checked) is under
 * the table configureAuth set: its entry, a refusal sentence, or undefined when the call came
 * without a certificate or no certificates are configured (then only tokens count).
 */
export function callerOfCertificate(cert: PeerCertificate | undefined): CertificateEntry | string | undefined {
  const entries = authCertificates();
  return cert && entries.length > 0 ? certificateCaller(entries, cert) : undefined;
}

/**
 * The metadata key with which the REST API passes on the certificate caller it authenticated
 * (the name of its tideway.auth.certificates entry, URI-encoded) to JobService.
 */
export const FORWARDED_CERTIFICATE_HEADER = 'x-tideway-certificate-caller';

/** SHA-256 fingerprint of this process's own certificate (tideway.tls), as Node prints a peer's. */
function ownFingerprint(): string | undefined {
  const files = currentTlsFiles();
  if (!files) return undefined;
  try {
    return new X509Certificate(readFileSync(files.certFile)).fingerprint256;
  } catch {
    return undefined;
  }
}

/**
 * Who the client certificate of a JobService call is, as callerOfCertificate; but a call that
 * names a forwarded certificate caller (FORWARDED_CERTIFICATE_HEADER, sent by a coordinator's
 * REST API for a caller it authenticated by certificate) is that entry of this process's own
 * table, and only when the call's peer presented this coordinator's own certificate (the
 * handshake proved it holds the key): a client's certificate can name nobody else.
 */
export function certificateCallerOf(cert: PeerCertificate | undefined, metadata: grpc.Metadata): CertificateEntry | string | undefined {
  const forwarded = metadata.get(FORWARDED_CERTIFICATE_HEADER)[0];
  if (forwarded === undefined) return callerOfCertificate(cert);
  const own = ownFingerprint();
  if (!cert || own === undefined || cert.fingerprint256 !== own) {
    return `a forwarded certificate caller (${FORWARDED_CERTIFICATE_HEADER}) is accepted only from a process with this coordinator's own certificate (its REST API), not from ${cert ? describe(cert) : 'a caller without a certificate'}`;
  }
  let name: string;
  try {
    name = decodeURIComponent(String(forwarded));
  } catch {
    return `the forwarded certificate caller (${FORWARDED_CERTIFICATE_HEADER}) is not URI-encoded`;
  }
  const entry = authCertificates().find((e) => e.name === name);
  return entry ?? `the forwarded certificate caller '${name}' is not an entry of this coordinator's tideway.auth.certificates`;
}

/**
 * A client interceptor that names the certificate caller `caller()` gives (the REST API's
 * caller, by its tideway.auth.certificates entry) with every call; nothing when undefined.
 */
export function forwardedCertificateInterceptor(caller: () => string | undefined): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) => {
        const name = caller();
        if (name !== undefined) metadata.set(FORWARDED_CERTIFICATE_HEADER, encodeURIComponent(name));
        next(metadata, listener);
      },
    });
}
