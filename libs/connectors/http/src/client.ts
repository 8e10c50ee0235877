import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { PluginOptions } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';

/** How requests are sent: SeaTunnel's HttpParameter. */
export interface RequestSettings {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly params: Record<string, string>;
  readonly retry: number;
  readonly backoffMultiplierMs: number;
  readonly backoffMaxMs: number;
  readonly connectTimeoutMs: number;
  readonly socketTimeoutMs: number;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

function textMap(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

export function requestSettings(o: PluginOptions): RequestSettings {
  return {
    url: o.get<string>('url'),
    headers: textMap(o.raw.headers),
    params: textMap(o.raw.params),
    retry: o.get<number>('retry'),
    backoffMultiplierMs: o.get<number>('retry_backoff_multiplier_ms'),
    backoffMaxMs: o.get<number>('retry_backoff_max_ms'),
    connectTimeoutMs: o.get<number>('connect_timeout_ms'),
    socketTimeoutMs: o.get<number>('socket_timeout_ms'),
  };
}

/** The URL with `params` set in its query string (replacing parameters of the same name). */
export function withQuery(url: string, params: Record<string, string>): URL {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}

/** The URL without its query string and user info, for messages. */
export function shownUrl(url: URL | string): string {
  const u = new URL(String(url));
  return `${u.origin}${u.pathname}`;
}

/** Connections kept open between the requests of a reader or writer. */
export interface Agents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
}

/** `tls.verifyCertificate = false` accepts any server certificate (SeaTunnel's tls_verify_certificate). */
export function newAgents(tls: { verifyCertificate?: boolean; verifyHostname?: boolean } = {}): Agents {
  return {
    http: new HttpAgent({ keepAlive: true, maxSockets: 1 }),
    https: new HttpsAgent({
      keepAlive: true,
      maxSockets: 1,
      rejectUnauthorized: tls.verifyCertificate !== false,
      ...(tls.verifyHostname === false ? { checkServerIdentity: () => undefined } : {}),
    }),
  };
}

export function closeAgents(a: Agents): void {
  a.http.destroy();
  a.https.destroy();
}

/** One request: resolves with any status; rejects on I/O errors and timeouts. */
function once(
  s: RequestSettings,
  agents: Agents,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const tls = url.protocol === 'https:';
    const options = {
      method,
      agent: tls ? agents.https : agents.http,
      headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
    };
    const req = tls ? httpsRequest(url, options) : httpRequest(url, options);
    const connectTimer = setTimeout(() => req.destroy(new Error(`no connection within ${s.connectTimeoutMs} ms`)), s.connectTimeoutMs);
    req.on('socket', (sock) => {
      const connected = () => {
        clearTimeout(connectTimer);
        req.setTimeout(s.socketTimeoutMs, () => req.destroy(new Error(`no answer within ${s.socketTimeoutMs} ms`)));
      };
      if (sock.connecting) sock.once('connect', connected);
      else connected();
    });
    req.on('error', (err) => {
      clearTimeout(connectTimer);
      reject(err);
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(body);
  });
}

const retryable = (status: number) => status === 429 || status >= 500;

/**
 * Sends a request, retrying I/O errors, timeouts, 429 and 5xx answers `retry` times with a
 * linear backoff capped at retry_backoff_max_ms (SeaTunnel's retryer), and returns the last
 * answer; throws, naming the URL, when the last try failed with an I/O error.
 */
export async function send(
  s: RequestSettings,
  agents: Agents,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<HttpAnswer> {
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await once(s, agents, url, method, headers, body);
      if (!retryable(answer.status) || attempt >= s.retry) return answer;
    } catch (err) {
      if (attempt >= s.retry)
        throw new TidewayError(
          ErrorCode.EXTERNAL_SYSTEM,
          `Http ${method} ${shownUrl(url)} failed${s.retry > 0 ? ` after ${s.retry + 1} tries` : ''}: ${(err as Error).message}`,
          { retryable: true, cause: err },
        );
    }
    await new Promise((r) => setTimeout(r, Math.min(s.backoffMaxMs, s.backoffMultiplierMs * (attempt + 1))));
  }
}

/** A non-2xx answer as an error naming the request and the start of the answer. */
export function statusError(method: string, url: URL, answer: HttpAnswer): TidewayError {
  return new TidewayError(
    ErrorCode.EXTERNAL_SYSTEM,
    `Http ${method} ${shownUrl(url)} answered ${answer.status}: ${answer.body.slice(0, 300).replace(/\s+/g, ' ')}`,
    { retryable: retryable(answer.status) },
  );
}
