import { JobServiceClient, type JobEvent, type SubmitJobRequest } from '@tideway/contracts';
import { call, clientOptions, fromServiceError, insecure } from '@tideway/rpc';

/** A thin promise API over JobService. */
export class JobClient {
  readonly raw: JobServiceClient;

  constructor(address: string) {
    this.raw = new JobServiceClient(address, insecure, clientOptions);
  }

  submit(req: Partial<SubmitJobRequest> & { configText: string }) {
    return call(this.raw.submitJob, this.raw, { configFile: '', format: '', variables: {}, jobName: '', jobId: '', restoreJobId: '', ...req }, { deadlineMs: 120_000 });
  }

  plan(req: Partial<SubmitJobRequest> & { configText: string }) {
    return call(this.raw.planJob, this.raw, { configFile: '', format: '', variables: {}, jobName: '', jobId: '', restoreJobId: '', ...req }, { deadlineMs: 120_000 });
  }

  get(jobId: string) {
    return call(this.raw.getJob, this.raw, { jobId }, { deadlineMs: 10_000 });
  }

  list() {
    return call(this.raw.listJobs, this.raw, {}, { deadlineMs: 10_000 });
  }

  cancel(jobId: string) {
    return call(this.raw.cancelJob, this.raw, { jobId }, { deadlineMs: 10_000 });
  }

  savepoint(jobId: string) {
    return call(this.raw.savepointJob, this.raw, { jobId }, { deadlineMs: 600_000 });
  }

  metrics(jobId: string) {
    return call(this.raw.getJobMetrics, this.raw, { jobId }, { deadlineMs: 10_000 });
  }

  overview() {
    return call(this.raw.getClusterOverview, this.raw, {}, { deadlineMs: 10_000 });
  }

  /** Follows a job until it ends; `onEvent` sees every event; resolves with the last one. */
  watch(jobId: string, onEvent: (e: JobEvent) => void, intervalMs = 1000): Promise<JobEvent> {
    return new Promise((resolve, reject) => {
      let last: JobEvent | undefined;
      const stream = this.raw.watchJob({ jobId, intervalMs });
      stream.on('data', (e: JobEvent) => {
        last = e;
        onEvent(e);
      });
      stream.on('error', (err) => reject(fromServiceError(err)));
      stream.on('end', () => (last ? resolve(last) : reject(new Error(`the watch of job ${jobId} ended without news`))));
    });
  }

  close(): void {
    this.raw.close();
  }
}
