import { sleep } from '@tideway/common';
import { allRunning, isEnded, maxAttempt, type JobProbe, type JobSample } from './job-probe.js';

/** What a kill or pause did to the job, as far as the wait for rows needs to know. */
export interface Disruption {
  killedAt: number;
  /**
   * Whether the job depends on the process (the leader, a worker running its task groups): rows
   * count as moving again only in a later attempt of its pipelines (or, for a pause, once the
   * process is resumed), since the job's other task groups may go on reading meanwhile.
   */
  disruptive: boolean;
  /** The highest pipeline attempt before the kill. */
  attemptBefore: number;
  /** When a paused process was resumed (SIGCONT), once it was. */
  resumedAt(): number | undefined;
}

/** How the wait ended. */
export type RecoveryOutcome =
  | { kind: 'recovered'; seconds: number; sample: JobSample }
  | { kind: 'job ended'; status: string; sample: JobSample }
  | { kind: 'stuck'; last?: JobSample };

/**
 * Waits until rows move again after a disruption: two samples in a row, both after the
 * disruption is over, where the job and its pipelines run in the same attempt and the rows read
 * grew. The seconds are counted from the kill to the sample that saw the rows grow.
 */
export async function waitRowsMoving(
  probe: Pick<JobProbe, 'sample'>,
  d: Disruption,
  timeoutMs: number,
  signal: AbortSignal,
  intervalMs = 250,
): Promise<RecoveryOutcome> {
  const deadline = d.killedAt + timeoutMs;
  let prev: JobSample | undefined;
  let last: JobSample | undefined;
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    const s = await probe.sample();
    if (s) {
      last = s;
      if (isEnded(s.status)) return { kind: 'job ended', status: s.status, sample: s };
      const resumed = d.resumedAt();
      const over = !d.disruptive || maxAttempt(s) > d.attemptBefore || (resumed !== undefined && s.at >= resumed);
      if (!over || !allRunning(s)) prev = undefined;
      else if (prev && maxAttempt(prev) === maxAttempt(s) && s.rows > prev.rows)
        return { kind: 'recovered', seconds: (s.at - d.killedAt) / 1000, sample: s };
      else prev = s;
    }
    await sleep(intervalMs, signal);
  }
  return { kind: 'stuck', last };
}
