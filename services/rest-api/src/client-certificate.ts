import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';

/**
 * The client certificate of a request, when the HTTPS server asked for one (tideway.auth
 * certificates, httpsOptions): undefined when none was presented (a browser, curl without
 * --cert), the certificate when the cluster CA signed it, and a refusal sentence when it did not.
 */
export function clientCertificateOf(req: IncomingMessage): PeerCertificate | string | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (!socket.encrypted || typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || !cert.raw) return undefined;
  if (!socket.authorized) {
    const cn = cert.subject?.CN;
    return `the client certificate (CN=${(Array.isArray(cn) ? cn.join(', ') : cn) ?? '?'}) is not signed by this cluster's CA (${String(socket.authorizationError)})`;
  }
  return cert;
}
