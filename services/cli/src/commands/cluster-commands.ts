import type { Command } from 'commander';
import { ConfigError, ErrorCode } from '@tideway/common';
import { CoordinatorServer } from '@tideway/coordinator';
import { ResourceManagerService } from '@tideway/resource-manager';
import { WorkerServer } from '@tideway/worker';
import { checkpointStorageOf, collect, engineConfig } from './options.js';

const ROLES = ['coordinator', 'resource-manager', 'worker', 'all'] as const;
type Role = (typeof ROLES)[number];

/** `tideway cluster start --role ...`: one service per process (or all in one with `all`). */
export function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('run cluster services');
  cluster
    .command('start')
    .description('start a coordinator, resource manager or worker process (or all three) with an engine config')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--engine-config <file>', 'engine config in seatunnel.yaml shape (default deploy/seatunnel.yaml)')
    .option('--set <key=value>', 'engine setting under seatunnel.engine (repeatable)', collect, [])
    .action(async (opts: { role: string; engineConfig?: string; set: string[] }) => {
      if (!ROLES.includes(opts.role as Role)) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--role ${opts.role}: expected one of ${ROLES.join(', ')}`);
      const role = opts.role as Role;
      const engine = engineConfig(opts);
      const t = engine.tideway;
      const rmAddress = `${t.resourceManager.host}:${t.resourceManager.port}`;
      const coordinatorAddress = `${t.coordinator.host}:${t.coordinator.port}`;
      const stops: Array<() => Promise<void>> = [];
      if (role === 'resource-manager' || role === 'all') {
        const rm = new ResourceManagerService({
          host: t.resourceManager.host,
          port: t.resourceManager.port,
          strategy: engine.slotService.slotAllocateStrategy,
          heartbeatIntervalMs: t.heartbeat.interval,
          heartbeatTimeoutMs: t.heartbeat.timeout,
          coordinatorAddress,
        });
        process.stderr.write(`tideway: resource manager listening on ${await rm.start()}\n`);
        stops.push(() => rm.stop());
      }
      if (role === 'coordinator' || role === 'all') {
        const c = new CoordinatorServer({
          host: t.coordinator.host,
          port: t.coordinator.port,
          resourceManagerAddress: rmAddress,
          jobScheduleStrategy: engine.jobScheduleStrategy,
          historyExpireMs: engine.historyJobExpireMinutes * 60_000,
          checkpoint: { intervalMs: engine.checkpoint.interval, timeoutMs: engine.checkpoint.timeout, minPauseMs: 0 },
    checkpointStorage: checkpointStorageOf(engine),
        });
        process.stderr.write(`tideway: coordinator listening on ${await c.start()}\n`);
        stops.push(() => c.stop());
      }
      if (role === 'worker' || role === 'all') {
        const w = new WorkerServer({
          host: t.worker.host,
          port: t.worker.port,
          resourceManagerAddress: rmAddress,
          coordinatorAddress,
          dynamicSlot: engine.slotService.dynamicSlot,
          slotNum: engine.slotService.slotNum,
          attributes: Object.fromEntries(Object.entries(t.worker.attributes).map(([k, v]) => [k, String(v)])),
          heartbeatIntervalMs: t.heartbeat.interval,
        });
        process.stderr.write(`tideway: worker listening on ${await w.start()}\n`);
        stops.push(() => w.stop());
      }
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      for (const s of stops.reverse()) await s();
    });
}
