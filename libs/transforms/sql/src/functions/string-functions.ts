import { Types } from '@tideway/api';
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { SqlValueError } from '../compiled.js';
import { typedText, valueText } from '../value-text.js';
import { regex } from './regex-flags.js';
import { allArgs, strict, type SqlFunction } from './registry.js';

const S = Types.STRING;
const text = valueText;

function count(n: unknown): number {
  return Number(n);
}

/**
 * LPAD/RPAD as SeaTunnel's: a negative length is 0, a longer string is cut, and the padding is
 * the first character of the padding string (a space when it is empty).
 */
function pad(left: boolean) {
  return (s: unknown, len: unknown, fill: unknown = ' ') => {
    const str = text(s);
    const n = Math.max(0, count(len));
    if (n <= str.length) return str.slice(0, n);
    const f = text(fill);
    const ch = f === '' ? ' ' : f[0];
    return left ? str.padStart(n, ch) : str.padEnd(n, ch);
  };
}

/** TRIM/LTRIM/RTRIM as SeaTunnel's: only the first character of `chars` is trimmed (a space when it is empty). */
function trimChars(s: string, chars: string, start: boolean, end: boolean): string {
  const ch = chars === '' ? ' ' : chars[0];
  let a = 0;
  let b = s.length;
  if (start) while (a < b && s[a] === ch) a++;
  if (end) while (b > a && s[b - 1] === ch) b--;
  return s.slice(a, b);
}

/** H2's (SeaTunnel's) soundex digits for A..Z: 7 a vowel (it separates equal codes), 8 H and W (they do not). */
const SOUNDEX_DIGITS = '71237128722455712623718272';

/** SOUNDEX as SeaTunnel's: letters outside A-Z are skipped, '0000' for none, H and W do not separate equal codes. */
function soundex(s: string): string {
  const out = ['0', '0', '0', '0'];
  let last = '0';
  for (let i = 0, j = 0; i < s.length && j < 4; i++) {
    const c = s.charCodeAt(i);
    const upper = c >= 97 && c <= 122 ? c - 32 : c;
    if (upper < 65 || upper > 90) continue;
    const digit = SOUNDEX_DIGITS[upper - 65];
    if (j === 0) {
      out[j++] = String.fromCharCode(upper);
      last = digit;
    } else if (digit <= '6') {
      if (digit !== last) out[j++] = last = digit;
    } else if (digit === '7') last = digit;
  }
  return out.join('');
}

function desKey(password: string): Buffer {
  if (password.length < 8) throw new SqlValueError('the DES password must be at least 8 characters');
  const k = Buffer.from(password, 'utf8').subarray(0, 8);
  // two-key triple DES with equal keys is single DES (which OpenSSL 3 no longer offers directly)
  return Buffer.concat([k, k]);
}
const DES_IV = Buffer.from('12345678', 'utf8');

function locate(search: unknown, s: unknown, start: unknown = 1): number {
  const hay = text(s);
  const needle = text(search);
  let from = count(start);
  if (from < 0) {
    const idx = hay.lastIndexOf(needle, hay.length + from);
    return idx + 1;
  }
  if (from === 0) from = 1;
  return hay.indexOf(needle, from - 1) + 1;
}

/**
 * LOCATE, POSITION (which takes no start) and INSTR as SeaTunnel's: 0 when the searched string is
 * null (a null search string or start gives null).
 */
function located(
  names: string[],
  order: (x: unknown, y: unknown, z: unknown) => { search: unknown; s: unknown; start?: unknown },
): SqlFunction {
  return {
    names,
    minArgs: 2,
    maxArgs: 3,
    args: ['string', 'string', 'integer'],
    resultType: () => Types.INT,
    build: (a) =>
      allArgs(a, ([x, y, z]) => {
        const { search, s, start } = order(x, y, a.length === 3 ? z : undefined);
        if (s === null) return 0;
        if (search === null || start === null) return null;
        return locate(search, s, start);
      }),
  };
}

