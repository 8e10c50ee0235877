import { describe, it } from 'vitest';
import { SINK_CHECK_FUNCTIONS } from './sink-checks.js';
import { SINK_CHECKS, SINK_CHECK_TITLES, type SinkSubject } from './subject.js';

export interface SinkContractOptions {
  /** Per-check timeout in ms (default 120 s: the checks run many short jobs against real servers). */
  readonly timeout?: number;
  /** When set, every check is skipped with this reason (e.g. a peer that cannot be fetched outside CI). */
  readonly skip?: string | false;
}

/**
 * Registers the sink contract as vitest tests: a `describe` named after the subject with one
 * `it` per check; a check the subject marks not applicable is registered as skipped, its reason
 * in the test's name. Targets are made only when a check runs (subject.target), so servers the
 * file's beforeAll starts are up by then.
 */
export function sinkContract(subject: SinkSubject, options: SinkContractOptions = {}): void {
  describe(`sink contract: ${subject.name}`, () => {
    for (const check of SINK_CHECKS) {
      const reason = subject.notApplicable?.[check];
      const title = `${check}: ${SINK_CHECK_TITLES[check]}`;
      if (reason !== undefined) {
        it.skip(`${title} (not applicable: ${reason})`, () => undefined);
        continue;
      }
      const run = options.skip ? it.skip : it;
      run(title, () => SINK_CHECK_FUNCTIONS[check](subject), options.timeout ?? 120_000);
    }
  });
}
