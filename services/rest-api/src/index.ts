/**
 * SeaTunnel's REST API v2 (docs/en/seatunnel-engine/rest-api-v2.md in apache/seatunnel) for
 * Tideway, served with fastify beside the coordinator and answered through JobService over gRPC.
 */
export { startRestApi, buildRestApp, type RestApi, type RestApiOptions } from './rest-server.js';
export type { JobApi } from './job-api.js';
export { seaTunnelMetrics } from './seatunnel-shapes.js';
export { requestCertificateCaller, requestToken } from './request-caller.js';
