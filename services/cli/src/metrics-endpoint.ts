import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { httpsMaterial, reloadHttpsOnChange } from '@tideway/rpc';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** One service's answer to the readiness probe. */
export interface Readiness {
  ready: boolean;
  /** Why, in words (shown in the probe's answer). */
  reason: string;
}

/** The readiness of each service of the process, by role (coordinator, resource-manager, worker). */
export type ReadinessChecks = Readonly<Record<string, () => Readiness>>;

/** A running Prometheus endpoint. */
export interface MetricsEndpoint {
  /** `http://host:port/metrics` */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A fresh registry with the process metrics (CPU, memory, event loop lag, GC) under the
 * `tideway_process_` / `tideway_nodejs_` prefix; services add their own metrics to it.
 */
export function newMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tideway_' });
  // prom-client names three gauges like counters (promtool refuses a gauge ending in _total);
  // each is the sum of the labelled gauge beside it (tideway_nodejs_active_handles{type}, ...).
  for (const name of ['active_handles', 'active_requests', 'active_resources']) registry.removeSingleMetric(`tideway_nodejs_${name}_total`);
  return registry;
}

/**
 * A scrape is one short GET: a client that takes longer than this to send it (slow-loris) is
 * answered 408 and cut off, checked every second rather than Node's default 30 s.
 */
const SLOW_CLIENT_LIMITS = { headersTimeout: 10_000, requestTimeout: 10_000, connectionsCheckingInterval: 1000 };
/** Open connections at once (a few Prometheus servers scrape an endpoint); more are closed as they arrive. */
const MAX_SCRAPERS = 100;

/** The probes' answers: JSON, 200 when alive / ready, 503 when not ready. */
function answerProbe(res: ServerResponse, path: string, checks: ReadinessChecks): void {
  if (path === '/livez') {
    // The process answers, so its event loop turns: alive.
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"alive"}\n');
    return;
  }
  const answers = Object.fromEntries(Object.entries(checks).map(([role, check]) => [role, check()]));
  const ready = Object.values(answers).every((a) => a.ready);
  res
    .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
    .end(`${JSON.stringify({ status: ready ? 'ready' : 'not ready', checks: answers })}\n`);
}

/**
 * Serves `registry` in Prometheus text format at GET /metrics on host:port (port 0 picks a
 * free one), over HTTPS when tideway.tls is set, with the liveness and readiness probes beside
 * it: GET /livez (200 while the process answers) and GET /readyz (200 when every service of the
 * process is ready, 503 with each one's reason otherwise). Every other path answers 404, so a
 * probe cannot mistake it for something else.
 */
export async function startMetricsEndpoint(
  registry: Registry,
  host: string,
  port: number,
  checks: ReadinessChecks = {},
): Promise<MetricsEndpoint> {
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && (path === '/livez' || path === '/readyz')) {
      answerProbe(res, path, checks);
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('not found: metrics are at GET /metrics, probes at GET /livez and /readyz\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(err as Error).message}\n`),
    );
  };
  // With tideway.tls, HTTPS with this process's certificate (reloaded when its files change).
  const tls = httpsMaterial();
  let server: Server;
  if (tls) {
    const https = createHttpsServer({ key: tls.key, cert: tls.cert, ...SLOW_CLIENT_LIMITS }, serve);
    reloadHttpsOnChange(https, tls);
    server = https;
  } else server = createServer(SLOW_CLIENT_LIMITS, serve);
  server.maxConnections = MAX_SCRAPERS;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`cannot serve metrics on ${host}:${port}: ${err.message}`)));
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
