import { pino, type Logger, type LoggerOptions } from 'pino';
import { redactText } from './secrets.js';

export type { Logger } from 'pino';

/**
 * The process-wide logger. Structured JSON to stderr; level from TIDEWAY_LOG_LEVEL
 * (default `warn`, so normal operation is quiet). Children carry job/pipeline/task ids.
 */
let root: Logger | undefined;

export function rootLogger(): Logger {
  if (!root) {
    const options: LoggerOptions = {
      level: process.env.TIDEWAY_LOG_LEVEL ?? 'warn',
      base: { pid: process.pid },
      // Every line is masked as written: a logged error, config or URL never carries a secret.
      hooks: { streamWrite: redactText },
    };
    root = pino(options, pino.destination({ fd: 2, sync: true }));
  }
  return root;
}

/** A child logger for one component, e.g. `logger('coordinator', { jobId })`. */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return rootLogger().child({ component, ...bindings });
}
