import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { logger, redactText } from '@tideway/common';
import {
  authCertificates,
  authorizeCall,
  bearerOf,
  callerOfCertificate,
  httpsMaterial,
  httpsOptions,
  reloadHttpsOnChange,
  type HttpsMaterial,
  type Role,
} from '@tideway/rpc';
import { clientCertificateOf } from './client-certificate.js';
import { runAsCaller } from './request-caller.js';
import { DEFAULT_CONFIG_LIMITS, type ConfigLimits } from '@tideway/config';
import type { JobApi } from './job-api.js';
import { failBody, statusOf } from './rest-errors.js';
import { registerDashboardRoutes } from './dashboard/dashboard-routes.js';
import { registerCheckpointRoutes } from './routes/checkpoint-routes.js';
import { registerClusterRoutes, type RestServiceInfo } from './routes/cluster-routes.js';
import { registerJobRoutes } from './routes/job-routes.js';
import { registerLogRoutes } from './routes/log-routes.js';
import { registerRealtimeRoutes } from './routes/realtime-routes.js';
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
  /** What a request may weigh and how slowly it may arrive; defaults as in the engine config. */
  limits?: Partial<RestLimits>;
  /** This coordinator's gRPC address: its entry of /system-monitoring-information carries this process's figures. */
  coordinator?: string;
}

/** `seatunnel.engine.http` limits (docs/security.md "Request limits"). */
export interface RestLimits {
  /** Bytes of a request body; past it: 413. */
  maxBodyBytes: number;
  /** Milliseconds to receive the headers; past it: 408 and the connection closed (slow-loris). */
  headersTimeout: number;
  /** Milliseconds to receive the whole request. */
  requestTimeout: number;
  /** Milliseconds an idle keep-alive connection stays open. */
  keepAliveTimeout: number;
  /** Open connections at once; more are closed as they arrive. */
  maxConnections: number;
  /** Job configs the REST API parses itself (/encrypt-config) and the nesting of JSON bodies: tideway.limits. */
  config: ConfigLimits;
}

