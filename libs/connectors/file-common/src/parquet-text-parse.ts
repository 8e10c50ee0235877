/**
 * Allocation-free parsing of Tideway's canonical value texts (libs/api types.ts) into the
 * numbers the flat Parquet writer stores. Each parser handles the canonical shape only and
 * returns NaN for anything else, so the caller falls back to the general (slower) conversion in
 * parquet-values.ts: the two paths give the same result for every input the fast one accepts.
 */

/** Days since 1970-01-01 of a proleptic Gregorian date (days past a month's end run on, as Date.parse does). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = m > 2 ? m - 3 : m + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The digit at `i` of `s`, or -1. */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/**
 * The month the last date fell in (year * 12 + month - 1) and the day number of its 1st: a
 * column's consecutive dates mostly share a month, so daysFromCivil runs once a month met.
 */
let lastMonth = -1;
let lastMonthStart = 0;

/**
 * Days since the epoch of 'YYYY-MM-DD' (the first 10 characters of `s`, which has them), or NaN.
 * Each character is checked as it is read: a digit minus 48, taken unsigned, is at most 9.
 */
function dateAt(s: string): number {
  const y0 = s.charCodeAt(0) - 48;
  const y1 = s.charCodeAt(1) - 48;
  const y2 = s.charCodeAt(2) - 48;
  const y3 = s.charCodeAt(3) - 48;
  const m0 = s.charCodeAt(5) - 48;
  const m1 = s.charCodeAt(6) - 48;
  const d0 = s.charCodeAt(8) - 48;
  const d1 = s.charCodeAt(9) - 48;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return Number.NaN; // '-'
  if (y0 >>> 0 > 9 || y1 >>> 0 > 9 || y2 >>> 0 > 9 || y3 >>> 0 > 9) return Number.NaN;
  if (m0 >>> 0 > 9 || m1 >>> 0 > 9 || d0 >>> 0 > 9 || d1 >>> 0 > 9) return Number.NaN;
  const m = m0 * 10 + m1;
  const d = d0 * 10 + d1;
  if (m < 1 || m > 12 || d < 1 || d > 31) return Number.NaN;
  const y = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const month = y * 12 + m - 1;
  if (month !== lastMonth) {
    lastMonthStart = daysFromCivil(y, m, 1);
    lastMonth = month;
  }
  return lastMonthStart + d - 1;
}

/** Days since the epoch of a date text 'YYYY-MM-DD', or NaN when it is not in that shape. */
export function parseDateDays(s: string): number {
  return s.length === 10 ? dateAt(s) : Number.NaN;
}

/** Seconds of 'HH:mm:ss' at `i` (`s` has those characters), or -1. */
function clockAt(s: string, i: number): number {
  const h0 = s.charCodeAt(i) - 48;
  const h1 = s.charCodeAt(i + 1) - 48;
  const n0 = s.charCodeAt(i + 3) - 48;
  const n1 = s.charCodeAt(i + 4) - 48;
  const s0 = s.charCodeAt(i + 6) - 48;
  const s1 = s.charCodeAt(i + 7) - 48;
  if (s.charCodeAt(i + 2) !== 58 || s.charCodeAt(i + 5) !== 58) return -1; // ':'
  if (h0 >>> 0 > 9 || h1 >>> 0 > 9 || n0 >>> 0 > 5 || n1 >>> 0 > 9 || s0 >>> 0 > 5 || s1 >>> 0 > 9) return -1;
  const h = h0 * 10 + h1;
  return h > 23 ? -1 : h * 3600 + (n0 * 10 + n1) * 60 + s0 * 10 + s1;
}

