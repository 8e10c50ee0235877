import type {
  CancelJobResponse,
  ClusterOverview,
  JobEvent,
  JobInfo,
  JobMetrics,
  ListJobsResponse,
  SavepointJobResponse,
  SubmitJobRequest,
  SubmitJobResponse,
} from '@tideway/contracts';

/**
 * What the REST API needs of JobService, as promises. The CLI's JobClient has this shape, so the
 * REST API talks to the coordinator exactly as the CLI does: over gRPC at the coordinator's
 * address, and (with HA) to whichever coordinator leads, so a follower answers for the leader.
 * Errors are TidewayErrors with the coordinator's codes.
 */
export interface JobApi {
  submit(req: Partial<SubmitJobRequest> & { configText: string }): Promise<SubmitJobResponse>;
  plan(req: Partial<SubmitJobRequest> & { configText: string }): Promise<unknown>;
  get(jobId: string): Promise<JobInfo>;
  list(): Promise<ListJobsResponse>;
  cancel(jobId: string): Promise<CancelJobResponse>;
  savepoint(jobId: string): Promise<SavepointJobResponse>;
  metrics(jobId: string): Promise<JobMetrics>;
  overview(): Promise<ClusterOverview>;
  /**
   * WatchJob: every event until the job ends (across a leader change) or `signal` aborts; the
   * dashboard pushes them to the browser.
   */
  watch(jobId: string, onEvent: (e: JobEvent) => void, intervalMs?: number, signal?: AbortSignal): Promise<unknown>;
}
