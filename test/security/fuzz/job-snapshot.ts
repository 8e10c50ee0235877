import type { JobInfo, ListJobsResponse } from '@tideway/contracts';

/**
 * What must not change while the cluster is fuzzed: the job list (ids and statuses) and the
 * running job's state, pipelines, task groups, attempts and fail-overs. Counters, checkpoint
 * times and rates are progress, and may move.
 */
export function jobState(job: JobInfo): unknown {
  return {
    jobId: job.jobId,
    jobName: job.jobName,
    status: job.status,
    startTimeMs: job.startTimeMs,
    error: job.error,
    failovers: job.failovers,
    pipelines: job.pipelines.map((p) => ({
      pipelineId: p.pipelineId,
      status: p.status,
      attempt: p.attempt,
      taskGroups: p.taskGroups.map((t) => ({ index: t.index, state: t.state, workerAddress: t.workerAddress, error: t.error })),
    })),
    envOptions: job.envOptions,
  };
}

export function jobList(list: ListJobsResponse): Array<{ jobId: string; status: number }> {
  return list.jobs.map((j) => ({ jobId: j.jobId, status: j.status }));
}