/** The string functions of SeaTunnel's Sql transform (docs/en/transform-v2/sql-functions.md). */
export const STRING_FUNCTIONS: SqlFunction[] = [
  strict(['ascii'], ['string'], 1, 1, Types.INT, () => (s) => {
    const t = text(s);
    // a UTF-16 unit, as Java's charAt (SeaTunnel fails on the empty string: docs/seatunnel-differences.md)
    return t.length === 0 ? null : t.charCodeAt(0);
  }),
  strict(
    ['bit_length'],
    ['any'],
    1,
    1,
    Types.BIGINT,
    () => (s) => BigInt((s instanceof Uint8Array ? s.length : Buffer.byteLength(text(s), 'utf8')) * 8),
  ),
  strict(['char_length', 'length', 'len'], ['string'], 1, 1, Types.BIGINT, () => (s) => BigInt(text(s).length)),
  strict(
    ['octet_length'],
    ['any'],
    1,
    1,
    Types.BIGINT,
    () => (s) => BigInt(s instanceof Uint8Array ? s.length : Buffer.byteLength(text(s), 'utf8')),
  ),
  strict(['char', 'chr'], ['integer'], 1, 1, S, () => (n) => String.fromCharCode(Number(n))),
  {
    names: ['concat'],
    minArgs: 1,
    maxArgs: Infinity,
    args: ['any'],
    resultType: () => S,
    build: (a) =>
      allArgs(a, (vals) => {
        let out = '';
        for (let i = 0; i < vals.length; i++) if (vals[i] !== null) out += typedText(vals[i], a[i].type);
        return out;
      }),
  },
  {
    names: ['concat_ws'],
    minArgs: 2,
    maxArgs: Infinity,
    args: ['any'],
    resultType: () => S,
    build: (a) =>
      allArgs(a, (vals) => {
        const sep = vals[0] === null ? '' : text(vals[0]);
        const parts: string[] = [];
        for (let i = 1; i < vals.length; i++) if (vals[i] !== null) parts.push(typedText(vals[i], a[i].type));
        return parts.join(sep);
      }),
  },
  strict(['hextoraw'], ['string'], 1, 1, S, () => (s) => {
    const h = text(s);
    if (h.length % 4 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new SqlValueError(`'${h}' is not hex text with 4 digits per character`);
    let out = '';
    for (let i = 0; i < h.length; i += 4) out += String.fromCharCode(parseInt(h.slice(i, i + 4), 16));
    return out;
  }),
  strict(['rawtohex'], ['any'], 1, 1, S, () => (s) => {
    if (s instanceof Uint8Array) return Buffer.from(s).toString('hex');
    const t = text(s);
    let out = '';
    for (let i = 0; i < t.length; i++) out += t.charCodeAt(i).toString(16).padStart(4, '0');
    return out;
  }),
  {
    // SeaTunnel's: a null string gives the other one; a start outside the string, a length <= 0
    // or an empty addition leave the string as it is
    names: ['insert'],
    minArgs: 4,
    maxArgs: 4,
    args: ['string', 'integer', 'integer', 'string'],
    resultType: () => S,
    build: (a) =>
      allArgs(a, ([s, start, len, add]) => {
        if (s === null) return add === null ? null : text(add);
        if (add === null) return text(s);
        if (start === null || len === null) return null;
        const t = text(s);
        const extra = text(add);
        const st = count(start) - 1;
        let ln = count(len);
        if (st < 0 || ln <= 0 || extra === '' || st > t.length) return t;
        if (st + ln > t.length) ln = t.length - st;
        return t.slice(0, st) + extra + t.slice(st + ln);
      }),
  },
  strict(['lower', 'lcase'], ['string'], 1, 1, S, () => (s) => text(s).toLowerCase()),
  strict(['upper', 'ucase'], ['string'], 1, 1, S, () => (s) => text(s).toUpperCase()),
  strict(['left'], ['string', 'integer'], 2, 2, S, () => (s, n) => text(s).slice(0, Math.max(0, count(n)))),
  strict(['right'], ['string', 'integer'], 2, 2, S, () => (s, n) => {
    const t = text(s);
    const k = Math.max(0, count(n));
    return k === 0 ? '' : t.slice(Math.max(0, t.length - k));
  }),
  located(['locate'], (search, s, start) => ({ search, s, start })),
  located(['position'], (search, s) => ({ search, s })),
  located(['instr'], (s, search, start) => ({ search, s, start })),
  strict(['lpad'], ['string', 'integer', 'string'], 2, 3, S, () => pad(true)),
  strict(['rpad'], ['string', 'integer', 'string'], 2, 3, S, () => pad(false)),
  strict(
    ['ltrim'],
    ['string', 'string'],
    1,
    2,
    S,
    () =>
      (s, c = ' ') =>
        trimChars(text(s), text(c), true, false),
  ),
  strict(
    ['rtrim'],
    ['string', 'string'],
    1,
    2,
    S,
    () =>
      (s, c = ' ') =>
        trimChars(text(s), text(c), false, true),
  ),
  strict(
    ['trim', 'btrim'],
    ['string', 'string'],
    1,
    2,
    S,
    () =>
      (s, c = ' ') =>
        trimChars(text(s), text(c), true, true),
  ),
  {
    names: ['regexp_replace'],
    minArgs: 3,
    maxArgs: 4,
    args: ['string'],
    resultType: () => S,
    build: (a) =>
      allArgs(a, ([s, p, r, flags]) => {
        if (s === null || p === null || r === null) return null;
        // Java's replacement syntax ($1, \$) matches JS's $1 closely enough; `\` escapes are Java-only
        return text(s).replace(regex(text(p), flags as string | null), text(r).replace(/\\\$/g, '$$$$'));
      }),
  },
  {
    names: ['regexp_like'],
    minArgs: 2,
    maxArgs: 3,
    args: ['string'],
    resultType: () => Types.BOOLEAN,
    build: (a) => allArgs(a, ([s, p, flags]) => (s === null || p === null ? null : regex(text(p), flags as string | null).test(text(s)))),
  },
  {
    names: ['regexp_substr'],
    minArgs: 2,
    maxArgs: 6,
    args: ['string', 'string', 'integer', 'integer', 'string', 'integer'],
    resultType: () => S,
    build: (a) =>
      allArgs(a, ([s, p, pos, occ, flags, group]) => {
        if (s === null || p === null) return null;
        const t = text(s);
        const start = pos === null || pos === undefined ? 1 : count(pos);
        const nth = occ === null || occ === undefined ? 1 : count(occ);
        const g = group === null || group === undefined ? 0 : count(group);
        const re = regex(text(p), flags as string | null);
        re.lastIndex = Math.max(0, start - 1);
        let m: RegExpExecArray | null = null;
        for (let i = 0; i < nth; i++) {
          m = re.exec(t);
          if (!m) return null;
          if (m[0] === '') re.lastIndex++;
        }
        const v = m?.[g];
        return v === undefined ? null : v;
      }),
  },
  strict(['repeat'], ['string', 'integer'], 2, 2, S, () => (s, n) => text(s).repeat(Math.max(0, count(n)))),
  {
    names: ['replace'],
    minArgs: 2,
    maxArgs: 3,
    args: ['string'],
    resultType: () => S,
    build: (a) =>
      allArgs(a, ([s, search, rep]) => {
        if (s === null || search === null || (a.length === 3 && rep === null)) return null;
        const needle = text(search);
        return needle === ''
          ? text(s)
          : text(s)
              .split(needle)
              .join(rep === undefined ? '' : text(rep));
      }),
  },
  strict(['soundex'], ['string'], 1, 1, S, () => (s) => soundex(text(s))),
  strict(['space'], ['integer'], 1, 1, S, () => (n) => ' '.repeat(Math.max(0, count(n)))),
  strict(['substring', 'substr'], ['string', 'integer', 'integer'], 2, 3, S, () => (s, startArg, len) => {
    // SeaTunnel's (H2's): start 0 is 1, a negative start counts from the end; null when nothing is left
    const t = text(s);
    const sl = t.length;
    let start = count(startArg);
    if (start === 0) start = 1;
    else if (start < 0) start = sl + start + 1;
    let end = len === undefined ? Math.max(sl + 1, start) : start + count(len);
    start = Math.max(start, 1);
    end = Math.min(end, sl + 1);
    return start > sl || end <= start ? null : t.slice(start - 1, end - 1);
  }),
  strict(['translate'], ['string', 'string', 'string'], 3, 3, S, () => (s, from, to) => {
    const f = text(from);
    const r = text(to);
    let out = '';
    // UTF-16 units, as SeaTunnel's
    const t = text(s);
    for (let k = 0; k < t.length; k++) {
      const ch = t[k];
      const i = f.indexOf(ch);
      if (i < 0) out += ch;
      else if (i < r.length) out += r[i];
    }
    return out;
  }),
  strict(['split'], ['string', 'string'], 2, 2, Types.array(S), () => (s, sep) => text(s).split(text(sep))),
  strict(['des_encrypt'], ['string', 'string'], 2, 2, S, () => (pw, data) => {
    const c = createCipheriv('des-ede-cbc', desKey(text(pw)), DES_IV);
    return Buffer.concat([c.update(text(data), 'utf8'), c.final()]).toString('base64');
  }),
  strict(['des_decrypt'], ['string', 'string'], 2, 2, S, () => (pw, data) => {
    const d = createDecipheriv('des-ede-cbc', desKey(text(pw)), DES_IV);
    try {
      return Buffer.concat([d.update(Buffer.from(text(data), 'base64')), d.final()]).toString('utf8');
    } catch {
      // SeaTunnel returns the input unchanged when it does not decrypt
      return text(data);
    }
  }),
  { names: ['uuid'], minArgs: 0, maxArgs: 0, args: [], resultType: () => S, build: () => () => randomUUID() },
];
