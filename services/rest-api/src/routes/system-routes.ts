import { cpus, freemem, loadavg, totalmem } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { parseJobConfig, shadeJobConfigJson, type ConfigLimits } from '@tideway/config';
import type { JobApi } from '../job-api.js';
import { failBody } from '../rest-errors.js';

/** Tideway's version, where SeaTunnel reports its own. */
const VERSION = '0.1.0';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)}M`;
const gb = (bytes: number) => `${(bytes / 1024 / 1024 / 1024).toFixed(1)}G`;

/** Whether a worker's attributes carry every tag of the filter, as SeaTunnel's overview filters. */
function matches(attributes: Record<string, string>, tags: Record<string, string>): boolean {
  return Object.entries(tags).every(([k, v]) => attributes[k] === v);
}

/** GET /overview, /system-monitoring-information, /metrics, /openmetrics; POST /encrypt-config, /update-tags (the logs: log-routes.ts). */
export function registerSystemRoutes(app: FastifyInstance, jobs: JobApi, registry: Registry | undefined, limits: ConfigLimits): void {
  app.get<{ Querystring: Record<string, string> }>('/overview', async (req) => {
    const o = await jobs.overview();
    const workers = o.workers.filter((w) => matches(w.attributes, req.query));
    return {
      projectVersion: VERSION,
      gitCommitAbbrev: 'unknown',
      totalSlot: String(workers.reduce((n, w) => n + w.totalSlots, 0)),
      unassignedSlot: String(workers.reduce((n, w) => n + w.freeSlots, 0)),
      works: String(workers.length),
      runningJobs: String(o.runningJobs),
      finishedJobs: String(o.finishedJobs),
      failedJobs: String(o.failedJobs),
      cancelledJobs: String(o.canceledJobs),
    };
  });

  app.get('/system-monitoring-information', async () => {
    const mem = process.memoryUsage();
    const coordinator = {
      node: 'coordinator',
      processors: String(cpus().length),
      'physical.memory.total': gb(totalmem()),
      'physical.memory.free': mb(freemem()),
      'heap.memory.used': mb(mem.heapUsed),
      'heap.memory.total': mb(mem.heapTotal),
      'heap.memory.used/total': `${((100 * mem.heapUsed) / mem.heapTotal).toFixed(2)}%`,
      'load.systemAverage': loadavg()[0].toFixed(2),
    };
    const { workers } = await jobs.overview();
    return [
      coordinator,
      ...workers.map((w) => ({
        node: w.address,
        processors: String(w.cpuCores),
        'physical.memory.total': mb(w.memoryMb * 1024 * 1024),
        'load.systemAverage': w.systemLoad.toFixed(2),
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
