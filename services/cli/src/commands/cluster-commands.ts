import type { Command } from 'commander';
import { ConfigError, ErrorCode } from '@tideway/common';
import {
  checkpointStorageOf,
  pluginStorageOf,
  collect,
  configLimitsOf,
  coordinatorAddresses,
  engineConfig,
  metricsPortOf,
  usePluginFolders,
} from './options.js';
import { registerCertsCommand } from './certs-command.js';
import { keepJobLogs } from './job-logs-setup.js';
import { registerDrainCommands } from './drain-commands.js';

const ROLES = ['coordinator', 'resource-manager', 'worker', 'all'] as const;
type Role = (typeof ROLES)[number];

interface StartOptions {
  role: string;
  engineConfig?: string;
  set: string[];
  metricsPort?: string;
  metricsHost?: string;
}

/** `tideway cluster start --role ...`: one service per process (or all in one with `all`). */
export function registerClusterCommands(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('run cluster services; drain workers and hand the leadership over (docs/operations.md)');
  registerCertsCommand(cluster);
  registerDrainCommands(cluster);
  cluster
    .command('start')
    .description('start a coordinator, resource manager or worker process (or all three) with an engine config')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--engine-config <file>', 'engine config in seatunnel.yaml shape (default deploy/seatunnel.yaml)')
    .option('--set <key=value>', 'engine setting under seatunnel.engine (repeatable)', collect, [])
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics at http://<host>:<port>/metrics and the probes /livez and /readyz (0 picks a free port; default: no endpoint)',
    )
    .option('--metrics-host <host>', "address the metrics endpoint binds to (default: the role's host from the engine config)")
    .action(async (opts: StartOptions) => {
      // The services are loaded when one starts: every other command (and --help) stays quick.
      const [
        { CoordinatorServer, JobEventReporter, registerCoordinatorMetrics },
        { ResourceManagerService, registerResourceManagerMetrics },
        { WorkerServer, registerWorkerMetrics },
        { newMetricsRegistry, startMetricsEndpoint },
        { RedisStateStore, electionFromConfig, stateStoreFromConfig },
        { configureAuth, configureMessageLimit, configureTls, parseCertificateTable, parseTokenTable },
        { startRestApiIfEnabled },
      ] = await Promise.all([
        import('@tideway/coordinator'),
        import('@tideway/resource-manager'),
        import('@tideway/worker'),
        import('../metrics-endpoint.js'),
        import('@tideway/cluster'),
        import('@tideway/rpc'),
        import('../rest-api-hook.js'),
      ]);
      if (!ROLES.includes(opts.role as Role))
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--role ${opts.role}: expected one of ${ROLES.join(', ')}`);
      const role = opts.role as Role;
      const metricsPort = opts.metricsPort === undefined ? undefined : metricsPortOf(opts.metricsPort);
      const engine = engineConfig(opts);
      await usePluginFolders(engine);
      const t = engine.tideway;
      // Before any server or client exists: each picks its credentials when it is made.
      configureTls(t.tls.caFile ? t.tls : undefined);
      configureMessageLimit(t.limits.maxMessageBytes);
      try {
        configureAuth(
          parseTokenTable(t.auth.tokens ?? {}, 'tideway.auth.tokens'),
          parseCertificateTable(t.auth.certificates ?? {}, 'tideway.auth.certificates'),
        );
      } catch (e) {
        throw new ConfigError(ErrorCode.ENGINE_CONFIG, (e as Error).message);
      }
      const rmAddress = `${t.resourceManager.host}:${t.resourceManager.port}`;
      const coordinators = coordinatorAddresses(engine);
      const registry = newMetricsRegistry();
      const stops: Array<() => Promise<void>> = [];
      /** A worker process drains before it stops (SIGTERM): its task groups move to other workers first. */
      let drainFirst: (() => Promise<void>) | undefined;
      const checks: Record<string, () => { ready: boolean; reason: string }> = {};
      if (role === 'resource-manager' || role === 'all') {
        const rm = new ResourceManagerService({
          host: t.resourceManager.host,
          port: t.resourceManager.port,
          strategy: engine.slotService.slotAllocateStrategy,
          heartbeatIntervalMs: t.heartbeat.interval,
          heartbeatTimeoutMs: t.heartbeat.timeout,
          // A separate resource manager may be a restarted one: workers of a running cluster
          // get three heartbeats to re-register with the slots they hold before slots are granted.
          registryRebuildMs: role === 'all' ? 0 : 3 * t.heartbeat.interval + 500,
          coordinatorAddresses: coordinators,
        });
        process.stderr.write(`tideway: resource manager listening on ${await rm.start()}\n`);
        registerResourceManagerMetrics(registry, rm.manager);
        checks['resource-manager'] = () => rm.readiness();
        stops.push(() => rm.stop());
      }
      if (role === 'coordinator' || role === 'all') {
        const store = stateStoreFromConfig(engine);
        const ha = engine.tideway.stateStore.type === 'redis';
        const c = new CoordinatorServer({
          host: t.coordinator.host,
          port: t.coordinator.port,
          advertisedAddress: t.coordinator.advertisedAddress || undefined,
          resourceManagerAddress: rmAddress,
          jobScheduleStrategy: engine.jobScheduleStrategy,
          historyExpireMs: engine.historyJobExpireMinutes * 60_000,
          checkpoint: {
            intervalMs: engine.checkpoint.interval,
            timeoutMs: engine.checkpoint.timeout,
            minPauseMs: 0,
            historySize: engine.tideway.checkpointHistory.size,
          },
          checkpointStorage: checkpointStorageOf(engine),
          store,
          election: ha ? (address, s, epochFloor) => electionFromConfig(engine, s, address, epochFloor) : undefined,
          metricsBackupIntervalMs: engine.jobMetricsBackupInterval * 1000,
          namespaces: t.auth.namespaces,
          tokenStore: store instanceof RedisStateStore ? store : undefined,
          configLimits: configLimitsOf(engine),
          events: JobEventReporter.fromConfig(engine),
          drainBatchTimeoutMs: t.drain.batchTimeout,
          pluginStorage: pluginStorageOf(engine),
          pluginCallTimeout: t.pluginCallTimeout,
        });
        // A fixed port names the process before it starts: a take-over at the start logs to the jobs' files too.
        const coordinatorRole = role === 'all' ? 'all' : 'coordinator';
        if (t.coordinator.port !== 0)
          stops.push(
            keepJobLogs(engine, t.coordinator.advertisedAddress || `${t.coordinator.host}:${t.coordinator.port}`, coordinatorRole),
          );
        process.stderr.write(`tideway: coordinator listening on ${await c.start()}\n`);
        if (t.coordinator.port === 0) stops.push(keepJobLogs(engine, c.address, coordinatorRole));
        registerCoordinatorMetrics(registry, c, { maxTableSeries: t.metrics.maxTableSeries });
        checks.coordinator = () => c.readiness();
        stops.push(() => c.stop());
        stops.push(
          await startRestApiIfEnabled(engine, t.coordinator.host, [c.address, ...coordinators.filter((a) => a !== c.address)], registry),
        );
      }
      if (role === 'worker' || role === 'all') {
        const w = new WorkerServer({
          host: t.worker.host,
          port: t.worker.port,
          advertisedAddress: t.worker.advertisedAddress || undefined,
          resourceManagerAddress: rmAddress,
          coordinatorAddresses: coordinators,
          leaderLossTimeoutMs: t.worker.leaderLossTimeout,
          dynamicSlot: engine.slotService.dynamicSlot,
          slotNum: engine.slotService.slotNum,
          attributes: Object.fromEntries(Object.entries(t.worker.attributes).map(([k, v]) => [k, String(v)])),
          heartbeatIntervalMs: t.heartbeat.interval,
          pluginCallTimeout: t.pluginCallTimeout,
          pluginCacheDir: engine.jarStorage.connectorJarStoragePath,
        });
        process.stderr.write(`tideway: worker listening on ${await w.start()}\n`);
        if (role === 'worker') stops.push(keepJobLogs(engine, w.address, 'worker'));
        registerWorkerMetrics(registry, w);
        checks.worker = () => w.readiness();
        stops.push(() => w.stop());
        if (role === 'worker')
          drainFirst = async () => {
            const grace = t.drain.gracePeriod;
            process.stderr.write(`tideway: worker stopping: draining first (at most ${grace} ms, tideway.drain.grace-period)\n`);
            const empty = await w.drainBeforeStop(grace, (slots) =>
              process.stderr.write(`tideway: worker draining: ${slots} slot(s) in use\n`),
            );
            process.stderr.write(
              empty ? 'tideway: worker drained: stopping\n' : 'tideway: worker drain grace period over: stopping anyway\n',
            );
          };
      }
      if (metricsPort !== undefined) {
        const host =
          opts.metricsHost ??
          (role === 'worker' ? t.worker.host : role === 'resource-manager' ? t.resourceManager.host : t.coordinator.host);
        const endpoint = await startMetricsEndpoint(registry, host, metricsPort, checks);
        process.stderr.write(`tideway: metrics at ${endpoint.url}\n`);
        stops.push(() => endpoint.close());
      }
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      // SIGTERM (Kubernetes, systemd, a rolling upgrade) drains a worker first; SIGINT stops at once.
      if (signal === 'SIGTERM' && drainFirst) await drainFirst();
      for (const s of stops.reverse()) await s();
    });
}