/** Microseconds of an optional fraction '.f{1,9}' at `i` (digits past the sixth are dropped), or -1. */
function fractionAt(s: string, i: number): number {
  const n = s.length;
  if (n === i) return 0;
  if (s.charCodeAt(i) !== 46 || n < i + 2 || n > i + 10) return -1; // '.'
  let v = 0;
  let k = i + 1;
  for (const end = Math.min(n, i + 7); k < end; k++) {
    const d = s.charCodeAt(k) - 48;
    if (d >>> 0 > 9) return -1;
    v = v * 10 + d;
  }
  for (let z = k; z < i + 7; z++) v *= 10; // fewer than six digits
  for (; k < n; k++) if ((s.charCodeAt(k) - 48) >>> 0 > 9) return -1;
  return v;
}

/**
 * Out-parameters of parseTimestampMicros: the 64-bit result as two 32-bit halves (low unsigned,
 * high signed), exact for every year, without a BigInt.
 */
export const int64Out = { lo: 0, hi: 0 };

const TWO_32 = 4294967296;

/** Stores `seconds * 1e6 + micros` (seconds a safe integer, 0 <= micros < 1e6) in int64Out. */
function setMicros(seconds: number, micros: number): void {
  // seconds * 1e6 = (seconds * 15625) * 64; seconds * 15625 stays below 2^53 for any year 0..9999
  const a = seconds * 15625;
  const aHi = Math.floor(a / 67108864); // 2^26
  let lo = (a - aHi * 67108864) * 64 + micros;
  let hi = aHi;
  if (lo >= TWO_32) {
    lo -= TWO_32;
    hi++;
  }
  int64Out.lo = lo;
  int64Out.hi = hi;
}

/**
 * Microseconds since the epoch of 'YYYY-MM-DDTHH:mm:ss[.f]' (or a space for the T), into
 * int64Out; false when the text is not in that shape.
 */
export function parseTimestampMicros(s: string): boolean {
  if (s.length < 19) return false;
  const sep = s.charCodeAt(10);
  if (sep !== 84 && sep !== 32) return false; // 'T' or ' '
  const days = dateAt(s);
  const secs = clockAt(s, 11);
  const micros = fractionAt(s, 19);
  if (Number.isNaN(days) || secs < 0 || micros < 0) return false;
  setMicros(days * 86400 + secs, micros);
  return true;
}

/** Microseconds since midnight of 'HH:mm:ss[.f]', or -1 when the text is not in that shape. */
export function parseTimeMicros(s: string): number {
  if (s.length < 8) return -1;
  const secs = clockAt(s, 0);
  const micros = fractionAt(s, 8);
  return secs < 0 || micros < 0 ? -1 : secs * 1_000_000 + micros;
}

/** Unscaled digits a double holds exactly (10^15 < 2^53). */
export const EXACT_DECIMAL_DIGITS = 15;

/**
 * The unscaled value of a decimal text '[-+]digits[.digits]' at `scale` digits (further digits
 * cut, as unscaledDecimal does) as a number, or NaN when the text is not in that shape or the
 * value needs more than EXACT_DECIMAL_DIGITS digits.
 */
export function parseUnscaled(s: string, scale: number): number {
  let i = 0;
  const first = s.charCodeAt(0);
  const neg = first === 45;
  if (neg || first === 43) i = 1;
  let v = 0;
  let n = 0;
  let sawDigit = false;
  for (; i < s.length; i++) {
    const d = digit(s, i);
    if (d < 0) break;
    sawDigit = true;
    v = v * 10 + d;
    if (v !== 0) n++;
  }
  let frac = 0;
  if (i < s.length) {
    if (s.charCodeAt(i) !== 46) return Number.NaN; // '.'
    i++;
    for (; i < s.length; i++) {
      const d = digit(s, i);
      if (d < 0) return Number.NaN;
      sawDigit = true;
      if (frac < scale) {
        v = v * 10 + d;
        if (v !== 0) n++;
        frac++;
      }
    }
  }
  if (!sawDigit) return Number.NaN;
  for (; frac < scale; frac++) {
    v *= 10;
    if (v !== 0) n++;
  }
  if (n > EXACT_DECIMAL_DIGITS) return Number.NaN;
  return neg ? -v : v;
}
