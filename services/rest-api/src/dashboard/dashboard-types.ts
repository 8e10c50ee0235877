/**
 * The shapes of the dashboard's list routes, shared by the server and the browser bundle (this
 * file imports nothing, so the bundle can take its types).
 */

/** One row of the dashboard's jobs list: what the list shows, not the whole JobInfo. */
export interface JobRow {
  jobId: string;
  jobName: string;
  status: string;
  jobMode: string;
  submitTimeMs: number;
  finishTimeMs: number;
  error: string;
}

/** A page of the jobs list, newest first. */
export interface JobPage {
  total: number;
  offset: number;
  limit: number;
  jobs: JobRow[];
}
