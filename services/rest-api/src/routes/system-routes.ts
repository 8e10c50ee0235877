import { cpus, freemem, loadavg, totalmem } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { JobApi } from '../job-api.js';
import { BadRequest, failBody } from '../rest-errors.js';
import { parseJsonBody, type JsonObject } from '../request-body.js';

/** Tideway's version, where SeaTunnel reports its own. */
const VERSION = '0.1.0';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)}M`;
const gb = (bytes: number) => `${(bytes / 1024 / 1024 / 1024).toFixed(1)}G`;

/** Whether a worker's attributes carry every tag of the filter, as SeaTunnel's overview filters. */
function matches(attributes: Record<string, string>, tags: Record<string, string>): boolean {
  return Object.entries(tags).every(([k, v]) => attributes[k] === v);
}

/** SeaTunnel's shaded options: encrypt-config encodes these in every plugin block. */
const SENSITIVE = ['username', 'password'];

function encryptPlugins(list: unknown, section: string): unknown {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new BadRequest(`${section} must be a list of plugin blocks`);
  return list.map((block: unknown) => {
    if (typeof block !== 'object' || block === null) throw new BadRequest(`${section}: each entry must be a plugin block`);
    const out: JsonObject = { ...(block as JsonObject) };
    for (const k of SENSITIVE) if (typeof out[k] === 'string') out[k] = Buffer.from(out[k] as string, 'utf8').toString('base64');
    return out;
  });
}

/** GET /overview, /system-monitoring-information, /metrics, /openmetrics, /logs, /log; POST /encrypt-config, /update-tags. */
export function registerSystemRoutes(app: FastifyInstance, jobs: JobApi, registry: Registry | undefined): void {
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
      'load.systemAverage': loadavg()[0]!.toFixed(2),
    };
    const { workers } = await jobs.overview();
    return [
      coordinator,
      ...workers.map((w) => ({ node: w.address, processors: String(w.cpuCores), 'physical.memory.total': mb(w.memoryMb * 1024 * 1024), 'load.systemAverage': w.systemLoad.toFixed(2) })),
    ];
  });

  app.post<{ Body: string }>('/encrypt-config', async (req) => {
    const config = parseJsonBody(req.body, 'the request body');
    if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new BadRequest('the request body must be a job config object');
    const c = config as JsonObject;
    const env = (c.env ?? {}) as JsonObject;
    const identifier = env['shade.identifier'];
    if (identifier !== 'base64') {
      throw new BadRequest(`env shade.identifier ${identifier === undefined ? 'is missing' : `'${String(identifier)}' is not supported`}: Tideway encrypts with base64`);
    }
    return { ...c, source: encryptPlugins(c.source, 'source'), transform: encryptPlugins(c.transform, 'transform'), sink: encryptPlugins(c.sink, 'sink') };
  });

  app.post('/update-tags', async (_req, reply) =>
    reply
      .code(400)
      .send(failBody("update-tags is not supported: Tideway's REST API is served by the coordinator, which has no tags; a worker's tags are tideway.worker.attributes in its engine config")),
  );

  // Tideway logs to each process's stderr (pino JSON), not to per-job files: the lists are empty.
  const logList = async (req: { query: { format?: string } }, reply: { type(t: string): unknown }) => {
    if ((req.query.format ?? 'html') === 'json') return [];
    reply.type('text/html; charset=utf-8');
    return '<html><body><p>No log files: Tideway logs to the standard error of each process (pino JSON).</p></body></html>';
  };
  app.get<{ Querystring: { format?: string } }>('/logs', logList);
  app.get<{ Querystring: { format?: string } }>('/log', logList);
  app.get<{ Params: { name: string } }>('/logs/:name', async (req, reply) =>
    reply.code(404).send(failBody(`no log ${req.params.name}: Tideway logs to the standard error of each process (pino JSON), not to per-job files`)),
  );

  const metrics = (openMetrics: boolean) => async (_req: unknown, reply: { type(t: string): unknown }) => {
    if (!registry) return '';
    // A view of the registry that formats as OpenMetrics: the registry itself stays as it is for
    // the Prometheus endpoint that reads it at the same time.
    const view = openMetrics ? (Object.create(registry, { contentType: { value: Registry.OPENMETRICS_CONTENT_TYPE } }) as Registry) : registry;
    reply.type(view.contentType);
    return view.metrics();
  };
  app.get('/metrics', metrics(false));
  app.get('/openmetrics', metrics(true));
}
