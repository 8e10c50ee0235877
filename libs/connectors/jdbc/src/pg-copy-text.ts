import { keepValue, type ValueDecoder } from './value-codec.js';

const BACKSLASH = 92;

/** The characters COPY's text format writes after a backslash (besides octal and \x escapes). */
const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * Undoes COPY text-format escaping: `\\`, `\n`, `\t`, ..., `\123` (octal) and `\x4f` (hex);
 * any other escaped character stands for itself, as PostgreSQL reads it.
 */
export function unescapeCopyText(s: string): string {
  let out = '';
  let from = 0;
  let i = s.indexOf('\\');
  while (i >= 0 && i < s.length - 1) {
    out += s.slice(from, i);
    const c = s[i + 1];
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      out += simple;
      from = i + 2;
    } else if (c >= '0' && c <= '7') {
      const m = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))![0];
      out += String.fromCharCode(parseInt(m, 8) & 0xff);
      from = i + 1 + m.length;
    } else if (c === 'x' && /^[0-9a-fA-F]/.test(s.slice(i + 2, i + 3))) {
      const m = /^[0-9a-fA-F]{1,2}/.exec(s.slice(i + 2, i + 4))![0];
      out += String.fromCharCode(parseInt(m, 16));
      from = i + 2 + m.length;
    } else {
      out += c;
      from = i + 2;
    }
    i = s.indexOf('\\', from);
  }
  return out + s.slice(from);
}

/**
 * Turns COPY's text format (`COPY ... TO STDOUT`) into decoded rows: the caller hands it runs
 * of complete lines decoded once (pg-copy-reader.ts does so per socket chunk), and fields are
 * slices of that one string. Far less work per value than a driver that decodes every field of
 * every row message separately.
 */
export class CopyTextRowParser {
  /** Per column: whether its decoder is keepValue, so the field is stored without a call (a call site with a decoder per column is megamorphic). */
  private readonly keeps: Uint8Array;

  constructor(private readonly decoders: readonly ValueDecoder[]) {
    this.keeps = Uint8Array.from(decoders, (d) => (d === keepValue ? 1 : 0));
  }

  /** Parses complete lines (`text` ends with a newline) into `out`. */
  parseText(text: string, out: unknown[][]): void {
    const decoders = this.decoders;
    const keeps = this.keeps;
    const n = decoders.length;
    const lastCol = n - 1;
    const len = text.length;
    let pos = 0;
    // Where the next backslash is: a line before it has no NULL (\N) and no escapes, so its
    // fields go straight to their decoders.
    let nextBackslash = text.indexOf('\\');
    if (nextBackslash < 0) nextBackslash = len;
    // The next tab at or after `pos` (-1: none left); the one found past a line's last field
    // is the next line's first separator, so no byte is scanned twice.
    let tab = -2;
    while (pos < len) {
      const lineEnd = text.indexOf('\n', pos);
      if (nextBackslash < pos) {
        nextBackslash = text.indexOf('\\', pos);
        if (nextBackslash < 0) nextBackslash = len;
      }
      const plain = nextBackslash > lineEnd;
      const row = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        if (tab !== -1 && tab < pos) tab = text.indexOf('\t', pos);
        const sep = tab >= 0 && tab < lineEnd;
        if (sep !== i < lastCol) throw this.shapeError(text, pos, lineEnd);
        const end = sep ? tab : lineEnd;
        if (!plain) row[i] = this.field(text, pos, end, i);
        else if (keeps[i] === 1) row[i] = text.slice(pos, end);
        else row[i] = decoders[i](text.slice(pos, end));
        pos = end + 1;
      }
      out.push(row);
    }
  }

  private field(text: string, start: number, end: number, i: number): unknown {
    if (end - start === 2 && text.charCodeAt(start) === BACKSLASH && text.charCodeAt(start + 1) === 78 /* N */) return null;
    let raw = text.slice(start, end);
    if (raw.indexOf('\\') >= 0) raw = unescapeCopyText(raw);
    return this.keeps[i] === 1 ? raw : this.decoders[i](raw);
  }

  private shapeError(text: string, pos: number, lineEnd: number): Error {
    const start = text.lastIndexOf('\n', pos - 1) + 1;
    const line = text.slice(start, lineEnd < 0 ? undefined : lineEnd);
    const fields = line.split('\t').length;
    return new Error(`COPY output has a row of ${fields} fields where ${this.decoders.length} columns were expected`);
  }
}
