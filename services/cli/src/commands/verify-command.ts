import type { Command } from 'commander';
import { ConfigError, ErrorCode, newJobId } from '@tideway/common';
import { readJobInput } from '../config-input.js';
import { checkpointStorageOf, collect, engineConfig } from './options.js';

function positiveInt(option: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${option} ${text}: expected a whole number of at least 1`, { place: { option } });
  return n;
}

/** `tideway verify`: is the sink equal to the source? Exit 0 equal, 1 not equal, 2 bad input. */
export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      "compare a job's source tables with its sink tables (Jdbc/CDC sources into Jdbc sinks): row counts, checksums over key ranges computed in each database, then the keys that are missing, extra or different. " +
        "For a CDC job it first waits until the job's checkpoints show the sink past the source log position read at the start. " +
        "With --then, a CDC -> Kafka -> Jdbc pipeline over two jobs: the first job's source tables against the Jdbc tables the second job writes them to, paired through the topics. " +
        'Exit code 0: equal, 1: not equal, 2: bad input.',
    )
    .requiredOption('-c, --config <file>', 'the job config')
    .option('-i, --variable <key=value>', 'job variable (repeatable)', collect, [])
    .option('--job-id <id>', 'the running CDC job, whose checkpoints tell how far its sink has come')
    .option('--engine-config <file>', 'engine config with the checkpoint storage of the job (default deploy/seatunnel.yaml)')
    .option('--set <key=value>', 'engine setting under seatunnel.engine (repeatable)', collect, [])
    .option('--no-wait', 'CDC: compare right away, without waiting for the sink to catch up')
    .option('--timeout <seconds>', 'CDC: how long to wait for the sink to catch up', '300')
    .option('--max-keys <n>', 'keys listed per table and kind of difference', '20')
    .option('--parallelism <n>', "sessions per database, each checksumming a slice of a table's key ranges at once", '2')
    .option(
      '--then <file>',
      "a second job that reads the topics this job's Kafka sinks write (CDC -> Kafka -> Jdbc): compare this job's source tables with the Jdbc tables the second job writes them to",
    )
    .option('--then-job-id <id>', 'the running second job (--then), whose checkpoints tell how far it has read the topics')
    .option('--then-engine-config <file>', "engine config with the second job's checkpoint storage (default: that of --engine-config)")
    .option('--json', 'print the report as JSON')
    .action(
      async (opts: {
        config: string;
        variable: string[];
        jobId?: string;
        engineConfig?: string;
        set: string[];
        wait: boolean;
        timeout: string;
        maxKeys: string;
        parallelism: string;
        then?: string;
        thenJobId?: string;
        thenEngineConfig?: string;
        json?: boolean;
      }) => {
        const timeoutMs = positiveInt('--timeout', opts.timeout) * 1000;
        const maxKeys = positiveInt('--max-keys', opts.maxKeys);
        const parallelism = positiveInt('--parallelism', opts.parallelism);
        const input = readJobInput(opts.config, opts.variable);
        const { planJobText } = await import('@tideway/planner');
        const job = await planJobText(input.configText, {
          jobId: opts.jobId ?? newJobId(),
          file: input.configFile,
          format: input.format as 'hocon' | 'json',
          variables: input.variables,
        });
        for (const [given, option] of [
          [opts.thenJobId, '--then-job-id'],
          [opts.thenEngineConfig, '--then-engine-config'],
        ] as const)
          if (given !== undefined && opts.then === undefined)
            throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${option} is read only with --then`, { place: { option } });
        let then: { job: typeof job; jobId?: string; engine: Parameters<typeof checkpointStorageOf>[0] } | undefined;
        if (opts.then !== undefined) {
          const second = readJobInput(opts.then, opts.variable);
          then = {
            job: await planJobText(second.configText, {
              jobId: opts.thenJobId ?? newJobId(),
              file: second.configFile,
              format: second.format as 'hocon' | 'json',
              variables: second.variables,
            }),
            jobId: opts.thenJobId,
            engine: engineConfig({ engineConfig: opts.thenEngineConfig ?? opts.engineConfig, set: opts.set }),
          };
        }
        const { verifyJob, formatReport } = await import('@tideway/verify');
        const storage = opts.jobId !== undefined ? checkpointStorageOf(engineConfig(opts)) : undefined;
        const thenStorage = then?.jobId !== undefined ? checkpointStorageOf(then.engine) : undefined;
        try {
          const report = await verifyJob({
            job,
            jobId: opts.jobId,
            storage,
            wait: opts.wait,
            timeoutMs,
            maxKeys,
            parallelism,
            then: then && { job: then.job, jobId: then.jobId, storage: thenStorage },
          });
          const text = `${opts.json ? JSON.stringify(report, null, 2) : formatReport(report)}\n`;
          // main exits the process when the action returns: a long report must be out by then.
          await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
          process.exitCode = report.equal ? 0 : 1;
        } finally {
          await storage?.close();
          await thenStorage?.close();
        }
      },
    );
}
