import { pino, type Logger, type LoggerOptions } from 'pino';
import { currentJobId, keepJobLine, LOG_LEVELS } from './job-logs.js';
import { redactText } from './secrets.js';

export type { Logger } from 'pino';

/**
 * The process-wide logger. Structured JSON to stderr; level from TIDEWAY_LOG_LEVEL
 * (default `warn`, so normal operation is quiet). Children carry job/pipeline/task ids; a line
 * logged while acting for a job (runForJob, setThreadJob) carries its `jobId` and is also kept in
 * the job's log (job-logs.ts), from `info` up whatever stderr's level.
 */
let root: Logger | undefined;

/** The lowest level any line is made at: stderr's, or info for the per-job logs. */
const JOB_LOG_FLOOR = LOG_LEVELS.info;

const LEADING_LEVEL = /^\{"level":(\d+)/;
const JOB_ID = /"jobId":"(\d+)"/;

/** stderr (at its level) plus the job's log for a line that names a job. */
function destination(stderrLevel: number): { write(line: string): void } {
  const stderr = pino.destination({ fd: 2, sync: true });
  return {
    write(line: string): void {
      const level = Number(LEADING_LEVEL.exec(line)?.[1] ?? 0);
      if (level >= stderrLevel) stderr.write(line);
      const jobId = JOB_ID.exec(line)?.[1];
      if (jobId) keepJobLine(jobId, level, line);
    },
  };
}

export function rootLogger(): Logger {
  if (!root) {
    const wanted = process.env.TIDEWAY_LOG_LEVEL ?? 'warn';
    const stderrLevel = wanted === 'silent' ? Number.POSITIVE_INFINITY : (LOG_LEVELS[wanted] ?? LOG_LEVELS.warn);
    const options: LoggerOptions = {
      // An unknown name goes to pino, which refuses it by name.
      level: wanted !== 'silent' && LOG_LEVELS[wanted] === undefined ? wanted : stderrLevel < JOB_LOG_FLOOR ? wanted : 'info',
      base: { pid: process.pid },
      // Every line is masked as written: a logged error, config or URL never carries a secret.
      hooks: { streamWrite: redactText },
      // The job the code acts for, unless the line names one itself.
      mixin: (obj: object) => {
        const jobId = currentJobId();
        return jobId && !('jobId' in obj) ? { jobId } : {};
      },
    };
    root = pino(options, destination(stderrLevel));
  }
  return root;
}

/** A child logger for one component, e.g. `logger('coordinator', { jobId })`. */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return rootLogger().child({ component, ...bindings });
}
