import type { Command } from 'commander';
import type { WorkerInfo } from '@tideway/contracts';
import { ConfigError, ErrorCode, sleep } from '@tideway/common';
import { addressOptions, withClient, type AddressOpts } from './job-commands.js';

interface DrainOpts extends AddressOpts {
  /** commander's negation of --no-wait. */
  wait: boolean;
  timeout?: string;
}

const describe = (w: WorkerInfo) => `worker ${w.workerId} (${w.address})`;

/** --timeout in seconds: a positive number, or none (wait as long as it takes). */
function timeoutOf(opts: DrainOpts): number | undefined {
  if (opts.timeout === undefined) return undefined;
  const s = Number(opts.timeout);
  if (!Number.isFinite(s) || s <= 0)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--timeout ${opts.timeout}: expected seconds above 0, e.g. 300`);
  return s * 1000;
}

/**
 * `tideway cluster drain|undrain <worker>` and `tideway cluster step-down`: taking a worker out of
 * service and handing the leadership over, the steps of a rolling upgrade (docs/operations.md).
 */
export function registerDrainCommands(cluster: Command): void {
  addressOptions(
    cluster
      .command('drain')
      .description(
        'take a worker out of service: no new slots on it, its task groups move to other workers at their next checkpoint; waits until it is empty, showing its slots in use',
      )
      .argument('<worker>', 'the worker id or host:port (tideway overview lists them)')
      .option('--no-wait', 'return once the drain is asked for, without waiting for the worker to empty')
      .option('--timeout <seconds>', 'give up waiting after this long (exit 1; the drain goes on)'),
  ).action(
    withClient<DrainOpts>(async (client, opts, args) => {
      const timeoutMs = timeoutOf(opts);
      if (!opts.wait && timeoutMs !== undefined)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          '--timeout with --no-wait: --timeout bounds the wait that --no-wait leaves out; give one of them',
        );
      const { worker } = await client.drain(args[0]);
      const w = worker!;
      process.stderr.write(`${describe(w)} is draining: ${w.usedSlots} slot(s) in use\n`);
      if (!opts.wait) {
        process.stdout.write(`${w.workerId}\n`);
        return;
      }
      const started = Date.now();
      let last = w.usedSlots;
      for (;;) {
        const now = (await client.overview()).workers.find((x) => x.workerId === w.workerId);
        if (!now) {
          process.stderr.write(`${describe(w)} left the cluster (it stopped) after ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
          break;
        }
        if (now.usedSlots !== last) process.stderr.write(`${describe(w)}: ${now.usedSlots} slot(s) in use\n`);
        last = now.usedSlots;
        if (now.usedSlots === 0) {
          process.stderr.write(`${describe(w)} is empty after ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
          break;
        }
        if (timeoutMs !== undefined && Date.now() - started > timeoutMs)
          throw new Error(
            `${describe(w)} still holds ${now.usedSlots} slot(s) after --timeout ${opts.timeout} s; it keeps draining (undrain ends it)`,
          );
        await sleep(1000);
      }
      process.stdout.write(`${w.workerId}\n`);
    }),
  );
  addressOptions(
    cluster.command('undrain').description('end a drain: the worker gets slots again').argument('<worker>', 'the worker id or host:port'),
  ).action(
    withClient<AddressOpts>(async (client, _opts, args) => {
      const { worker } = await client.undrain(args[0]);
      process.stderr.write(
        `${describe(worker!)} takes slots again${worker!.stopping ? ' once it no longer stops (it was sent SIGTERM)' : ''}\n`,
      );
    }),
  );
  addressOptions(
    cluster
      .command('step-down')
      .description('the leader coordinator stops its work, releases its lease and a follower leads at once (it contends again after 10 s)'),
  ).action(
    withClient<AddressOpts>(async (client) => {
      const res = await client.stepDown();
      process.stderr.write(`coordinator ${res.address} stepped down (it led with epoch ${res.epoch}); a follower takes over\n`);
    }),
  );
}
