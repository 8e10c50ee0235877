import type { SerializedError } from '@tideway/common';

/**
 * Errors that a restart cannot cure: the same rows, config or assertion fail the same way
 * again. SeaTunnel restarts on every error and so burns its restore attempts (and time) on
 * them; Tideway fails the job at once with the real cause.
 */
const DETERMINISTIC = [/^TW-CONFIG-/, /^TW-SQL-/, /^TW-SCHEMA-/, /^TW-DATA-/, /^TW-ASSERT-/];

export function isDeterministic(error: SerializedError): boolean {
  return DETERMINISTIC.some((re) => re.test(error.code));
}

export interface RetrySettings {
  /** env job.retry.times: restarts allowed since the last completed checkpoint. */
  retryTimes: number;
  /** env job.retry.interval.seconds, in ms: pause before a restart. */
  retryIntervalMs: number;
}

/** Whether a failed pipeline restarts, given the failures since its last completed checkpoint. */
export function shouldRestart(error: SerializedError, failuresSinceCheckpoint: number, settings: RetrySettings): boolean {
  return !isDeterministic(error) && failuresSinceCheckpoint < settings.retryTimes;
}
