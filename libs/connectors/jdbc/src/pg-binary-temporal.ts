import type { ByteSink, FieldWriter } from './pg-binary-sink.js';

/**
 * Binary writers of PostgreSQL's date, time, timestamp and timestamptz from SeaTunnel's ISO text
 * values: days since 2000-01-01 (int32), microseconds (int64). Only the exact shapes SeaTunnel
 * values have are read; anything else (more than six fraction digits, BC dates, 'infinity')
 * returns false and its batch goes as text.
 */

const MICROS_PER_DAY = 86_400_000_000;
/** Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01. */
const PG_EPOCH_DAYS = 10_957;

/** Two ASCII digits at `i`, or NaN. */
function digits2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 2000-01-01 of 'YYYY-MM-DD' at `s[0..10)`, or NaN when it is not a valid date of years 1-9999. */
function pgDays(s: string): number {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return NaN;
  const y = digits2(s, 0) * 100 + digits2(s, 2);
  const m = digits2(s, 5);
  const d = digits2(s, 8);
  if (!(y >= 1) || !(m >= 1 && m <= 12) || !(d >= 1)) return NaN;
  if (d > (m === 2 && isLeap(y) ? 29 : MONTH_DAYS[m - 1])) return NaN;
  return daysFromCivil(y, m, d) - PG_EPOCH_DAYS;
}

/**
 * Microseconds of 'HH:MM:SS[.ffffff]' starting at `s[i]` and running to `end`, or NaN. More
 * than six fraction digits would need PostgreSQL's rounding: NaN (the batch goes as text).
 */
function timeMicros(s: string, i: number, end: number): number {
  if (end - i < 8 || s.charCodeAt(i + 2) !== 58 || s.charCodeAt(i + 5) !== 58) return NaN;
  const h = digits2(s, i);
  const mi = digits2(s, i + 3);
  const se = digits2(s, i + 6);
  if (!(h <= 24 && mi <= 59 && se <= 60)) return NaN;
  let micros = ((h * 60 + mi) * 60 + se) * 1_000_000;
  let j = i + 8;
  if (j < end) {
    if (s.charCodeAt(j) !== 46) return NaN;
    j++;
    const digits = end - j;
    if (digits < 1 || digits > 6) return NaN;
    let f = 0;
    for (let k = 0; k < 6; k++) {
      const c = k < digits ? s.charCodeAt(j + k) - 48 : 0;
      if (c < 0 || c > 9) return NaN;
      f = f * 10 + c;
    }
    micros += f;
  }
  if (micros > MICROS_PER_DAY) return NaN;
  return micros;
}

/** Writes microseconds since 2000-01-01 given as whole days plus microseconds within them. */
function writeMicros(out: ByteSink, days: number, micros: number): void {
  out.ensure(12);
  out.int32(8);
  const total = days * MICROS_PER_DAY + micros;
  if (Number.isSafeInteger(total)) out.int64(total);
  else out.bigint64(BigInt(days) * BigInt(MICROS_PER_DAY) + BigInt(micros));
}

export const writeDate: FieldWriter = (out, v) => {
  if (typeof v !== 'string' || v.length !== 10) return false;
  const days = pgDays(v);
  if (Number.isNaN(days)) return false;
  out.ensure(8);
  out.int32(4);
  out.int32(days);
  return true;
};

export const writeTime: FieldWriter = (out, v) => {
  if (typeof v !== 'string') return false;
  const micros = timeMicros(v, 0, v.length);
  if (Number.isNaN(micros)) return false;
  out.ensure(12);
  out.int32(8);
  out.int64(micros);
  return true;
};

/** What dateTime() parsed (module scratch: no allocation per value). */
let parsedDays = 0;
let parsedMicros = 0;

/** Parses 'YYYY-MM-DD[T ]HH:MM:SS[.f]' up to `end` into parsedDays and parsedMicros; false when it is not one. */
function dateTime(s: string, end: number): boolean {
  if (s.length < 19) return false;
  const sep = s.charCodeAt(10);
  if (sep !== 84 && sep !== 32) return false;
  parsedDays = pgDays(s);
  parsedMicros = timeMicros(s, 11, end);
  return !Number.isNaN(parsedDays) && !Number.isNaN(parsedMicros);
}

export const writeTimestamp: FieldWriter = (out, v) => {
  if (typeof v !== 'string' || !dateTime(v, v.length)) return false;
  writeMicros(out, parsedDays, parsedMicros);
  return true;
};

/** Offset in minutes of a trailing 'Z', '±HH', '±HHMM' or '±HH:MM', and where it starts; or undefined. */
function zoneOffset(s: string): { start: number; minutes: number } | undefined {
  const n = s.length;
  if (s.charCodeAt(n - 1) === 90 /* Z */) return { start: n - 1, minutes: 0 };
  for (const [len, colon] of [
    [6, true],
    [5, false],
    [3, false],
  ] as const) {
    const start = n - len;
    const sign = s.charCodeAt(start);
    if (start < 19 || (sign !== 43 && sign !== 45)) continue;
    const h = digits2(s, start + 1);
    let m = 0;
    if (len > 3) {
      if (colon && s.charCodeAt(start + 3) !== 58) continue;
      m = digits2(s, start + (colon ? 4 : 3));
    }
    // PostgreSQL accepts offsets up to ±15:59.
    if (!(h <= 15) || !(m <= 59)) continue;
    return { start, minutes: (sign === 45 ? -1 : 1) * (h * 60 + m) };
  }
  return undefined;
}

export const writeTimestampTz: FieldWriter = (out, v) => {
  if (typeof v !== 'string') return false;
  const zone = zoneOffset(v);
  if (!zone || !dateTime(v, zone.start)) return false;
  writeMicros(out, parsedDays, parsedMicros - zone.minutes * 60_000_000);
  return true;
};
