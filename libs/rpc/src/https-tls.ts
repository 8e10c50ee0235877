import { readFileSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { currentTlsFiles } from './tls.js';

/** The key and certificate of the HTTP ports (REST API, metrics) when mutual TLS is configured. */
export interface HttpsMaterial {
  readonly key: Buffer;
  readonly cert: Buffer;
  /** The cluster CA, when the server asks callers for a client certificate (tideway.auth.certificates). */
  readonly ca?: Buffer;
}

/** How often the files are compared with what the server uses, as the gRPC ports do. */
const REFRESH_MS = 5000;

/**
 * The HTTPS key and certificate for this process's HTTP ports, from the tideway.tls files:
 * server TLS (browsers, curl and Prometheus are no cluster members), undefined for plaintext.
 * With `clientCa`, the CA too, for a server that asks for (and does not require) a client
 * certificate: httpsOptions.
 */
export function httpsMaterial(clientCa = false): HttpsMaterial | undefined {
  const files = currentTlsFiles();
  if (!files) return undefined;
  const material = { key: readFileSync(files.keyFile), cert: readFileSync(files.certFile) };
  return clientCa ? { ...material, ca: readFileSync(files.caFile) } : material;
}

/**
 * node:https options for the material: with a CA, a client certificate is requested but not
 * required (browsers without one go on to the token path); the handshake does not refuse a
 * certificate of another CA either, so that the request can be answered with a sentence:
 * clientCertificateOf in the server then sees `authorized` false.
 */
export function httpsOptions(m: HttpsMaterial): {
  key: Buffer;
  cert: Buffer;
  ca?: Buffer;
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
} {
  return m.ca ? { key: m.key, cert: m.cert, ca: m.ca, requestCert: true, rejectUnauthorized: false } : { key: m.key, cert: m.cert };
}

/**
 * Re-reads the files every few seconds and gives the server a new secure context when they
 * changed: a renewed certificate is served without a restart. The timer does not hold the
 * process open and stops when the server closes.
 */
export function reloadHttpsOnChange(server: HttpsServer, initial: HttpsMaterial): void {
  let current = initial;
  const timer = setInterval(() => {
    let next: HttpsMaterial | undefined;
    try {
      next = httpsMaterial(current.ca !== undefined);
    } catch {
      return; // a file being rewritten: the next round reads it whole
    }
    if (!next || (next.key.equals(current.key) && next.cert.equals(current.cert) && sameCa(next.ca, current.ca))) return;
    try {
      server.setSecureContext(httpsOptions(next));
      current = next;
    } catch {
      // A key that does not match its certificate yet (one file written, not the other).
    }
  }, REFRESH_MS);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}

function sameCa(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.equals(b));
}
