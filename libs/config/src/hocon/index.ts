/**
 * A small HOCON parser for SeaTunnel job configs: keeps line numbers on every key, keeps
 * repeated plugin blocks in source/transform/sink apart, and applies SeaTunnel's job-variable
 * rules. No maintained HOCON library does all three (see docs: stack.md "HOCON job configs").
 */
import { parseHocon, type HoconParseOptions } from './parser.js';
import { resolveSubstitutions } from './resolver.js';
import { checkJobVariableNames, substituteStringPlaceholders } from './job-variables.js';
import type { HObject } from './values.js';

export interface HoconLoadOptions extends HoconParseOptions {
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
  checkJobVariableNames(variables, file);
  const root = parseHocon(text, { ...options, file });
  resolveSubstitutions(root, { file, variables, env: options.env });
  substituteStringPlaceholders(root, variables);
  return root;
}

export { parseHocon, setPath, type HoconParseOptions } from './parser.js';
export { resolveSubstitutions, type ResolveOptions } from './resolver.js';
export { RESERVED_PLACEHOLDERS, jobVariableValue, substituteStringPlaceholders } from './job-variables.js';
export { toPlain, type PlainWithLines } from './to-plain.js';
export { tokenize, type Token, type TokenKind } from './tokenizer.js';
export * from './values.js';
