import type { DataType } from '@tideway/api';
import { compileJsonLineParser } from '@tideway/connector-file-common/formats';

/**
 * The json format's decoder of a message value straight from its bytes (docs/decisions/0091).
 *
 * The general path (compileJsonLineParser: UTF-8 text, quoting inexact numbers when a bigint or
 * decimal column needs their exact text, JSON.parse into an object, a reader per field) makes
 * several passes and an intermediate object per record. This one scans the bytes once for
 * records of the usual shape: one flat object whose keys are columns of the table, its values
 * null or, by the column's type, a string (string), an integer literal (tinyint, smallint,
 * int, bigint), a number literal (float, double) or true/false (boolean). Any other record
 * (another shape, a key the table lacks, an escaped key, a value of another kind, a number out of
 * range, bytes that are not JSON) goes to the general path, which gives the same fields or the
 * same error: this is a shortcut, never a second set of rules.
 */

const enum Kind {
  String,
  Integer,
  BigInt,
  Number,
  Float,
  Boolean,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

const INTEGER_RANGE: Partial<Record<DataType['kind'], readonly [number, number]>> = {
  tinyint: [-128, 127],
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
};

function kindOf(type: DataType): Kind | undefined {
  switch (type.kind) {
    case 'string':
      return Kind.String;
    case 'tinyint':
    case 'smallint':
    case 'int':
      return Kind.Integer;
    case 'bigint':
      return Kind.BigInt;
    case 'double':
      return Kind.Number;
    case 'float':
      return Kind.Float;
    case 'boolean':
      return Kind.Boolean;
    default:
      return undefined;
  }
}

/**
 * Buffer's own UTF-8 slice, which toString('utf8', start, end) calls after checking its
 * arguments (the bounds here are the scanner's, inside the buffer); a fifth of the decode time.
 */
type Utf8Sliced = Buffer & { utf8Slice(start: number, end: number): string };

/** A marker the scanner returns when the record is not of the shape it reads. */
const OTHER = Symbol('other');

/**
 * Compiles a decoder of one json message value, bytes [start, end) of a buffer (the whole buffer
 * by default), into the fields of `columns` (missing keys are null).
 */
export function compileJsonBytesParser(
  columns: readonly { name: string; type: DataType }[],
): (bytes: Buffer, start?: number, end?: number) => unknown[] {
  const general = compileJsonLineParser(columns);
  const slow = (bytes: Buffer, start = 0, end = bytes.length): unknown[] => general(bytes.toString('utf8', start, end));
  const kinds = columns.map((c) => kindOf(c.type));
  if (kinds.some((k) => k === undefined)) return slow;
  const keys = columns.map((c) => Buffer.from(c.name, 'utf8'));
  // The same key twice: the general path decides what it means.
  if (new Set(columns.map((c) => c.name)).size !== columns.length) return slow;
  const ranges = columns.map((c) => INTEGER_RANGE[c.type.kind]);
  const n = columns.length;
  /** A packed array of nulls, copied for each record (missing keys stay null). */
  const empty: unknown[] = columns.map(() => null);

  /** The column whose name is bytes [from, to), trying `guess` (the next in order) first; -1 if none. */
  const columnOf = (b: Buffer, from: number, to: number, guess: number): number => {
    const len = to - from;
    for (let k = 0; k < n; k++) {
      const i = (guess + k) % n;
      const key = keys[i];
      if (key.length !== len) continue;
      let j = 0;
      while (j < len && key[j] === b[from + j]) j++;
      if (j === len) return i;
    }
    return -1;
  };

  // The value may be followed by other bytes of its buffer (the next record's): a byte at or past
  // `end` that the scan reads either makes it give up (OTHER) or is passed over, moving p past
  // `end`, which fails the last check (p === end). So no record is read from bytes not its own.
  const scan = (b: Buffer, start: number, end: number): unknown[] | typeof OTHER => {
    let p = start;
    while (p < end && isSpace(b[p])) p++;
    if (b[p] !== OPEN) return OTHER;
    p++;
    const out = empty.slice();
    let guess = 0;
    while (p < end && isSpace(b[p])) p++;
    if (b[p] === CLOSE) p++;
    else {
      for (;;) {
        // "key"
        if (b[p] !== QUOTE) return OTHER;
        const keyStart = ++p;
        while (p < end && b[p] !== QUOTE && b[p] !== BACKSLASH && b[p] >= 0x20) p++;
        if (b[p] !== QUOTE) return OTHER;
        const col = columnOf(b, keyStart, p, guess);
        if (col < 0) return OTHER;
        guess = col + 1;
        p++;
        while (p < end && isSpace(b[p])) p++;
        if (b[p] !== COLON) return OTHER;
        p++;
        while (p < end && isSpace(b[p])) p++;
        // the value
        const c = b[p];
        if (c === 0x6e) {
          // null
          if (b[p + 1] !== 0x75 || b[p + 2] !== 0x6c || b[p + 3] !== 0x6c) return OTHER;
          out[col] = null;
          p += 4;
        } else {
          const kind = kinds[col];
          if (kind === Kind.String) {
            if (c !== QUOTE) return OTHER;
            const from = p + 1;
            let escaped = false;
            p = from;
            for (; p < end; p++) {
              const d = b[p];
              if (d === QUOTE) break;
              if (d < 0x20) return OTHER;
              if (d === BACKSLASH) {
                escaped = true;
                p++;
              }
            }
            if (p >= end) return OTHER;
            if (!escaped) out[col] = (b as Utf8Sliced).utf8Slice(from, p);
            else {
              try {
                out[col] = JSON.parse(b.toString('utf8', from - 1, p + 1)) as string;
              } catch {
                return OTHER; // a bad escape: the general path words the error
              }
            }
            p++;
          } else if (kind === Kind.Boolean) {
            if (c === 0x74 && b[p + 1] === 0x72 && b[p + 2] === 0x75 && b[p + 3] === 0x65) {
              out[col] = true;
              p += 4;
            } else if (c === 0x66 && b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65) {
              out[col] = false;
              p += 5;
            } else return OTHER;
          } else {
            // A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
            const from = p;
            if (b[p] === MINUS) p++;
            if (b[p] === ZERO) p++;
            else if (b[p] > ZERO && b[p] <= NINE) while (b[p] >= ZERO && b[p] <= NINE) p++;
            else return OTHER;
            const intEnd = p;
            if (b[p] === DOT) {
              p++;
              if (!(b[p] >= ZERO && b[p] <= NINE)) return OTHER;
              while (b[p] >= ZERO && b[p] <= NINE) p++;
            }
            if (b[p] === 0x65 || b[p] === 0x45) {
              p++;
              if (b[p] === 0x2b || b[p] === MINUS) p++;
              if (!(b[p] >= ZERO && b[p] <= NINE)) return OTHER;
              while (b[p] >= ZERO && b[p] <= NINE) p++;
            }
            const integer = intEnd === p;
            if (kind === Kind.Number || kind === Kind.Float) {
              const v = Number(b.toString('latin1', from, p));
              out[col] = kind === Kind.Float ? Math.fround(v) : v;
            } else if (!integer) return OTHER;
            else if (kind === Kind.BigInt) {
              out[col] = p - from <= 15 ? BigInt(parseIntDigits(b, from, p)) : BigInt(b.toString('latin1', from, p));
            } else {
              if (p - from > 11) return OTHER;
              const v = parseIntDigits(b, from, p);
              const range = ranges[col] as readonly [number, number];
              if (v < range[0] || v > range[1]) return OTHER;
              out[col] = v;
            }
          }
        }
        while (p < end && isSpace(b[p])) p++;
        if (b[p] === COMMA) {
          p++;
          while (p < end && isSpace(b[p])) p++;
          continue;
        }
        if (b[p] === CLOSE) {
          p++;
          break;
        }
        return OTHER;
      }
    }
    while (p < end && isSpace(b[p])) p++;
    return p === end ? out : OTHER;
  };

  return (bytes, start = 0, end = bytes.length) => {
    const fields = scan(bytes, start, end);
    return fields === OTHER ? slow(bytes, start, end) : fields;
  };
}

/** The value of a JSON integer literal of at most 15 digits (exact as a number). */
function parseIntDigits(b: Buffer, from: number, to: number): number {
  let i = from;
  const negative = b[i] === MINUS;
  if (negative) i++;
  let v = 0;
  for (; i < to; i++) v = v * 10 + (b[i] - ZERO);
  return negative ? -v : v;
}
