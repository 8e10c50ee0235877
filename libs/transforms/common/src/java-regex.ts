/**
 * SeaTunnel's options take Java regular expressions (java.util.regex). JavaScript's dialect is
 * close; this handles the differences that matter in configs and refuses the rest with a clear
 * reason instead of matching differently:
 * - leading inline flags `(?i)`, `(?s)`, `(?m)` (and combinations) become RegExp flags;
 * - `\Q...\E` quoting becomes escaped text;
 * - `\A` and `\z` become `^` and `$` (without the m flag they mean the same);
 * - possessive quantifiers, atomic groups and `(?x)` have no JavaScript form: an error.
 */
export function compileJavaRegex(pattern: string, extraFlags = ''): RegExp {
  let source = pattern;
  let flags = extraFlags;
  const inline = /^\(\?([a-zA-Z]+)\)/.exec(source);
  if (inline !== null) {
    for (const f of inline[1]) {
      if (f === 'i' || f === 'm' || f === 's') {
        if (!flags.includes(f)) flags += f;
      } else throw new Error(`inline flag (?${f}) has no JavaScript equivalent`);
    }
    source = source.slice(inline[0].length);
  }
  source = source.replace(/\\Q([\s\S]*?)(?:\\E|$)/g, (_m, text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'));
  if (/\(\?>/.test(source)) throw new Error('atomic groups (?>...) are not supported');
  if (/(?<!\\)[*+?}]\+/.test(source)) throw new Error('possessive quantifiers (*+, ++, ?+) are not supported');
  source = source.replace(/(?<!\\)((?:\\\\)*)\\A/g, '$1^').replace(/(?<!\\)((?:\\\\)*)\\z/g, '$1$');
  return new RegExp(source, flags);
}

/** One piece of a compiled Java replacement string. */
type ReplacementPart = string | number | { readonly name: string };

/**
 * A Java replacement string (Matcher.replaceAll): `$n` and `${name}` insert groups, `\x` is a
 * literal x, anything else is literal. Returned as a function for String.prototype.replace, so
 * JavaScript's own `$` patterns play no part. Group references are checked against `regex` now.
 */
export function compileJavaReplacement(replacement: string, regex: RegExp): (match: string, ...rest: unknown[]) => string {
  const groupCount = new RegExp(`${regex.source}|`, regex.flags.replace('g', '')).exec('')!.length - 1;
  const names = new Set(Object.keys(new RegExp(`${regex.source}|`, regex.flags.replace('g', '')).exec('')!.groups ?? {}));
  const parts: ReplacementPart[] = [];
  let literal = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i];
    if (c === '\\') {
      if (i + 1 >= replacement.length) throw new Error('character to be escaped is missing at the end of the replacement');
      literal += replacement[++i];
    } else if (c === '$') {
      if (replacement[i + 1] === '{') {
        const end = replacement.indexOf('}', i + 2);
        const name = end < 0 ? '' : replacement.slice(i + 2, end);
        if (!names.has(name)) throw new Error(`no group named '${name}' in the pattern`);
        parts.push(literal, { name });
        literal = '';
        i = end;
      } else {
        let j = i + 1;
        if (!/[0-9]/.test(replacement[j] ?? '')) throw new Error('a group number or ${name} must follow $ (write \\$ for a literal $)');
        let group = Number(replacement[j]);
        // Like Java: take further digits while the group number stays valid.
        while (/[0-9]/.test(replacement[j + 1] ?? '') && group * 10 + Number(replacement[j + 1]) <= groupCount)
          group = group * 10 + Number(replacement[++j]);
        if (group > groupCount) throw new Error(`no group ${group} in the pattern`);
        parts.push(literal, group);
        literal = '';
        i = j;
      }
    } else literal += c;
  }
  parts.push(literal);
  const compiled = parts.filter((p) => p !== '');
  if (compiled.every((p) => typeof p === 'string')) {
    const text = compiled.join('');
    return () => text;
  }
  return (match: string, ...rest: unknown[]) => {
    let out = '';
    for (const p of compiled) {
      if (typeof p === 'string') out += p;
      else if (typeof p === 'number') out += p === 0 ? match : ((rest[p - 1] as string | undefined) ?? '');
      else {
        const groups = rest[rest.length - 1] as Record<string, string | undefined>;
        out += groups[p.name] ?? '';
      }
    }
    return out;
  };
}
