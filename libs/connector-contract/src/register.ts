import { describe, it } from 'vitest';
import { SINK_CHECK_FUNCTIONS } from './sink-checks.js';
import { SOURCE_CHECKS, SOURCE_CHECK_FUNCTIONS, SOURCE_CHECK_TITLES, type SourceSubject } from './source-checks.js';
import { SINK_CHECKS, SINK_CHECK_TITLES, type SinkSubject } from './subject.js';

export interface SinkContractOptions {
  /** Per-check timeout in ms (default 120 s: the checks run many short jobs against real servers). */
  readonly timeout?: number;
  /** When set, every check is skipped with this reason (e.g. a peer that cannot be fetched outside CI). */
  readonly skip?: string | false;
}

/** One `describe` with an `it` per check; a check the subject marks not applicable is skipped, its reason in the test's name. */
function register<C extends string, S extends { name: string; notApplicable?: Partial<Record<C, string>> }>(
  kind: string,
  subject: S,
  checks: readonly C[],
  titles: Record<C, string>,
  run: Record<C, (s: S) => Promise<void>>,
  options: SinkContractOptions,
): void {
  describe(`${kind} contract: ${subject.name}`, () => {
    for (const check of checks) {
      const reason = subject.notApplicable?.[check];
      const title = `${check}: ${titles[check]}`;
      if (reason !== undefined) it.skip(`${title} (not applicable: ${reason})`, () => undefined);
      else (options.skip ? it.skip : it)(title, () => run[check](subject), options.timeout ?? 120_000);
    }
  });
}

/**
 * Registers the sink contract as vitest tests. Targets are made only when a check runs
 * (subject.target), so servers the file's beforeAll starts are up by then.
 */
export function sinkContract(subject: SinkSubject, options: SinkContractOptions = {}): void {
  register('sink', subject, SINK_CHECKS, SINK_CHECK_TITLES, SINK_CHECK_FUNCTIONS, options);
}

/** Registers the source contract as vitest tests, as sinkContract does for sinks. */
export function sourceContract(subject: SourceSubject, options: SinkContractOptions = {}): void {
  register('source', subject, SOURCE_CHECKS, SOURCE_CHECK_TITLES, SOURCE_CHECK_FUNCTIONS, options);
}
