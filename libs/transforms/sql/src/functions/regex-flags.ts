import { SqlValueError } from '../compiled.js';
import { memo } from './registry.js';

/**
 * A regex with SeaTunnel's (H2's) flag letters: i case-insensitive, c case-sensitive,
 * n dot matches newline, m multiline; later letters win. Compiled once per pattern and flags.
 */
export const regexWithFlags = memo((key: string): RegExp => {
  const cut = key.indexOf('\u0000');
  const pattern = key.slice(0, cut);
  const flagText = key.slice(cut + 1);
  let ci = false;
  let dotAll = false;
  let multi = false;
  for (const f of flagText) {
    if (f === 'i') ci = true;
    else if (f === 'c') ci = false;
    else if (f === 'n') dotAll = true;
    else if (f === 'm') multi = true;
    else throw new SqlValueError(`invalid regular expression flag '${f}' in '${flagText}' (allowed: i, c, n, m)`);
  }
  try {
    return new RegExp(pattern, `g${ci ? 'i' : ''}${dotAll ? 's' : ''}${multi ? 'm' : ''}`);
  } catch (err) {
    throw new SqlValueError(`invalid regular expression '${pattern}': ${(err as Error).message}`);
  }
});

export function regex(pattern: string, flags: string | null | undefined): RegExp {
  const r = regexWithFlags(`${pattern}\u0000${flags ?? ''}`);
  r.lastIndex = 0;
  return r;
}
