import { JobStatus, jobStatusToJSON, type JobEvent } from '@tideway/contracts';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { JobClient } from '@tideway/client';
import { ProgressReporter, statisticsBlock } from '../progress.js';

/**
 * Follows a job with WatchJob until it ends: live progress, Ctrl-C cancels it (a second
 * Ctrl-C leaves at once), SeaTunnel's statistics block at the end. Returns the exit code:
 * 0 FINISHED or SAVEPOINT_DONE, 1 FAILED, 130 CANCELED by Ctrl-C, 1 otherwise.
 */
export async function followJob(client: JobClient, jobId: string, printEveryMs: number): Promise<number> {
  const progress = new ProgressReporter(process.stderr, printEveryMs);
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    progress.done();
    process.stderr.write(`tideway: cancelling job ${jobId} (Ctrl-C again to leave at once)\n`);
    client.cancel(jobId).catch((err: unknown) => process.stderr.write(`tideway: cancel failed: ${(err as Error).message}\n`));
  };
  process.on('SIGINT', onSigint);
  let last: JobEvent;
  try {
    last = await client.watch(jobId, (e) => progress.update(e), 500);
  } finally {
    process.off('SIGINT', onSigint);
    progress.done();
  }
  const job = last.job!;
  process.stdout.write(`${statisticsBlock(last)}\n`);
  if (job.status === JobStatus.FINISHED) return 0;
  if (job.status === JobStatus.SAVEPOINT_DONE) {
    process.stderr.write(`tideway: job ${jobId} stopped with a savepoint; resume it with -r ${jobId}\n`);
    return 0;
  }
  const status = jobStatusToJSON(job.status);
  if (job.status === JobStatus.CANCELED) {
    process.stderr.write(`tideway: job ${jobId} ${status}\n`);
    return interrupted ? 130 : 1;
  }
  const cause = job.error?.message ?? 'no cause was reported';
  throw new TidewayError((job.error?.code as ErrorCode) ?? ErrorCode.TASK_FAILED, `job ${jobId} ${status}: ${cause}`, { jobId });
}
