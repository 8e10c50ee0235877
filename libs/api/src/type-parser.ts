import type { DataType, RowField } from './types.js';
import { Types } from './types.js';

/** A type text that cannot be parsed; `message` names the text and the position. */
export class TypeSyntaxError extends Error {
  override readonly name = 'TypeSyntaxError';
}

const SIMPLE: Record<string, DataType> = {
  null: Types.NULL,
  string: Types.STRING,
  varchar: Types.STRING,
  text: Types.STRING,
  boolean: Types.BOOLEAN,
  bool: Types.BOOLEAN,
  tinyint: Types.TINYINT,
  byte: Types.TINYINT,
  smallint: Types.SMALLINT,
  short: Types.SMALLINT,
  int: Types.INT,
  integer: Types.INT,
  bigint: Types.BIGINT,
  long: Types.BIGINT,
  float: Types.FLOAT,
  real: Types.FLOAT,
  double: Types.DOUBLE,
  bytes: Types.BYTES,
  binary: Types.BYTES,
  date: Types.DATE,
  time: Types.TIME,
  timestamp: Types.TIMESTAMP,
  datetime: Types.TIMESTAMP,
  timestamp_tz: Types.TIMESTAMP_TZ,
};

/**
 * Parses SeaTunnel's type syntax, case-insensitively: `int`, `decimal(38, 18)` (bare
 * `decimal` is decimal(38, 18) as in SeaTunnel), `array<int>`, `map<string, array<int>>`,
 * `row<a int, b string>` (also `row(a int, b string)` / `struct<a:int>`).
 */
export function parseDataType(text: string): DataType {
  const p = new TypeTextParser(text);
  const t = p.type();
  p.skipWs();
  if (!p.atEnd()) p.fail('unexpected text');
  return t;
}

class TypeTextParser {
  private i = 0;
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.i >= this.s.length;
  }

  skipWs(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
  }

  fail(what: string): never {
    throw new TypeSyntaxError(`cannot parse type '${this.s}': ${what} at position ${this.i + 1}`);
  }

  private word(): string {
    this.skipWs();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
    if (!m) this.fail('expected a type name');
    this.i += m[0].length;
    return m[0];
  }

  private ident(): string {
    this.skipWs();
    if (this.s[this.i] === '`' || this.s[this.i] === '"') {
      const q = this.s[this.i];
      const end = this.s.indexOf(q, this.i + 1);
      if (end < 0) this.fail('unterminated quoted name');
      const name = this.s.slice(this.i + 1, end);
      this.i = end + 1;
      return name;
    }
    return this.word();
  }

  private expect(ch: string): void {
    this.skipWs();
    if (this.s[this.i] !== ch) this.fail(`expected '${ch}'`);
    this.i++;
  }

  private peek(): string | undefined {
    this.skipWs();
    return this.s[this.i];
  }

  private int(): number {
    this.skipWs();
    const m = /^\d+/.exec(this.s.slice(this.i));
    if (!m) this.fail('expected a number');
    this.i += m[0].length;
    return Number(m[0]);
  }

  type(): DataType {
    const name = this.word().toLowerCase();
    if (name === 'decimal' || name === 'numeric') {
      if (this.peek() !== '(') return Types.decimal(38, 18);
      this.expect('(');
      const precision = this.int();
      let scale = 0;
      if (this.peek() === ',') {
        this.expect(',');
        scale = this.int();
      }
      this.expect(')');
      if (precision < 1 || precision > 38) this.fail(`decimal precision ${precision} is outside 1..38`);
      if (scale > precision) this.fail(`decimal scale ${scale} is larger than its precision ${precision}`);
      return Types.decimal(precision, scale);
    }
    if (name === 'array') {
      this.expect('<');
      const element = this.type();
      this.expect('>');
      return Types.array(element);
    }
    if (name === 'map') {
      this.expect('<');
      const key = this.type();
      this.expect(',');
      const value = this.type();
      this.expect('>');
      return Types.map(key, value);
    }
    if (name === 'row' || name === 'struct') {
      const open = this.peek();
      if (open !== '<' && open !== '(') this.fail("expected '<' after row");
      const close = open === '<' ? '>' : ')';
      this.expect(open);
      const fields: RowField[] = [];
      if (this.peek() !== close) {
        for (;;) {
          const fname = this.ident();
          if (this.peek() === ':') this.expect(':');
          fields.push({ name: fname, type: this.type() });
          if (this.peek() === ',') {
            this.expect(',');
            continue;
          }
          break;
        }
      }
      this.expect(close);
      return Types.row(fields);
    }
    const simple = SIMPLE[name];
    if (!simple) this.fail(`unknown type '${name}'`);
    // Accept and ignore a length, e.g. varchar(64), timestamp(6), time(3).
    if (this.peek() === '(') {
      this.expect('(');
      this.int();
      this.expect(')');
    }
    return simple;
  }
}
