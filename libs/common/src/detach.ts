import { logger } from './logger.js';

const log = logger('detached');

/**
 * Lets work run on without anyone awaiting it, its failure handled: a rejection goes to
 * `onError` (by default a warning naming `what`) instead of becoming an unhandled rejection,
 * which would end the process. A synchronous throw of the call that made `work` has happened
 * already and still reaches the caller. This is the one way to leave a promise unawaited
 * (lint: no-floating-promises with ignoreVoid off, so `void promise` is refused).
 */
export function detach(work: unknown, what: string, onError?: (err: unknown) => void): void {
  Promise.resolve(work).catch(
    onError ?? ((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, `${what} failed`)),
  );
}
