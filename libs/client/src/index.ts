/**
 * Tideway's TypeScript client: JobService as promises, at the leader among the coordinators
 * given (a follower's redirect is followed, a fail-over waited out), with a job watch that
 * carries on across a leader change, bearer tokens and mutual TLS. docs/clients.md.
 */
export { JobClient, type JobClientOptions } from './job-client.js';
export type { TlsFiles } from '@tideway/rpc';
export { ErrorCode, TidewayError } from '@tideway/common';
export {
  JobStatus,
  jobStatusFromJSON,
  jobStatusToJSON,
  type CancelJobResponse,
  type CheckpointJobResponse,
  type ClusterOverview,
  type DrainWorkerResponse,
  type JobEvent,
  type JobInfo,
  type JobMetrics,
  type ListJobsResponse,
  type PlanJobResponse,
  type SavepointJobResponse,
  type StepDownResponse,
  type SubmitJobRequest,
  type SubmitJobResponse,
} from '@tideway/contracts';
