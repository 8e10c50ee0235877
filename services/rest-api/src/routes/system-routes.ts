import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { heapFigures, hostPort, numberToUnit, processHealth } from '@tideway/common';
import { parseJobConfig, shadeJobConfigJson, type ConfigLimits } from '@tideway/config';
import type { JobApi } from '../job-api.js';
import { failBody } from '../rest-errors.js';

/** Tideway's version, where SeaTunnel reports its own. */
const VERSION = '0.1.0';

/** Whether a worker's attributes carry every tag of the filter, as SeaTunnel's overview filters. */
function matches(attributes: Record<string, string>, tags: Record<string, string>): boolean {
  return Object.entries(tags).every(([k, v]) => attributes[k] === v);
}

/** GET /overview, /system-monitoring-information, /metrics, /openmetrics; POST /encrypt-config, /update-tags (the logs: log-routes.ts). */
export function registerSystemRoutes(
  app: FastifyInstance,
  jobs: JobApi,
  registry: Registry | undefined,
  limits: ConfigLimits,
  coordinator: string | undefined,
): void {
  app.get<{ Querystring: Record<string, string> }>('/overview', async (req) => {
    const o = await jobs.overview();
    const workers = o.workers.filter((w) => matches(w.attributes, req.query));
    return {
      projectVersion: VERSION,
      gitCommitAbbrev: 'unknown',
      totalSlot: String(workers.reduce((n, w) => n + w.totalSlots, 0)),
      unassignedSlot: String(workers.reduce((n, w) => n + w.freeSlots, 0)),
      workers: String(workers.length),
      // The older name of `workers`, as SeaTunnel's REST API documentation still shows it.
      works: String(workers.length),
      runningJobs: String(o.runningJobs),
      finishedJobs: String(o.finishedJobs),
      failedJobs: String(o.failedJobs),
      cancelledJobs: String(o.canceledJobs),
    };
  });

  // SeaTunnel's health figures of every cluster member: each coordinator (the leader with
  // isMaster "true", as SeaTunnel's master; this process with its own figures), then each worker
  // (isMaster "false") with the figures it reports with its heartbeats (the same as this
  // process's; a worker that reports none has its cores, memory, heap and load). SeaTunnel's UI
  // puts the isMaster "true" entries on its Master page and the others on its Workers page.
  app.get('/system-monitoring-information', async () => {
    const overview = await jobs.overview();
    const coordinators = overview.coordinators.length > 0 ? overview.coordinators : [{ address: coordinator ?? '', leader: true }];
    // This process: the coordinator at its own address, or the only one (local mode).
    const self = coordinators.find((c) => c.address === coordinator) ?? (coordinators.length === 1 ? coordinators[0] : undefined);
    return [
      ...coordinators.map((c) => ({
        ...hostPort(c.address),
        isMaster: String(c.leader),
        ...(c === self ? processHealth() : {}),
      })),
      ...overview.workers.map((w) => ({
        ...hostPort(w.address),
        isMaster: 'false',
        processors: String(w.cpuCores),
        'physical.memory.total': numberToUnit(w.memoryMb * 1024 * 1024),
        'physical.memory.free': numberToUnit(w.freeMemoryMb * 1024 * 1024),
        // A worker that does not report its heap (0) has none listed.
        ...(w.heapTotalBytes > 0 ? heapFigures(w.heapUsedBytes, w.heapTotalBytes, w.heapMaxBytes) : {}),
        'load.systemAverage': w.systemLoad.toFixed(2),
        ...w.health,
      })),
    ];
  });

  // SeaTunnel's /encrypt-config: the JSON config with the shaded options of its sources and sinks
  // encrypted by its env shade.identifier (base64 or aes256), as `tideway encrypt` prints it.
  app.post<{ Body: string }>('/encrypt-config', async (req) => {
    // A ConfigError (syntax, no shade.identifier, unknown one) is answered with 400.
    return shadeJobConfigJson(parseJobConfig(req.body, { file: 'the request body', format: 'json', shade: false, limits }), 'encrypt');
  });

  app.post('/update-tags', async (_req, reply) =>
    reply
      .code(400)
      .send(
        failBody(
          "update-tags is not supported: Tideway's REST API is served by the coordinator, which has no tags; a worker's tags are tideway.worker.attributes in its engine config",
        ),
      ),
  );

  const metrics = (openMetrics: boolean) => async (_req: unknown, reply: { type(t: string): unknown }) => {
    if (!registry) return '';
    // A view of the registry that formats as OpenMetrics: the registry itself stays as it is for
    // the Prometheus endpoint that reads it at the same time.
    const view = openMetrics
      ? (Object.create(registry, { contentType: { value: Registry.OPENMETRICS_CONTENT_TYPE } }) as Registry)
      : registry;
    reply.type(view.contentType);
    return view.metrics();
  };
  app.get('/metrics', metrics(false));
  app.get('/openmetrics', metrics(true));
}
