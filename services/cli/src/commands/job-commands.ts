import type { Command } from 'commander';
import { jobStatusToJSON, executionStateToJSON, type JobInfo } from '@tideway/contracts';
import { readJobInput } from '../config-input.js';
import { JobClient } from '@tideway/client';
import { collect, coordinatorAddresses, engineConfig } from './options.js';
import { followJob } from './follow.js';
import { unreachableCoordinator } from '../unreachable.js';

export interface AddressOpts {
  address?: string;
  token?: string;
  engineConfig?: string;
  set?: string[];
}

/**
 * The coordinators to talk to (the client finds the leader among them): --address a,b,c, else
 * TIDEWAY_ADDRESS (the same form), else the engine config's tideway.coordinator.addresses.
 */
export function addresses(opts: AddressOpts): string[] {
  const list = opts.address ?? process.env.TIDEWAY_ADDRESS;
  if (list)
    return list
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a.length > 0);
  return coordinatorAddresses(engineConfig(opts));
}

export function withClient<T extends AddressOpts>(fn: (client: JobClient, opts: T, args: string[]) => Promise<void>) {
  return async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const opts = cmd.opts<T>();
    const at = addresses(opts);
    const client = new JobClient(at, { token: opts.token ?? process.env.TIDEWAY_TOKEN });
    try {
      await fn(client, opts, cmd.args);
    } catch (err) {
      throw unreachableCoordinator(at, err) ?? err;
    } finally {
      client.close();
    }
  };
}

export function addressOptions(c: Command): Command {
  return c
    .option(
      '--address <host:port,...>',
      'coordinator address(es); the leader among them is found (default: TIDEWAY_ADDRESS or the engine config)',
    )
    .option('--engine-config <file>', 'engine config in seatunnel.yaml shape')
    .option('--token <token>', 'bearer token for a cluster with tideway.auth tokens (default: TIDEWAY_TOKEN)');
}

function time(ms: number): string {
  return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '';
}

/** SeaTunnel's job list; a Namespace column when a job has one (a cluster with tideway.auth tokens). */
function listTable(jobs: JobInfo[]): string {
  const namespaced = jobs.some((j) => j.namespace !== '');
  const rows = [['Job ID', 'Job Name', 'Job Status', 'Submit Time', 'Finished Time', ...(namespaced ? ['Namespace'] : [])]];
  for (const j of jobs) {
    const row = [j.jobId, j.jobName, jobStatusToJSON(j.status), time(j.submitTimeMs), time(j.finishTimeMs)];
    rows.push(namespaced ? [...row, j.namespace || '-'] : row);
  }
  return alignedColumns(rows);
}

/** Rows of cells as text columns two spaces apart, each as wide as its widest cell. */
export function alignedColumns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** JobInfo as JSON with enum names instead of numbers. */
function jobJson(j: JobInfo): unknown {
  return {
    ...j,
    status: jobStatusToJSON(j.status),
    pipelines: j.pipelines.map((p) => ({ ...p, taskGroups: p.taskGroups.map((t) => ({ ...t, state: executionStateToJSON(t.state) })) })),
  };
}

