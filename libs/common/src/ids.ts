import { randomBytes } from 'node:crypto';

/**
 * Job ids are decimal strings like SeaTunnel's (a millisecond timestamp followed by random
 * digits) so they sort by submission time and can be typed by hand.
 */
export function newJobId(now = Date.now()): string {
  const rand = randomBytes(3).readUIntBE(0, 3) % 1_000_000;
  return `${now}${String(rand).padStart(6, '0')}`;
}

/** Identifies one task group of a job: pipeline id (1-based) and the task group index. */
export interface TaskGroupLocation {
  jobId: string;
  pipelineId: number;
  taskGroupIndex: number;
}

export function taskGroupKey(loc: TaskGroupLocation): string {
  return `${loc.jobId}/${loc.pipelineId}/${loc.taskGroupIndex}`;
}
