import type { Command } from 'commander';
import { ConfigError, ErrorCode, newJobId } from '@tideway/common';
import { parseJobConfig } from '@tideway/config';
import { readJobInput } from '../config-input.js';
import type { LocalCluster, PluginRef } from '../local-cluster.js';
import { keepJobLogs } from './job-logs-setup.js';
import { collect, engineConfig, metricsPortOf, usePluginFolders } from './options.js';

export function registerLocalCommands(program: Command): void {
  program
    .command('run')
    .description('run a job in local mode: coordinator, resource manager and a worker in this process, over gRPC on loopback')
    .requiredOption('-c, --config <file>', 'job config (HOCON, or JSON when it ends in .json)')
    .option('-i, --variable <key=value>', 'job variable for ${key} in the config (repeatable)', collect, [])
    .option('-n, --name <name>', 'job name (overrides env job.name)')
    .option('--set <key=value>', 'engine setting under seatunnel.engine, e.g. slot-service.slot-num=2 (repeatable)', collect, [])
    .option('--engine-config <file>', 'engine config in seatunnel.yaml shape (default deploy/seatunnel.yaml)')
    .option('--set-job-id <id>', 'use this job id')
    .option('-r, --restore <jobId>', 'restore this job from its savepoint or latest checkpoint (same job id)')
    .option(
      '--restore-with-checkpoint <jobId>',
      "start a new job (new id, or --set-job-id) from that ended job's latest checkpoint or savepoint; parallelism may change",
    )
    .option(
      '--coordinator-port <port>',
      'serve JobService on this loopback port (default: a free one), e.g. for `tideway savepoint --address`',
      '0',
    )
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics at http://127.0.0.1:<port>/metrics and the probes /livez and /readyz while the job runs (0 picks a free port)',
    )
    .action(
      async (opts: {
        config: string;
        variable: string[];
        name?: string;
        set: string[];
        engineConfig?: string;
        setJobId?: string;
        restore?: string;
        restoreWithCheckpoint?: string;
        coordinatorPort: string;
        metricsPort?: string;
      }) => {
        const input = readJobInput(opts.config, opts.variable);
        const engine = engineConfig(opts);
        await usePluginFolders(engine);
        const port = Number(opts.coordinatorPort);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--coordinator-port ${opts.coordinatorPort}: expected a port number`);
        const metricsPort = opts.metricsPort === undefined ? undefined : metricsPortOf(opts.metricsPort);
        const [{ startLocalCluster }, { startRestApiIfEnabled }, { JobClient }, { followJob }] = await Promise.all([
          import('../local-cluster.js'),
          import('../rest-api-hook.js'),
          import('@tideway/client'),
          import('./follow.js'),
        ]);
        // The job's lines are kept in a file of its own, as a cluster's processes keep them
        // (docs/logs.md); set up before the task threads start, which pass their lines on.
        const stopJobLogs = keepJobLogs(engine, 'local', 'all');
        const cluster = await startLocalCluster(engine, port, pluginsOf(input)).catch(async (err: unknown) => {
          await stopJobLogs();
          throw err;
        });
        const stopRestApi = await startRestApiIfEnabled(engine, '127.0.0.1', cluster.coordinatorAddress);
        const stopMetrics =
          metricsPort === undefined
            ? async () => undefined
            : await serveLocalMetrics(cluster, metricsPort, engine.tideway.metrics.maxTableSeries);
        const client = new JobClient(cluster.coordinatorAddress);
        try {
          const res = await client.submit({
            ...input,
            jobName: opts.name ?? '',
            jobId: opts.setJobId ?? '',
            restoreJobId: opts.restore ?? '',
            restoreWithCheckpoint: opts.restoreWithCheckpoint ?? '',
          });
          process.exitCode = await followJob(client, res.jobId, engine.printJobMetricsInfoInterval * 1000);
        } finally {
          client.close();
          await stopMetrics();
          await stopRestApi();
          await cluster.stop();
          await stopJobLogs();
        }
      },
    );

  program
    .command('plan')
    .description('print the logical DAG, pipelines and task groups of a job without running it')
    .requiredOption('-c, --config <file>', 'job config')
    .option('-i, --variable <key=value>', 'job variable (repeatable)', collect, [])
    .option('--check', 'only validate the config; print nothing but errors')
    .option('--json', 'print the plan as JSON')
    .option('--engine-config <file>', 'engine config whose tideway.plugins.dirs name the plugin folders (default deploy/seatunnel.yaml)')
    .action(async (opts: { config: string; variable: string[]; check?: boolean; json?: boolean; engineConfig?: string }) => {
      const input = readJobInput(opts.config, opts.variable);
      await usePluginFolders(engineConfig(opts));
      const { describePlan, planJobText } = await import('@tideway/planner');
      const job = await planJobText(input.configText, {
        jobId: newJobId(),
        file: input.configFile,
        format: input.format as 'hocon' | 'json',
        variables: input.variables,
      });
      if (opts.check) {
        process.stdout.write(`${opts.config}: config is valid (${job.pipelines.length} pipeline(s), ${job.slots} slot(s))\n`);
        return;
      }
      const plan = describePlan(job);
      process.stdout.write(`${opts.json ? plan.json : plan.text}\n`);
    });

  program
    .command('describe')
    .description('list the plugins, or show the options of one plugin')
    .argument('[plugin]', 'plugin name, e.g. FakeSource')
    .option('--engine-config <file>', 'engine config whose tideway.plugins.dirs name the plugin folders (default deploy/seatunnel.yaml)')
    .action(async (name: string | undefined, opts: { engineConfig?: string }) => {
      await usePluginFolders(engineConfig(opts));
      // Every plugin's package is loaded only here: `run` and `plan` load just the job's.
      const { registry, pluginCatalog } = await import('@tideway/plugins');
      if (!name) {
        const packageOf = new Map(pluginCatalog().map((e) => [`${e.type}:${e.name}`, e.builtin ? '' : `  (${e.package})`]));
        for (const f of registry.list())
          process.stdout.write(`${f.type.padEnd(10)} ${f.name}${packageOf.get(`${f.type}:${f.name}`) ?? ''}\n`);
        return;
      }
      const matches = registry.list().filter((f) => f.name.toLowerCase() === name.toLowerCase());
      if (matches.length === 0)
        throw new ConfigError(ErrorCode.CONFIG_UNKNOWN_PLUGIN, `unknown plugin '${name}'; run 'tideway describe' for the list`);
      for (const f of matches) {
        process.stdout.write(`${f.name} (${f.type})\n\n${f.description}\n\nOptions:\n`);
        for (const o of f.spec.options) {
          const bits = [
            o.type + (o.values ? ` ${o.values.join('|')}` : ''),
            o.required ? 'required' : `default ${JSON.stringify(o.default ?? null)}`,
          ];
          process.stdout.write(`  ${o.name}  (${bits.join(', ')})\n      ${o.description}\n`);
        }
        process.stdout.write('\n');
      }
    });
}

/**
 * The plugins a job config names, for the spare task thread to import while the job is planned;
 * none when the config does not parse (the coordinator then reports why, with its place).
 */
function pluginsOf(input: ReturnType<typeof readJobInput>): PluginRef[] {
  try {
    const job = parseJobConfig(input.configText, {
      file: input.configFile,
      format: input.format as 'hocon' | 'json',
      variables: input.variables,
    });
    return [...job.sources, ...job.transforms, ...job.sinks].map((p) => ({ type: p.type, name: p.name }));
  } catch {
    return [];
  }
}

/** Local mode's metrics and probes: the three services' metrics, and each one's readiness. */
async function serveLocalMetrics(cluster: LocalCluster, port: number, maxTableSeries: number): Promise<() => Promise<void>> {
  const [
    { registerCoordinatorMetrics },
    { registerResourceManagerMetrics },
    { registerWorkerMetrics },
    { newMetricsRegistry, startMetricsEndpoint },
  ] = await Promise.all([
    import('@tideway/coordinator'),
    import('@tideway/resource-manager'),
    import('@tideway/worker'),
    import('../metrics-endpoint.js'),
  ]);
  const registry = newMetricsRegistry();
  registerCoordinatorMetrics(registry, cluster.coordinator, { maxTableSeries });
  registerResourceManagerMetrics(registry, cluster.resourceManager.manager);
  registerWorkerMetrics(registry, cluster.worker);
  const endpoint = await startMetricsEndpoint(registry, '127.0.0.1', port, {
    coordinator: () => cluster.coordinator.readiness(),
    'resource-manager': () => cluster.resourceManager.readiness(),
    worker: () => cluster.worker.readiness(),
  });
  process.stderr.write(`tideway: metrics at ${endpoint.url}\n`);
  return () => endpoint.close();
}
