import { SqlError } from './sql-error.js';

/** A token of SeaTunnel's SELECT dialect, with its offset in the query for error messages. */
export interface Token {
  readonly kind: 'ident' | 'quoted' | 'number' | 'string' | 'op' | 'eof';
  /** Identifier text (unquoted), string contents, number text or operator. */
  readonly text: string;
  readonly pos: number;
}

const TWO_CHAR_OPS = new Set(['<=', '>=', '<>', '!=', '||', '==']);
const ONE_CHAR_OPS = '=<>+-*/%(),.[];';

/** Splits a query into tokens; comments (`--`, `/* *\/`) and whitespace are dropped. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new SqlError('unterminated comment', sql, i);
      i = end + 2;
      continue;
    }
    const start = i;
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(sql[i])) i++;
      tokens.push({ kind: 'ident', text: sql.slice(start, i), pos: start });
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(sql[i + 1] ?? ''))) {
      while (i < n && isDigit(sql[i])) i++;
      if (sql[i] === '.' && isDigit(sql[i + 1] ?? '')) {
        i++;
        while (i < n && isDigit(sql[i])) i++;
      } else if (sql[i] === '.' && !isIdentStart(sql[i + 1] ?? '')) {
        i++;
      }
      if ((sql[i] === 'e' || sql[i] === 'E') && /[0-9+-]/.test(sql[i + 1] ?? '')) {
        i += 2;
        while (i < n && isDigit(sql[i])) i++;
      }
      tokens.push({ kind: 'number', text: sql.slice(start, i), pos: start });
      continue;
    }
    if (c === "'") {
      let text = '';
      i++;
      for (;;) {
        if (i >= n) throw new SqlError('unterminated string literal', sql, start);
        if (sql[i] === "'") {
          if (sql[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += sql[i];
        i++;
      }
      tokens.push({ kind: 'string', text, pos: start });
      continue;
    }
    if (c === '"' || c === '`') {
      const end = sql.indexOf(c, i + 1);
      if (end < 0) throw new SqlError('unterminated quoted identifier', sql, start);
      tokens.push({ kind: 'quoted', text: sql.slice(i + 1, end), pos: start });
      i = end + 1;
      continue;
    }
    const two = sql.slice(i, i + 2);
    if (TWO_CHAR_OPS.has(two)) {
      tokens.push({ kind: 'op', text: two === '==' ? '=' : two, pos: start });
      i += 2;
      continue;
    }
    if (ONE_CHAR_OPS.includes(c)) {
      tokens.push({ kind: 'op', text: c, pos: start });
      i++;
      continue;
    }
    throw new SqlError(`unexpected character '${c}'`, sql, start);
  }
  tokens.push({ kind: 'eof', text: '', pos: n });
  return tokens;
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === '$' || c > '\u007f';
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || isDigit(c);
}
