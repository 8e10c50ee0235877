import type { FastifyInstance } from 'fastify';
import type { OptionDef, PluginType } from '@tideway/api';
import { pluginCatalog } from '@tideway/plugins/lazy';
import type { JobApi } from '../job-api.js';
import { BadRequest, failBody } from '../rest-errors.js';
import { ENDED, statusName } from '../seatunnel-shapes.js';

/** What `/http-service/status` says of this server besides its bound port. */
export interface RestServiceInfo {
  /** The configured port (`seatunnel.engine.http.port`; 0 picks a free one). */
  configuredPort: number;
  enableDynamicPort: boolean;
  portRange: number;
  /** Served over HTTPS (tideway.tls) instead of HTTP. */
  https: boolean;
  /** Callers must show a client certificate that tideway.auth knows. */
  mutualTls: boolean;
}

/** SeaTunnel's option types, by the Java type its OptionRule names (OptionMetadata.type). */
function javaType(o: OptionDef): string {
  const element = { string: 'String', int: 'Integer', long: 'Long', double: 'Double', boolean: 'Boolean' } as const;
  switch (o.type) {
    case 'string':
    case 'enum':
      return 'java.lang.String';
    case 'int':
    case 'long':
    case 'double':
    case 'boolean':
      return `java.lang.${element[o.type]}`;
    case 'list':
      return `java.util.List<java.lang.${element[o.elementType ?? 'string']}>`;
    case 'map':
      return 'java.util.Map<java.lang.String, java.lang.String>';
    case 'object':
      return 'java.util.Map<java.lang.String, java.lang.Object>';
    case 'object-list':
      return 'java.util.List<java.util.Map<java.lang.String, java.lang.Object>>';
    default:
      return 'java.lang.Object';
  }
}

/** A default as JSON carries it: a 64-bit default (a bigint) as a number when exact, else as text. */
function jsonValue(v: unknown): unknown {
  if (typeof v !== 'bigint') return v ?? null;
  return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
}

/** SeaTunnel's OptionMetadata of one option. */
function optionMetadata(o: OptionDef) {
  return {
    key: o.name,
    type: javaType(o),
    defaultValue: jsonValue(o.default),
    description: o.description,
    fallbackKeys: [...(o.fallbackNames ?? [])],
    optionValues: o.type === 'enum' && o.values ? [...o.values] : null,
  };
}

const PLUGIN_TYPES: readonly PluginType[] = ['source', 'transform', 'sink'];

/**
 * GET /resource/workers, /http-service/status and /option-rules: endpoints SeaTunnel's later UI
 * reads besides the job lists and checkpoints. (Its live vertex and edge metrics,
 * /metrics/realtime/..., belong to the busyness work: docs/rest-api.md.)
 */
export function registerClusterRoutes(app: FastifyInstance, jobs: JobApi, service: RestServiceInfo): void {
  // SeaTunnel's WorkerResourceSnapshot. Tideway's workers report cores, memory, heap and load;
  // the figures they do not (available cores, CPU and memory usage) are null, as SeaTunnel sends
  // for a figure it lacks. The heap is the worker's main thread's (V8's limit as the total).
  app.get('/resource/workers', async () => {
    const [overview, { jobs: all }] = await Promise.all([jobs.overview(), jobs.list()]);
    const live = all.filter((j) => !ENDED.has(statusName(j)));
    return {
      available: true,
      collectedAt: Date.now(),
      workers: overview.workers.map((w) => ({
        address: w.address,
        tags: w.attributes,
        totalSlots: w.totalSlots,
        freeSlots: w.freeSlots,
        usedSlots: w.totalSlots - w.freeSlots,
        dynamicSlot: w.dynamicSlot,
        totalCpuCores: w.cpuCores,
        availableCpuCores: null,
        totalHeapMemoryBytes: w.heapMaxBytes > 0 ? w.heapMaxBytes : null,
        availableHeapMemoryBytes: w.heapMaxBytes > 0 ? w.heapMaxBytes - w.heapUsedBytes : null,
        cpuUsage: null,
        memUsage: null,
        runningJobIds: live
          .filter((j) => j.pipelines.some((p) => p.taskGroups.some((t) => t.workerAddress === w.address)))
          .map((j) => j.jobId),
      })),
    };
  });

  app.get('/http-service/status', async () => {
    const address = app.server.address();
    const bound = typeof address === 'object' && address ? address.port : service.configuredPort;
    return {
      httpEnabled: !service.https,
      httpsEnabled: service.https,
      configuredHttpPort: service.https ? 0 : service.configuredPort,
      configuredHttpsPort: service.https ? service.configuredPort : 0,
      httpPort: service.https ? 0 : bound,
      httpsPort: service.https ? bound : 0,
      contextPath: app.prefix || '/',
      dynamicPortEnabled: service.enableDynamicPort,
      portRange: service.portRange,
      // Tideway's tokens are bearer tokens (tideway.auth), not HTTP basic authentication.
      basicAuthEnabled: false,
      mutualTlsEnabled: service.mutualTls,
    };
  });

  // SeaTunnel's OptionRuleResponse of a plugin, from the plugin's spec: its required options as
  // one ABSOLUTELY_REQUIRED rule, the rest optional. A spec's cross-option checks are code, not
  // rules: conditionRules and valueConstraints are empty.
  app.get<{ Querystring: { type?: string; plugin?: string } }>('/option-rules', async (req, reply) => {
    const type = req.query.type?.trim().toLowerCase();
    const plugin = req.query.plugin?.trim();
    if (!type) throw new BadRequest("option-rules: parameter 'type' is missing: source, transform or sink");
    if (!PLUGIN_TYPES.includes(type as PluginType))
      throw new BadRequest(`option-rules: type '${req.query.type}' is not source, transform or sink`);
    if (!plugin) throw new BadRequest("option-rules: parameter 'plugin' is missing: a plugin name, e.g. FakeSource");
    const entry = pluginCatalog().find((e) => e.type === type && e.name.toLowerCase() === plugin.toLowerCase());
    if (!entry) return reply.code(404).send(failBody(`option-rules: Tideway has no ${type} plugin '${plugin}'`));
    const factory = await entry.load();
    const options = factory.spec.options;
    const required = options.filter((o) => o.required);
    return {
      engineType: 'seatunnel',
      pluginType: type,
      pluginName: factory.name,
      optionRule: {
        optionalOptions: options.filter((o) => !o.required).map(optionMetadata),
        requiredOptions:
          required.length > 0
            ? [{ ruleType: 'ABSOLUTELY_REQUIRED', options: required.map(optionMetadata), expression: null, expressionTree: null }]
            : [],
        conditionRules: [],
        valueConstraints: [],
      },
    };
  });
}