export const DEFAULT_REST_LIMITS: RestLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  maxConnections: 1000,
  config: DEFAULT_CONFIG_LIMITS,
};

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
export function buildRestApp(
  jobs: JobApi,
  contextPath: string,
  registry?: Registry,
  tls?: HttpsMaterial,
  given: Partial<RestLimits> = {},
  served: { service?: Partial<RestServiceInfo>; coordinator?: string } = {},
): FastifyInstance {
  const limits = { ...DEFAULT_REST_LIMITS, ...given };
  // Node's own clocks against slow clients: headers and the whole request must arrive in time
  // (checked every second, not Node's default 30 s), or the client gets 408 and is cut off.
  const server = {
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    connectionsCheckingInterval: 1000,
  };
  const options = {
    logger: false,
    // A malformed URL or a path parameter past fastify's length limit (a 200-character job id)
    // is answered in SeaTunnel's shape too, not fastify's.
    frameworkErrors: (err: FastifyError, _req: FastifyRequest, reply: FastifyReply) =>
      void reply.code(err.statusCode ?? 400).send(failBody(err.message.length > 300 ? `${err.message.slice(0, 300)}...` : err.message)),
    bodyLimit: limits.maxBodyBytes,
    requestTimeout: limits.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
  };
  // With tideway.tls, HTTPS with the coordinator's certificate; the cast keeps one app type
  // for both (the routes do not depend on the transport).
  const app = (tls
    ? Fastify({ ...options, https: { ...httpsOptions(tls), ...server } })
    : Fastify({ ...options, http: server })) as unknown as FastifyInstance;
  app.server.maxConnections = limits.maxConnections;
  // Node's clocks start with the first byte: a connection that sends nothing at all is closed
  // after headers-timeout too.
  app.server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), limits.headersTimeout);
    timer.unref();
    socket.once('data', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
  // Bodies arrive as text: a job config may be HOCON, and JSON is parsed by the route so that a
  // syntax error is answered in SeaTunnel's shape, naming what was wrong.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  // Every answer is masked as sent (job infos, errors, metrics labels): a password the job's
  // config or a driver's message carries never leaves in plain text. /encrypt-config answers
  // with encrypted values on purpose, and is left as it is.
  app.addHook('onSend', async (req, _reply, payload) =>
    typeof payload === 'string' && !req.url.split('?')[0].endsWith('/encrypt-config') ? redactText(payload) : payload,
  );
  // Bearer tokens or client certificates (tideway.auth): each route needs the role of the
  // JobService call it makes, and the caller goes on with those calls (its token, or its
  // certificate entry's name: request-caller.ts), so the coordinator applies its namespace too.
  // The dashboard's page and scripts carry no data and load without a token: it asks for one
  // when its /ui/api calls are refused.
  app.addHook('onRequest', (req, reply, done) => {
    const route = req.url.split('?')[0].slice(contextPath.length);
    // The route as the router matched it (it decodes %xx): the URL as sent may spell it otherwise.
    const matched = (req.routeOptions.url ?? req.url.split('?')[0]).slice(contextPath.length);
    if (req.method === 'GET' && isDashboardFile(matched)) return done();
    const what = `${req.method} ${route}`;
    const header = req.headers.authorization;
    const token = bearerOf(header);
    // A certificate another CA signed is refused even beside a token (the handshake let it through to say so).
    const peer = clientCertificateOf(req.raw);
    if (typeof peer === 'string') return void reply.code(401).send(failBody(`${what}: ${peer}`));
    const certificate = token === undefined ? callerOfCertificate(peer) : undefined;
    authorizeCall(header, what, restRole(req.method, matched), certificate).then(
      (refusal) => {
        if (refusal) return void reply.code(refusal.http).send(failBody(refusal.message));
        const byCertificate = certificate !== undefined && typeof certificate !== 'string';
        runAsCaller(token !== undefined ? { token } : byCertificate ? { certificate: certificate.name } : undefined, done);
      },
      (err: unknown) => done(err as Error),
    );
  });
  // Every route reads its query parameters as single values: one given twice (?format=json&format=html)
  // is refused by name rather than reaching a route as a list.
  app.addHook('preValidation', (req, reply, done) => {
    const twice = Object.entries((req.query ?? {}) as Record<string, unknown>).find(([, v]) => Array.isArray(v));
    if (twice)
      return void reply
        .code(400)
        .send(failBody(`query parameter '${twice[0]}' is given ${(twice[1] as unknown[]).length} times: give it once`));
    done();
  });
  app.setErrorHandler((err, req, reply) => {
    if ((err as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const message = `the request body is larger than ${limits.maxBodyBytes} bytes (seatunnel.engine.http.max-body-bytes)`;
      return void reply.code(413).send(failBody(message));
    }
    const status = statusOf(err);
    if (status >= 500) logger('rest-api').warn({ err, url: req.url }, 'REST request failed');
    void reply.code(status).send(failBody((err as Error).message));
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(failBody(`no route ${req.method} ${req.url}${contextPath ? ` (routes are under ${contextPath})` : ''}`));
  });
  void app.register(
    async (scoped) => {
      registerSystemRoutes(scoped, jobs, registry, limits.config, served.coordinator);
      registerClusterRoutes(scoped, jobs, {
        configuredPort: 0,
        enableDynamicPort: false,
        portRange: 0,
        https: tls !== undefined,
        mutualTls: authCertificates().length > 0,
        ...served.service,
      });
      registerJobRoutes(scoped, jobs);
      registerCheckpointRoutes(scoped, jobs);
      registerRealtimeRoutes(scoped, jobs);
      registerLogRoutes(scoped, jobs, contextPath);
      registerSubmitRoutes(scoped, jobs, limits.config.maxDepth);
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
    const app = buildRestApp(jobs, options.contextPath, registry, tls, options.limits, {
      coordinator: options.coordinator,
      service: { configuredPort: options.port, enableDynamicPort: options.enableDynamicPort, portRange: options.portRange },
    });
    try {
      await app.listen({ host: options.host, port });
    } catch (err) {
      await app.close();
      if (inUse(err) && port < last) continue;
      const range = last > options.port ? `${options.port}..${last}` : String(options.port);
      throw new Error(`cannot serve the REST API on ${options.host}:${range}: ${(err as Error).message}`, { cause: err });
    }
    const bound = (app.server.address() as { port: number }).port;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    if (tls) reloadHttpsOnChange(app.server as unknown as HttpsServer, tls);
    return { url: `${tls ? 'https' : 'http'}://${host}:${bound}${options.contextPath}`, port: bound, close: () => app.close() };
  }
}
