import type { Row } from '@tideway/api';

/**
 * One piece of an argument's text: a literal (index -1, its text and UTF-8 bytes), or the field
 * at `index` of the row, whose `value` gives a safe integer (written in decimal without making
 * a string) or the field's text; null fields are the empty string and never reach it. (One
 * shape for both kinds keeps the encoder's loop monomorphic.)
 */
export interface TextPiece {
  readonly index: number;
  readonly literal: string;
  readonly bytes: Uint8Array;
  readonly value: (v: unknown) => string | number;
}

const NO_BYTES = new Uint8Array(0);
const NO_VALUE = (): string => '';

/** How one command argument is made from a row: its pieces, concatenated. */
export interface ArgText {
  readonly pieces: readonly TextPiece[];
  /** The whole text as a string (for clients that take strings, and for non-ASCII text). */
  text(row: Row): string;
}

export function literalPiece(literal: string): TextPiece {
  return { index: -1, literal, bytes: Buffer.from(literal, 'utf8'), value: NO_VALUE };
}

export function fieldPiece(index: number, value: (v: unknown) => string | number): TextPiece {
  return { index, literal: '', bytes: NO_BYTES, value };
}

/** An argument from pieces (adjacent literals merged). */
export function argText(pieces: readonly TextPiece[]): ArgText {
  const merged: TextPiece[] = [];
  for (const p of pieces) {
    const last = merged.at(-1);
    if (p.index < 0 && last !== undefined && last.index < 0) merged[merged.length - 1] = literalPiece(last.literal + p.literal);
    else if (p.index >= 0 || p.literal !== '') merged.push(p);
  }
  const text = (row: Row): string => {
    let s = '';
    for (const p of merged) {
      if (p.index < 0) {
        s += p.literal;
        continue;
      }
      const v = row.fields[p.index];
      if (v !== null && v !== undefined) s += String(p.value(v));
    }
    return s;
  };
  return { pieces: merged, text };
}

/** A command name with its RESP bulk string, encoded once. */
export interface CommandName {
  readonly name: string;
  readonly head: Uint8Array;
}

export function commandName(name: string): CommandName {
  return { name, head: Buffer.from(`$${Buffer.byteLength(name)}\r\n${name}\r\n`, 'utf8') };
}

/** Where a row's commands go: straight into RESP bytes (RespEncoder) or into argument lists (a client's). */
export interface CommandSink {
  /** Starts a command of `argc` parts, its name included; its arguments follow. */
  begin(name: CommandName, argc: number): void;
  /** The row's key: an argument, remembered for lastKey(). */
  key(t: ArgText, row: Row): void;
  /** The key given last, again. */
  lastKey(): void;
  text(t: ArgText, row: Row): void;
  string(s: string): void;
}

/** Decimal digits of a non-negative safe integer. */
function digitCount(x: number): number {
  let n = 1;
  for (let p = 10; x >= p && n < 16; p *= 10) n++;
  return n;
}

/** Decimal length of a safe integer, its sign included. */
function intLength(x: number): number {
  return x < 0 ? 1 + digitCount(-x) : digitCount(x);
}

const CR = 13;
const LF = 10;

/**
 * RESP commands encoded into one reused Buffer (grown when a batch needs more): arrays of bulk
 * strings, each argument's length computed before its bytes are written, so no argument is
 * first made into a string or Buffer of its own. Text is written byte by byte while it is ASCII;
 * other text is encoded as UTF-8 through a string.
 */
export class RespEncoder implements CommandSink {
  private buf: Buffer;
  /** Bytes encoded. */
  length = 0;
  /** Commands encoded (each gets one reply). */
  commands = 0;
  private keyStart = 0;
  private keyEnd = 0;
  /** Field values of the argument being written (strings or safe integers), reused. */
  private readonly values: (string | number)[] = [];

  constructor(capacity = 16 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(capacity);
  }

  reset(): void {
    this.length = 0;
    this.commands = 0;
  }

