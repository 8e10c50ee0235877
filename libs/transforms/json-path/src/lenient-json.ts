/**
 * JSON text to JavaScript values, as leniently as SeaTunnel's JsonPath transform reads it
 * (Jayway JsonPath over json-smart in permissive mode): besides strict JSON it takes unquoted
 * keys and values (`{data: {name: this is a string}}`), single-quoted strings, and keeps
 * integers beyond 2^53 exact as bigint. Strict JSON goes through the native parser first.
 */

/** JSON that could not be read; `message` says where. */
export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

const LONG_DIGITS = /\d{16,}/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export function parseLenientJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // fall through to the lenient reader
    }
  }
  const reader = new LenientReader(text);
  const value = reader.value();
  reader.end();
  return value;
}

/** A number token as a value: exact integers stay exact (bigint when beyond 2^53). */
function numberValue(token: string): number | bigint {
  if (!/[.eE]/.test(token)) {
    const n = Number(token);
    return Number.isSafeInteger(n) ? n : BigInt(token);
  }
  return Number(token);
}

class LenientReader {
  private pos = 0;
  constructor(private readonly text: string) {}

  end(): void {
    this.skipSpace();
    if (this.pos < this.text.length) this.fail('unexpected text after the value');
  }

  value(): unknown {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"' || c === "'") return this.quoted(c);
    if (c === undefined) this.fail('a value is missing');
    return this.bare(false);
  }

  private fail(what: string): never {
    throw new JsonSyntaxError(`${what} at position ${this.pos}`);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      const c = this.text[this.pos];
      const key = c === '"' || c === "'" ? this.quoted(c) : String(this.bare(true));
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail(`':' expected after key '${key}'`);
      this.pos++;
      out[key] = this.value();
      this.skipSpace();
      const sep = this.text[this.pos++];
      if (sep === '}') return out;
      if (sep !== ',') this.fail("',' or '}' expected");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipSpace();
      const sep = this.text[this.pos++];
      if (sep === ']') return out;
      if (sep !== ',') this.fail("',' or ']' expected");
    }
  }

  private quoted(quote: string): string {
    let out = '';
    this.pos++;
    while (this.pos < this.text.length) {
      const c = this.text[this.pos++];
      if (c === quote) return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.text[this.pos++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          const hex = this.text.slice(this.pos, this.pos + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 4;
          break;
        }
        default:
          if (e === undefined) this.fail('unterminated string');
          out += e;
      }
    }
    this.fail('unterminated string');
  }

  /** An unquoted token: up to the next structural character, trimmed; literals become values. */
  private bare(isKey: boolean): unknown {
    const start = this.pos;
    const stops = isKey ? ':' : ',}]';
    while (this.pos < this.text.length && !stops.includes(this.text[this.pos]) && !(isKey && /[{[]/.test(this.text[this.pos]))) this.pos++;
    const token = this.text.slice(start, this.pos).trim();
    if (token === '') this.fail(isKey ? 'a key is missing' : 'a value is missing');
    if (isKey) return token;
    if (token === 'true') return true;
    if (token === 'false') return false;
    if (token === 'null') return null;
    if (NUMBER.test(token)) return numberValue(token);
    return token;
  }
}
