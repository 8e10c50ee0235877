import { type Logger, textOf } from '@tideway/common';

/** One line a RecordingLogger was given. */
export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/**
 * A hand-written Logger that keeps what it is given, for tests that check what is (and what is
 * never) logged. Implements the calls Tideway makes: (fields, message) or (message).
 */
export function recordingLogger(): { logger: Logger; lines: LoggedLine[]; text: () => string } {
  const lines: LoggedLine[] = [];
  const at =
    (level: LoggedLine['level']) =>
    (a: unknown, b?: unknown): void => {
      if (typeof a === 'string') lines.push({ level, fields: {}, message: a });
      else lines.push({ level, fields: (a ?? {}) as Record<string, unknown>, message: textOf(b ?? '') });
    };
  const logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger } as unknown as Logger;
  return { logger, lines, text: () => JSON.stringify(lines) };
}
