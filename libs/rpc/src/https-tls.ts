import { readFileSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { currentTlsFiles } from './tls.js';

/** The key and certificate of the HTTP ports (REST API, metrics) when mutual TLS is configured. */
export interface HttpsMaterial {
  readonly key: Buffer;
  readonly cert: Buffer;
}

/** How often the files are compared with what the server uses, as the gRPC ports do. */
const REFRESH_MS = 5000;

/**
 * The HTTPS key and certificate for this process's HTTP ports, from the tideway.tls files:
 * server TLS only (browsers, curl and Prometheus are no cluster members), undefined for
 * plaintext.
 */
export function httpsMaterial(): HttpsMaterial | undefined {
  const files = currentTlsFiles();
  return files ? { key: readFileSync(files.keyFile), cert: readFileSync(files.certFile) } : undefined;
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
      next = httpsMaterial();
    } catch {
      return; // a file being rewritten: the next round reads it whole
    }
    if (!next || (next.key.equals(current.key) && next.cert.equals(current.cert))) return;
    try {
      server.setSecureContext({ key: next.key, cert: next.cert });
      current = next;
    } catch {
      // A key that does not match its certificate yet (one file written, not the other).
    }
  }, REFRESH_MS);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}
