import { CoordinatorServer, JobEventReporter } from '@tideway/coordinator';
import { ResourceManagerService } from '@tideway/resource-manager';
import { SpareTaskThread, WorkerServer } from '@tideway/worker';
import type { EngineConfig } from '@tideway/config';
import { checkpointStorageOf, configLimitsOf, pluginStorageOf } from './commands/options.js';
import { takeEarlySpare } from './early-spare.js';

/** A plugin of the job by its type and name, as the job config writes them. */
export type PluginRef = Parameters<SpareTaskThread['preload']>[0][number];

/** The three services of local mode, in one process, talking gRPC over loopback. */
export interface LocalCluster {
  coordinatorAddress: string;
  coordinator: CoordinatorServer;
  resourceManager: ResourceManagerService;
  worker: WorkerServer;
  stop(): Promise<void>;
}

/**
 * Starts a resource manager, a coordinator and one worker on free loopback ports. The worker
 * offers the engine config's slots (dynamic by default) and its attributes (tags). `preload`:
 * the plugins of the job about to run, which the spare task thread imports at once.
 */
export async function startLocalCluster(engine: EngineConfig, coordinatorPort = 0, preload: PluginRef[] = []): Promise<LocalCluster> {
  // The worker's spare task thread starts first (in `tideway run`, main.ts started it before the
  // CLI loaded): it loads the runtime and the job's plugins while the other services start and
  // the job is planned (docs/decisions/0079, 0090, 0096).
  const spare = takeEarlySpare() ?? new SpareTaskThread();
  spare.fill();
  spare.preload(preload);
  try {
    return await startServices(engine, coordinatorPort, spare);
  } catch (err) {
    await spare.close();
    throw err;
  }
}

async function startServices(engine: EngineConfig, coordinatorPort: number, spare: SpareTaskThread): Promise<LocalCluster> {
  const host = '127.0.0.1';
  const resourceManager = new ResourceManagerService({
    host,
    port: 0,
    strategy: engine.slotService.slotAllocateStrategy,
    heartbeatIntervalMs: engine.tideway.heartbeat.interval,
    heartbeatTimeoutMs: engine.tideway.heartbeat.timeout,
  });
  const rmAddress = await resourceManager.start();
  const coordinator = new CoordinatorServer({
    host,
    port: coordinatorPort,
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
    configLimits: configLimitsOf(engine),
    events: JobEventReporter.fromConfig(engine),
    pluginStorage: pluginStorageOf(engine),
    pluginCallTimeout: engine.tideway.pluginCallTimeout,
  });
  const coordinatorAddress = await coordinator.start({ waitForLeadership: true });
  resourceManager.setCoordinators([coordinatorAddress]);
  const worker = new WorkerServer({
    host,
    port: 0,
    resourceManagerAddress: rmAddress,
    coordinatorAddresses: [coordinatorAddress],
    dynamicSlot: engine.slotService.dynamicSlot,
    slotNum: engine.slotService.slotNum,
    attributes: Object.fromEntries(Object.entries(engine.tideway.worker.attributes).map(([k, v]) => [k, String(v)])),
    heartbeatIntervalMs: engine.tideway.heartbeat.interval,
    pluginCallTimeout: engine.tideway.pluginCallTimeout,
    spareTaskThread: spare,
    pluginCacheDir: engine.jarStorage.connectorJarStoragePath,
  });
  await worker.start();
  await worker.waitRegistered();
  return {
    coordinatorAddress,
    coordinator,
    resourceManager,
    worker,
    async stop() {
      await worker.stop();
      await coordinator.stop();
      await resourceManager.stop();
    },
  };
}
