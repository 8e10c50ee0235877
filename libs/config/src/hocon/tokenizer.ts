import { hoconSyntaxError } from './syntax-error.js';

/** Token kinds of HOCON (and of JSON, which is a subset). */
export type TokenKind = '{' | '}' | '[' | ']' | ',' | ':' | '=' | '+=' | 'newline' | 'ws' | 'quoted' | 'unquoted' | 'subst' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Text: the decoded string for `quoted`, the raw text for `unquoted` and `ws`. */
  readonly text: string;
  readonly line: number;
  readonly col: number;
  /** For `subst`: the path, split on unquoted dots. */
  readonly path?: readonly string[];
  /** For `subst`: `${?path}`. */
  readonly optional?: boolean;
}

/**
 * Characters that end an unquoted string (HOCON.md "Unquoted strings"). `/` is allowed unless
 * it starts `//`.
 */
const UNQUOTED_FORBIDDEN = new Set('$"{}[]:=,+#`^?!@*&\\'.split(''));

function isWhitespace(c: string): boolean {
  // HOCON counts Unicode space separators and BOM as whitespace; newline is its own token.
  return c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\uFEFF' || c === '\u00A0' || /\p{Zs}/u.test(c);
}

/**
 * Splits HOCON text into tokens with 1-based line and column. Comments are dropped (the
 * newline after them stays, it separates fields). In `json` mode comments, unquoted text
 * other than true/false/null/numbers, substitutions and `=`/`+=` are syntax errors.
 */
export function tokenize(text: string, file: string, json = false): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  const n = text.length;

  const fail = (what: string, l = line, c = col): never => {
    throw hoconSyntaxError(file, l, c, what);
  };
  const advance = (count: number): void => {
    for (let k = 0; k < count; k++) {
      if (text[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };

  while (i < n) {
    const c = text[i];
    const startLine = line;
    const startCol = col;
    const push = (kind: TokenKind, tokenText: string, extra: Partial<Token> = {}): void => {
      tokens.push({ kind, text: tokenText, line: startLine, col: startCol, ...extra });
    };

    if (c === '\n') {
      push('newline', '\n');
      advance(1);
      continue;
    }
    if (isWhitespace(c)) {
      let j = i;
      while (j < n && text[j] !== '\n' && isWhitespace(text[j])) j++;
      const ws = text.slice(i, j);
      advance(j - i);
      push('ws', ws);
      continue;
    }
    if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      if (json) fail('JSON has no comments');
      while (i < n && text[i] !== '\n') advance(1);
      continue;
    }
    if (c === '{' || c === '}' || c === '[' || c === ']' || c === ',' || c === ':' || c === '=') {
      if (json && c === '=') fail("expected ':' (JSON uses ':' between key and value)");
      push(c, c);
      advance(1);
      continue;
    }
    if (c === '+' && text[i + 1] === '=') {
      if (json) fail("'+=' is not JSON");
      push('+=', '+=');
      advance(2);
      continue;
    }
    if (c === '"') {
      if (!json && text.startsWith('"""', i)) {
        // Triple-quoted: raw text up to the first """ not followed by another quote; extra
        // quotes before the closing three belong to the string (HOCON.md "Multi-line strings").
        const end = text.indexOf('"""', i + 3);
        if (end < 0) fail('expected the closing """ of a multi-line string');
        let close = end;
        while (text[close + 3] === '"') close++;
        const value = text.slice(i + 3, close);
        advance(close + 3 - i);
        push('quoted', value);
        continue;
      }
      advance(1);
      let value = '';
      for (;;) {
        if (i >= n || text[i] === '\n') fail("expected a closing quote '\"' before the end of the line", startLine, startCol);
        const ch = text[i];
        if (ch === '"') {
          advance(1);
          break;
        }
        if (ch === '\\') {
          const e = text[i + 1];
          const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
          if (e !== undefined && simple[e] !== undefined) {
            value += simple[e];
            advance(2);
          } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            advance(6);
          } else fail(`expected a valid escape after '\\' (one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX), found '\\${e ?? ''}'`);
          continue;
        }
        value += ch;
        advance(1);
      }
      push('quoted', value);
      continue;
    }
    if (c === '$') {
      if (json) fail('substitutions (${...}) are not JSON');
      if (text[i + 1] !== '{') fail("expected '{' after '$' (a substitution is written ${path})");
      const optional = text[i + 2] === '?';
      const close = text.indexOf('}', i);
      const nl = text.indexOf('\n', i);
      if (close < 0 || (nl >= 0 && nl < close)) fail("expected '}' closing the substitution");
      const inner = text.slice(i + (optional ? 3 : 2), close);
      const path = parseSubstitutionPath(inner, file, startLine, startCol);
      const raw = text.slice(i, close + 1);
      advance(close + 1 - i);
      push('subst', raw, { path, optional });
      continue;
    }
    // Unquoted text.
    let j = i;
    while (j < n) {
      const ch = text[j];
      if (ch === '\n' || isWhitespace(ch) || UNQUOTED_FORBIDDEN.has(ch)) break;
      if (ch === '/' && text[j + 1] === '/') break;
      j++;
    }
    if (j === i) fail(`unexpected character '${c}'`);
    const word = text.slice(i, j);
    if (json && !/^(true|false|null|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)$/.test(word)) {
      fail(`expected a JSON value (a quoted string, number, true, false or null), found '${word}'`);
    }
    advance(j - i);
    push('unquoted', word);
  }
  tokens.push({ kind: 'eof', text: '', line, col });
  return tokens;
}

/**
 * Parses the path inside `${...}`: unquoted elements split on '.', quoted elements kept whole
 * (`${"a.b".c}` is ["a.b", "c"]). Whitespace around the path is ignored.
 */
function parseSubstitutionPath(inner: string, file: string, line: number, col: number): string[] {
  const s = inner.trim();
  if (s === '') throw hoconSyntaxError(file, line, col, 'expected a path inside ${}');
  const parts: string[] = [''];
  let k = 0;
  while (k < s.length) {
    const ch = s[k];
    if (ch === '"') {
      const end = s.indexOf('"', k + 1);
      if (end < 0) throw hoconSyntaxError(file, line, col, 'expected a closing quote in the substitution path');
      parts[parts.length - 1] += s.slice(k + 1, end);
      k = end + 1;
    } else if (ch === '.') {
      parts.push('');
      k++;
    } else if (UNQUOTED_FORBIDDEN.has(ch) && ch !== '"') {
      throw hoconSyntaxError(
        file,
        line,
        col,
        ch === ':'
          ? `'${s}' is not a valid substitution path: a default ('\${name:default}') works only inside a quoted string`
          : `unexpected character '${ch}' in the substitution path '${s}'`,
      );
    } else {
      parts[parts.length - 1] += ch;
      k++;
    }
  }
  if (parts.some((p) => p === '')) throw hoconSyntaxError(file, line, col, `'${s}' is not a valid substitution path (empty element)`);
  return parts;
}