  /** The encoded bytes (a view of the buffer, valid until the next reset). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  private ensure(more: number): void {
    const need = this.length + more;
    if (need <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  private int(at: number, x: number): number {
    const buf = this.buf;
    if (x < 0) {
      buf[at++] = 45; // -
      x = -x;
    }
    const end = at + digitCount(x);
    let q = end;
    do {
      const r = x % 10;
      buf[--q] = 48 + r;
      x = (x - r) / 10;
    } while (x > 0);
    return end;
  }

  /** `$<bytes>\r\n` at `at`; returns where the bytes go. */
  private header(at: number, bytes: number): number {
    this.buf[at++] = 36; // $
    at = this.int(at, bytes);
    this.buf[at++] = CR;
    this.buf[at++] = LF;
    return at;
  }

  begin(name: CommandName, argc: number): void {
    this.ensure(name.head.length + 24);
    const buf = this.buf;
    let at = this.length;
    buf[at++] = 42; // *
    at = this.int(at, argc);
    buf[at++] = CR;
    buf[at++] = LF;
    buf.set(name.head, at);
    this.length = at + name.head.length;
    this.commands++;
  }

  key(t: ArgText, row: Row): void {
    const start = this.length;
    this.text(t, row);
    this.keyStart = start;
    this.keyEnd = this.length;
  }

  lastKey(): void {
    const n = this.keyEnd - this.keyStart;
    this.ensure(n);
    this.buf.copyWithin(this.length, this.keyStart, this.keyEnd);
    this.length += n;
  }

  text(t: ArgText, row: Row): void {
    const pieces = t.pieces;
    if (pieces.length === 1 && pieces[0].index >= 0) {
      // One field (value_field, a hash field): no lengths to add up.
      const v = row.fields[pieces[0].index];
      const x = v === null || v === undefined ? '' : pieces[0].value(v);
      if (typeof x === 'string') this.string(x);
      else this.integer(x);
      return;
    }
    const values = this.values;
    // The length, assuming ASCII text (one byte a character); the first other character
    // found while writing sends the argument through its string instead.
    let bytes = 0;
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i];
      if (p.index < 0) {
        bytes += p.bytes.length;
        continue;
      }
      const v = row.fields[p.index];
      const x = v === null || v === undefined ? '' : p.value(v);
      values[i] = x;
      bytes += typeof x === 'number' ? intLength(x) : x.length;
    }
    this.ensure(bytes + 24);
    const buf = this.buf;
    const start = this.length;
    let at = this.header(start, bytes);
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i];
      if (p.index < 0) {
        // Byte by byte: literals are short, and TypedArray#set costs more than a few bytes' copy.
        const lit = p.bytes;
        for (let j = 0; j < lit.length; j++) buf[at++] = lit[j];
        continue;
      }
      const x = values[i];
      if (typeof x === 'number') {
        at = this.int(at, x);
        continue;
      }
      at = this.ascii(x, at);
      if (at < 0) {
        this.length = start;
        this.utf8(t.text(row));
        return;
      }
    }
    this.end(at);
  }

  string(s: string): void {
    this.ensure(s.length + 24);
    const start = this.length;
    const at = this.ascii(s, this.header(start, s.length));
    if (at >= 0) {
      this.end(at);
      return;
    }
    this.length = start;
    this.utf8(s);
  }

  /** Copies ASCII text to `at`; returns where it ends, or -1 at the first other character. */
  private ascii(s: string, at: number): number {
    const buf = this.buf;
    for (let j = 0; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c > 127) return -1;
      buf[at++] = c;
    }
    return at;
  }

  /** Ends the argument whose bytes end at `at`. */
  private end(at: number): void {
    this.buf[at] = CR;
    this.buf[at + 1] = LF;
    this.length = at + 2;
  }

  /** A safe integer in decimal as one argument. */
  private integer(x: number): void {
    this.ensure(48);
    this.end(this.int(this.header(this.length, intLength(x)), x));
  }

  /** Raw bytes as one argument. */
  binary(b: Uint8Array): void {
    this.ensure(b.length + 24);
    const at = this.header(this.length, b.length);
    this.buf.set(b, at);
    this.end(at + b.length);
  }

  /** Text that is not all ASCII: its UTF-8 bytes. */
  private utf8(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.ensure(n + 24);
    const at = this.header(this.length, n);
    this.buf.write(s, at, n, 'utf8');
    this.end(at + n);
  }
}
