/**
 * A small HOCON parser for SeaTunnel job configs: keeps line numbers on every key, keeps
 * repeated plugin blocks in source/transform/sink apart, and applies SeaTunnel's job-variable
 * rules. No maintained HOCON library does all three (see docs: stack.md "HOCON job configs").
 */
import { ConfigError, ErrorCode } from '@tideway/common';
import { parseHocon, type HoconParseOptions } from './parser.js';
import { resolveSubstitutions } from './resolver.js';
import { checkJobVariableNames, substituteStringPlaceholders } from './job-variables.js';
import type { HObject } from './values.js';
import { DEFAULT_CONFIG_LIMITS, ResolveBudget, type ConfigLimits } from './limits.js';

export interface HoconLoadOptions extends Omit<HoconParseOptions, 'maxDepth'> {
  /** Size and depth limits (default DEFAULT_CONFIG_LIMITS, as tideway.limits). */
  limits?: ConfigLimits;
  /** `-i key=value` job variables. */
  variables?: Readonly<Record<string, string>>;
  /** Environment variables for `${NAME}` fallbacks (pass `process.env`; default none). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Parses and resolves a HOCON (or JSON) document: syntax, substitutions, then SeaTunnel's
 * placeholder pass over string values. The result has no unresolved nodes left.
 */
export function loadHocon(text: string, options: HoconLoadOptions = {}): HObject {
  const file = options.file ?? '<config>';
  const variables = options.variables ?? {};
  const limits = options.limits ?? DEFAULT_CONFIG_LIMITS;
  checkJobVariableNames(variables, file);
  const bytes =
    Buffer.byteLength(text) + Object.entries(variables).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  if (bytes > limits.maxBytes) {
    throw new ConfigError(
      ErrorCode.CONFIG_TOO_LARGE,
      `the config and its variables are ${bytes} bytes, more than the ${limits.maxBytes} of tideway.limits.max-config-bytes`,
      { place: { file } },
    );
  }
  const budget = new ResolveBudget(file, limits.maxBytes);
  try {
    const root = parseHocon(text, { ...options, file, maxDepth: limits.maxDepth });
    resolveSubstitutions(root, { file, variables, env: options.env, limits, budget });
    substituteStringPlaceholders(root, variables, budget);
    return root;
  } catch (err) {
    // The depth limit keeps recursion well inside the stack; should a config still exhaust
    // it, it is refused like any other bad config instead of failing as an internal error.
    if (err instanceof RangeError) {
      throw new ConfigError(
        ErrorCode.CONFIG_TOO_LARGE,
        `the config is too deeply nested or too large to read (${err.message}); lower its nesting below tideway.limits.max-config-depth (${limits.maxDepth})`,
        { place: { file } },
      );
    }
    throw err;
  }
}

export { parseHocon, setPath, type HoconParseOptions } from './parser.js';
export { resolveSubstitutions, type ResolveOptions } from './resolver.js';
export { RESERVED_PLACEHOLDERS, jobVariableValue, substituteStringPlaceholders } from './job-variables.js';
export { DEFAULT_CONFIG_LIMITS, ResolveBudget, type ConfigLimits } from './limits.js';
export { toPlain, type PlainWithLines } from './to-plain.js';
export { tokenize, type Token, type TokenKind } from './tokenizer.js';
export * from './values.js';
