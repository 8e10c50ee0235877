/**
 * One benchmark job, run in its own process so its peak RSS is its own: starts local mode in
 * process (resource manager, coordinator, a worker whose task groups run in worker threads, over
 * gRPC on loopback, as `tideway run` does), submits the job, waits for it to finish and prints
 * one JSON line: rows read and written (the job's metrics), the job's run time (its start and
 * finish timestamps), the wall time of submit-to-finish, the process's peak RSS, and its CPU time
 * (all threads) from submit to finish.
 *
 * usage: node --import tsx [--conditions=source] bench/job-case.ts <job.conf>
 * Without `--conditions=source` only this file goes through tsx: Tideway's packages and its task
 * threads run from their build (dist), as `tideway run` does when the build is current.
 */
import { readFileSync } from 'node:fs';
import { JobClient } from '@tideway/client';
import { startLocalCluster } from '@tideway/cli';
import { loadEngineConfig } from '@tideway/config';
import { JobStatus, jobStatusToJSON, type JobEvent } from '@tideway/contracts';

const file = process.argv[2];
if (!file) throw new Error('usage: job-case.ts <job.conf>');
const engine = loadEngineConfig({ file: new URL('../deploy/seatunnel.yaml', import.meta.url).pathname, sets: [] });
const cluster = await startLocalCluster(engine);
const client = new JobClient(cluster.coordinatorAddress);
try {
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  const { jobId } = await client.submit({ configText: readFileSync(file, 'utf8'), configFile: file, format: 'hocon' });
  const last: JobEvent = await client.watch(jobId, () => {}, 1000);
  const wallMs = performance.now() - wallStart;
  const cpu = process.cpuUsage(cpuStart);
  const job = last.job!;
  if (job.status !== JobStatus.FINISHED) throw new Error(`job ${jobId} ended ${jobStatusToJSON(job.status)}: ${job.error?.message ?? ''}`);
  const final = await client.metrics(jobId);
  const runMs = job.finishTimeMs - job.startTimeMs;
  process.stdout.write(
    `${JSON.stringify({
      rowsRead: final.sourceReceivedCount,
      rowsWritten: final.sinkWriteCount,
      runMs,
      wallMs: Math.round(wallMs),
      maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      // CPU time of every thread of the process from submit to finish (less sensitive to a busy machine than run time).
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    })}\n`,
  );
} finally {
  client.close();
  await cluster.stop();
}
