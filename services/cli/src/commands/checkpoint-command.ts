import type { Command } from 'commander';
import type { JobInfo } from '@tideway/contracts';
import { ConfigError, ErrorCode } from '@tideway/common';
import { addressOptions, alignedColumns, withClient, type AddressOpts } from './job-commands.js';

interface CheckpointsOpts extends AddressOpts {
  json?: boolean;
  pipeline?: string;
}

function time(ms: number): string {
  return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 23) : '';
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The checkpoint history of a job as a table, newest first per pipeline. */
export function checkpointTable(job: JobInfo): string {
  const rows = [['Pipeline', 'Checkpoint', 'Kind', 'State', 'Triggered', 'Duration', 'Alignment', 'Size', 'Failure']];
  for (const p of job.pipelines)
    for (const r of p.checkpointHistory)
      rows.push([
        String(p.pipelineId),
        String(r.checkpointId),
        r.kind,
        r.state,
        time(r.triggerTimeMs),
        `${r.durationMs} ms`,
        r.alignmentMs ? `${r.alignmentMs} ms` : '-',
        r.state === 'COMPLETED' ? bytes(r.stateBytes) : '-',
        r.failureReason,
      ]);
  if (rows.length === 1) return `job ${job.jobId} has no checkpoint yet`;
  return alignedColumns(rows);
}

/** `tideway checkpoints <jobId>`: the job's checkpoint history (tideway.checkpoint-history.size per pipeline). */
export function registerCheckpointCommand(program: Command): void {
  addressOptions(
    program
      .command('checkpoints')
      .description("a job's last checkpoints per pipeline: id, kind, state, trigger time, duration, alignment, size, failure")
      .argument('<jobId>')
      .option('--pipeline <id>', 'only this pipeline')
      .option('--json', 'as JSON'),
  ).action(
    withClient<CheckpointsOpts>(async (client, opts, args) => {
      const pipelineId = opts.pipeline === undefined ? undefined : Number(opts.pipeline);
      if (pipelineId !== undefined && !(Number.isInteger(pipelineId) && pipelineId >= 0))
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--pipeline ${opts.pipeline}: expected a pipeline id, e.g. 1`);
      const job = await client.get(args[0]);
      const shown = { ...job, pipelines: job.pipelines.filter((p) => pipelineId === undefined || p.pipelineId === pipelineId) };
      if (pipelineId !== undefined && shown.pipelines.length === 0)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `--pipeline ${pipelineId}: job ${job.jobId} has pipelines ${job.pipelines.map((p) => p.pipelineId).join(', ')}`,
        );
      if (opts.json) {
        const out = shown.pipelines.map((p) => ({ pipelineId: p.pipelineId, checkpoints: p.checkpointHistory }));
        process.stdout.write(`${JSON.stringify({ jobId: job.jobId, pipelines: out }, null, 2)}\n`);
      } else process.stdout.write(`${checkpointTable(shown)}\n`);
    }),
  );
}