export function registerJobCommands(program: Command): void {
  addressOptions(
    program
      .command('submit')
      .description('submit a job to a cluster; without --async, follow it until it ends')
      .requiredOption('-c, --config <file>', 'job config')
      .option('-i, --variable <key=value>', 'job variable (repeatable)', collect, [])
      .option('-n, --name <name>', 'job name')
      .option('--async', 'return once the job is queued, printing its id')
      .option('--set-job-id <id>', 'use this job id')
      .option(
        '--restore-with-checkpoint <jobId>',
        "start from that ended job's latest checkpoint or savepoint, as a new job; parallelism may change",
      ),
  ).action(
    withClient<
      AddressOpts & {
        config: string;
        variable: string[];
        name?: string;
        async?: boolean;
        setJobId?: string;
        restoreWithCheckpoint?: string;
      }
    >(async (client, opts) => {
      const input = readJobInput(opts.config, opts.variable);
      const res = await client.submit({
        ...input,
        jobName: opts.name ?? '',
        jobId: opts.setJobId ?? '',
        restoreWithCheckpoint: opts.restoreWithCheckpoint ?? '',
      });
      if (opts.async) {
        process.stdout.write(`${res.jobId}\n`);
        return;
      }
      process.stderr.write(`tideway: job ${res.jobId} submitted\n`);
      process.exitCode = await followJob(client, res.jobId, 60_000);
    }),
  );

  addressOptions(
    program
      .command('list')
      .alias('-l')
      .description('list jobs (running, and ended ones until their history expires)')
      .option('--json', 'as JSON'),
  ).action(
    withClient<AddressOpts & { json?: boolean }>(async (client, opts) => {
      const { jobs } = await client.list();
      process.stdout.write(opts.json ? `${JSON.stringify(jobs.map(jobJson), null, 2)}\n` : `${listTable(jobs)}\n`);
    }),
  );

  addressOptions(program.command('status').description("a job's state as JSON").argument('<jobId>')).action(
    withClient(async (client, _opts, args) => {
      process.stdout.write(`${JSON.stringify(jobJson(await client.get(args[0])), null, 2)}\n`);
    }),
  );

  addressOptions(
    program
      .command('metrics')
      .description("a job's metrics as JSON (SourceReceivedCount, SinkWriteCount, ... per table)")
      .argument('<jobId>'),
  ).action(
    withClient(async (client, _opts, args) => {
      const { seaTunnelMetrics } = await import('@tideway/rest-api');
      const [metrics, job] = await Promise.all([client.metrics(args[0]), client.get(args[0])]);
      const out = seaTunnelMetrics(metrics, job, false);
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    }),
  );

  addressOptions(
    program.command('cancel').description('cancel jobs; every task stops and every slot is freed').argument('<jobId...>'),
  ).action(
    withClient(async (client, _opts, args) => {
      for (const id of args) {
        const res = await client.cancel(id);
        process.stdout.write(`${id} ${jobStatusToJSON(res.job!.status)}\n`);
      }
    }),
  );

  addressOptions(program.command('overview').description('workers, slots and job counts')).action(
    withClient(async (client) => {
      process.stdout.write(`${JSON.stringify(await client.overview(), null, 2)}\n`);
    }),
  );

  addressOptions(
    program
      .command('restore')
      .description('resume a job from its savepoint or latest checkpoint (same job id); follows it unless --async')
      .argument('<jobId>')
      .requiredOption('-c, --config <file>', 'job config')
      .option('-i, --variable <key=value>', 'job variable (repeatable)', collect, [])
      .option('--async', 'return once the job is queued'),
  ).action(
    withClient<AddressOpts & { config: string; variable: string[]; async?: boolean }>(async (client, opts, args) => {
      const input = readJobInput(opts.config, opts.variable);
      const res = await client.submit({ ...input, restoreJobId: args[0] });
      if (opts.async) {
        process.stdout.write(`${res.jobId}\n`);
        return;
      }
      process.exitCode = await followJob(client, res.jobId, 60_000);
    }),
  );

  addressOptions(
    program
      .command('checkpoint')
      .description("take a checkpoint of a running job now (beside its periodic ones); prints each pipeline's checkpoint id")
      .argument('<jobId>'),
  ).action(
    withClient(async (client, _opts, args) => {
      const res = await client.checkpoint(args[0]);
      for (const c of res.checkpoints) {
        process.stdout.write(
          c.error
            ? `${args[0]} pipeline ${c.pipelineId}: no checkpoint: ${c.error}\n`
            : `${args[0]} pipeline ${c.pipelineId} checkpoint ${c.checkpointId}\n`,
        );
      }
      if (res.checkpoints.some((c) => c.error)) process.exitCode = 1;
    }),
  );

  addressOptions(program.command('savepoint').description('stop a job with a savepoint').argument('<jobId>')).action(
    withClient(async (client, _opts, args) => {
      const res = await client.savepoint(args[0]);
      process.stdout.write(`${args[0]} ${jobStatusToJSON(res.job!.status)} checkpoint ${res.checkpointId}\n`);
    }),
  );
}
