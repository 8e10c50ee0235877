/**
 * The answers of the REST API (SeaTunnel's v2 shapes) that the tests read, and typed stand-ins
 * for vitest's asymmetric matchers, which vitest types as `any`.
 */
import { expect } from 'vitest';

/** An error answer. */
export interface RestFailure {
  status: 'fail';
  message: string;
}

/** /submit-job's answer. */
export interface SubmittedJob {
  jobId: string;
  jobName: string;
}

/** /job-info/<id> and /running-job/<id> (the fields the tests read). */
export interface JobInfo {
  jobId: string;
  jobName: string;
  jobStatus: string;
  jobDag: { vertexInfoMap: unknown[]; pipelineEdges: Record<string, unknown>; envOptions: Record<string, string> };
  metrics: { SourceReceivedCount: string; SinkWriteCount: string };
}

/** /overview. */
export interface Overview {
  totalSlot: string;
  unassignedSlot: string;
  workers: string;
  works: string;
  runningJobs: string;
  finishedJobs: string;
  failedJobs: string;
  cancelledJobs: string;
}

/** A string matching `pattern`, inside an expected value. */
export const matching = (pattern: RegExp | string): unknown => expect.stringMatching(pattern);
/** A string containing `text`, inside an expected value. */
export const containing = (text: string): unknown => expect.stringContaining(text);
/** Any value made by `type` (Number, String, ...), inside an expected value. */
export const anyOf = (type: abstract new (...args: never[]) => unknown): unknown => expect.any(type);
