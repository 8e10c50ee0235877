import type { Registry } from 'prom-client';
import type { EngineConfig } from '@tideway/config';
import { configLimitsOf } from './commands/options.js';

/**
 * Starts SeaTunnel's REST API v2 when `seatunnel.engine.http.enable-http` is set, on the
 * coordinator's host; it reaches JobService through a gRPC client at `coordinators` (this
 * coordinator first), following the leader as the CLI does: a follower's REST API answers for
 * the leader. Returns how to stop it (nothing to stop when disabled).
 */
export async function startRestApiIfEnabled(
  engine: EngineConfig,
  host: string,
  coordinators: string | readonly string[],
  registry?: Registry,
): Promise<() => Promise<void>> {
  const http = engine.http;
  if (!http.enableHttp) return async () => {};
  // Loaded only here: fastify and the dashboard are a few hundred modules a job without HTTP never needs.
  const [{ requestCertificateCaller, requestToken, startRestApi }, { JobClient }] = await Promise.all([
    import('@tideway/rest-api'),
    import('@tideway/client'),
  ]);
  // The REST API checks its callers' tokens and certificates itself and calls JobService with the
  // caller's token, or names its certificate entry (trusted only from this coordinator's own
  // certificate), so the leader (this process or another) applies the caller's role and namespace.
  const client = new JobClient(coordinators, { token: requestToken, certificateCaller: requestCertificateCaller });
  try {
    const api = await startRestApi(
      client,
      {
        host,
        port: http.port,
        contextPath: http.contextPath,
        enableDynamicPort: http.enableDynamicPort,
        portRange: http.portRange,
        coordinator: typeof coordinators === 'string' ? coordinators : coordinators[0],
        limits: {
          maxBodyBytes: http.maxBodyBytes,
          headersTimeout: http.headersTimeout,
          requestTimeout: http.requestTimeout,
          keepAliveTimeout: http.keepAliveTimeout,
          maxConnections: http.maxConnections,
          config: configLimitsOf(engine),
        },
      },
      registry,
    );
    process.stderr.write(`tideway: REST API at ${api.url}\n`);
    return async () => {
      await api.close();
      client.close();
    };
  } catch (err) {
    client.close();
    throw err;
  }
}
