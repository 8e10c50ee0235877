import { ErrorCode } from '@tideway/common';
import { configErrorAt } from './syntax-error.js';

/**
 * What a job config may weigh (tideway.limits). The parser and the resolver recurse, so the
 * depth limit is what keeps a hostile config from overflowing the stack; the size budget keeps
 * `${...}` substitutions from doubling a few lines into gigabytes (the "billion laughs").
 */
export interface ConfigLimits {
  /** UTF-8 bytes of the text (and of its `-i` variables); also the budget of resolution. */
  readonly maxBytes: number;
  /** Keys (and list indices) on the path to any value, and links in a chain of substitutions. */
  readonly maxDepth: number;
}

/** The defaults of tideway.limits.max-config-bytes and max-config-depth. */
export const DEFAULT_CONFIG_LIMITS: ConfigLimits = { maxBytes: 4 * 1024 * 1024, maxDepth: 64 };

/** The refusal of a config nested past the depth limit, at `file:line`. */
export function tooDeep(file: string, line: number | undefined, maxDepth: number, what = 'nests objects and lists'): Error {
  return configErrorAt(
    ErrorCode.CONFIG_TOO_LARGE,
    file,
    line,
    `the config ${what} deeper than ${maxDepth} levels (tideway.limits.max-config-depth)`,
  );
}

/**
 * Counts the work of resolving substitutions and placeholders (values visited, characters
 * and list items made) and refuses a config whose resolution goes past the budget.
 */
export class ResolveBudget {
  private spent = 0;

  constructor(
    private readonly file: string,
    private readonly limit: number,
  ) {}

  spend(units: number, line: number | undefined): void {
    this.spent += units;
    if (this.spent > this.limit) {
      throw configErrorAt(
        ErrorCode.CONFIG_TOO_LARGE,
        this.file,
        line,
        `resolving the config's \${...} substitutions makes it larger than ${this.limit} (tideway.limits.max-config-bytes; every value and every character counts)`,
      );
    }
  }
}
