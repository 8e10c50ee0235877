import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Server as HttpsServer } from 'node:https';
import { logger, redactText } from '@tideway/common';
import {
  authCertificates,
  authTokens,
  authorize,
  callerOfCertificate,
  httpsMaterial,
  httpsOptions,
  reloadHttpsOnChange,
  type HttpsMaterial,
  type Role,
} from '@tideway/rpc';
import { clientCertificateOf } from './client-certificate.js';
import type { JobApi } from './job-api.js';
import { failBody, statusOf } from './rest-errors.js';
import { registerDashboardRoutes } from './dashboard/dashboard-routes.js';
import { registerJobRoutes } from './routes/job-routes.js';
import { registerSubmitRoutes } from './routes/submit-routes.js';
import { registerSystemRoutes } from './routes/system-routes.js';

/** `seatunnel.engine.http` and where to bind. */
export interface RestApiOptions {
  /** Address to bind (the coordinator's host). */
  host: string;
  port: number;
  /** A prefix for every route, e.g. `/seatunnel` ('' for none). */
  contextPath: string;
  /** When `port` is taken, try port+1 .. port+portRange. */
  enableDynamicPort: boolean;
  portRange: number;
}

/** A running REST API. */
export interface RestApi {
  /** `http://host:port<context-path>` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The role a REST route needs: reading is viewer's, submitting and stopping operator's, tags admin's. */
function restRole(method: string, route: string): Role {
  if (method === 'GET' || route === '/encrypt-config') return 'viewer';
  return route === '/update-tags' ? 'admin' : 'operator';
}

/** The fastify app with every route (SeaTunnel's and the dashboard's `/ui`) under the context path; not listening yet. */
export function buildRestApp(jobs: JobApi, contextPath: string, registry?: Registry, tls?: HttpsMaterial): FastifyInstance {
  // With tideway.tls, HTTPS with the coordinator's certificate; the cast keeps one app type
  // for both (the routes do not depend on the transport).
  const app = (tls ? Fastify({ logger: false, https: httpsOptions(tls) }) : Fastify({ logger: false })) as unknown as FastifyInstance;
  // Bodies arrive as text: a job config may be HOCON, and JSON is parsed by the route so that a
  // syntax error is answered in SeaTunnel's shape, naming what was wrong.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 16 * 1024 * 1024 }, (_req, body, done) => done(null, body));
  // Every answer is masked as sent (job infos, errors, metrics labels): a password the job's
  // config or a driver's message carries never leaves in plain text. /encrypt-config answers
  // with encrypted values on purpose, and is left as it is.
  app.addHook('onSend', async (req, _reply, payload) =>
    typeof payload === 'string' && !req.url.split('?')[0].endsWith('/encrypt-config') ? redactText(payload) : payload,
  );
  // Bearer tokens or client certificates (tideway.auth): each route needs the role of the
  // JobService call it makes. The dashboard's page and scripts carry no data and load without
  // a token: it asks for one when its /ui/api calls are refused.
  app.addHook('onRequest', async (req, reply) => {
    const tokens = authTokens();
    if (tokens.length === 0) return;
    const route = req.url.split('?')[0].slice(contextPath.length);
    // The route as the router matched it (it decodes %xx): the URL as sent may spell it otherwise.
    const matched = (req.routeOptions.url ?? req.url.split('?')[0]).slice(contextPath.length);
    if (req.method === 'GET' && isDashboardFile(matched)) return;
    const what = `${req.method} ${route}`;
    const certificate = clientCertificateOf(req.raw);
    if (typeof certificate === 'string') return reply.code(401).send(failBody(`${what}: ${certificate}`));
    const refusal = authorize(tokens, req.headers.authorization, what, restRole(req.method, matched), callerOfCertificate(certificate));
    if (refusal) await reply.code(refusal.http).send(failBody(refusal.message));
  });
  app.setErrorHandler((err, req, reply) => {
    const status = statusOf(err);
    if (status >= 500) logger('rest-api').warn({ err, url: req.url }, 'REST request failed');
    void reply.code(status).send(failBody((err as Error).message));
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(failBody(`no route ${req.method} ${req.url}${contextPath ? ` (routes are under ${contextPath})` : ''}`));
  });
  void app.register(
    async (scoped) => {
      registerSystemRoutes(scoped, jobs, registry);
      registerJobRoutes(scoped, jobs);
      registerSubmitRoutes(scoped, jobs);
      registerDashboardRoutes(scoped, jobs);
    },
    { prefix: contextPath },
  );
  return app;
}

/** The routes of the dashboard's static files (`/ui`, `/ui/*`), not its `/ui/api/` routes. */
function isDashboardFile(route: string): boolean {
  return route === '/ui' || route === '/ui/' || route === '/ui/*';
}

function inUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

/**
 * Serves SeaTunnel's REST API v2 over `jobs` (JobService through gRPC). With enable-dynamic-port
 * a taken port moves on to the next, up to port-range ports above, as SeaTunnel does.
 */
export async function startRestApi(jobs: JobApi, options: RestApiOptions, registry?: Registry): Promise<RestApi> {
  const last = options.enableDynamicPort && options.port !== 0 ? options.port + options.portRange : options.port;
  for (let port = options.port; ; port++) {
    // With client certificates in tideway.auth, HTTPS asks callers for one (and the CA to check it).
    const tls = httpsMaterial(authCertificates().length > 0);
    const app = buildRestApp(jobs, options.contextPath, registry, tls);
    try {
      await app.listen({ host: options.host, port });
    } catch (err) {
      await app.close();
      if (inUse(err) && port < last) continue;
      const range = last > options.port ? `${options.port}..${last}` : String(options.port);
      throw new Error(`cannot serve the REST API on ${options.host}:${range}: ${(err as Error).message}`);
    }
    const bound = (app.server.address() as { port: number }).port;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    if (tls) reloadHttpsOnChange(app.server as unknown as HttpsServer, tls);
    return { url: `${tls ? 'https' : 'http'}://${host}:${bound}${options.contextPath}`, port: bound, close: () => app.close() };
  }
}
