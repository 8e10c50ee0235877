import { ErrorCode } from '@tideway/common';
import { configErrorAt } from './syntax-error.js';
import { describeKind, mergeValues, type HValue, type HWhitespace } from './values.js';

/**
 * Joins the pieces of a value concatenation whose substitutions are resolved (HOCON.md "Value
 * concatenation"): scalars and the whitespace between them become one string (numbers and
 * booleans as written); objects merge in order; lists are appended. Mixing kinds is an error.
 */
export function concatenateResolved(pieces: readonly (HValue | HWhitespace)[], file: string, line: number): HValue {
  const values = pieces.filter((p): p is HValue => p.kind !== 'ws');
  if (values.length === 0) return { kind: 'scalar', value: '', raw: '', line };
  const first = values[0];
  const kind = first.kind;
  for (const v of values) {
    if (v.kind !== kind) {
      throw configErrorAt(
        ErrorCode.CONFIG_SYNTAX,
        file,
        line,
        `cannot concatenate ${describeKind(first)} with ${describeKind(v)} (only strings, only objects or only lists can be joined)`,
      );
    }
  }
  if (kind === 'scalar') {
    if (values.length === 1 && pieces.length === 1) return first;
    let text = '';
    for (const p of pieces) text += p.kind === 'ws' ? p.text : (p as { raw: string }).raw;
    return { kind: 'scalar', value: text, raw: text, line };
  }
  if (kind === 'object') return values.reduce((acc, v) => mergeValues(acc, v));
  if (kind === 'list') {
    const items: HValue[] = [];
    // A loop, not push(...items): spreading a long list overflows the stack.
    for (const v of values) if (v.kind === 'list') for (const item of v.items) items.push(item);
    return { kind: 'list', items, line };
  }
  throw configErrorAt(ErrorCode.CONFIG_SYNTAX, file, line, `cannot concatenate ${describeKind(first)}`);
}
