import { SqlValueError } from './compiled.js';
import { fieldsOf, utc, daysInMonth, type LocalDateTime } from './temporal.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export function monthName(m1: number): string {
  return MONTHS[m1 - 1];
}

export function dayName(dow1: number): string {
  return DAYS[dow1 - 1];
}

type Part = { letter: string; count: number } | { text: string };

/** Splits a java.time DateTimeFormatter pattern into letter runs and literal text. */
export function compilePattern(pattern: string): Part[] {
  const parts: Part[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        parts.push({ text: "'" });
        i += 2;
        continue;
      }
      if (end < 0) throw new SqlValueError(`unterminated quote in date/time pattern '${pattern}'`);
      parts.push({ text: pattern.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (/[a-zA-Z]/.test(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      if (!'yuMLdHhmsSaEDakw'.includes(c)) throw new SqlValueError(`unsupported letter '${c}' in date/time pattern '${pattern}'`);
      parts.push({ letter: c, count: j - i });
      i = j;
      continue;
    }
    parts.push({ text: c });
    i++;
  }
  return parts;
}

function num(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

/**
 * java.time's 'w' in the en-US locale SeaTunnel runs in: the week of the week-based year, weeks
 * starting on Sunday, week 1 the one holding January 1st (so late December can be week 1).
 */
function usWeekOfYear(year: number, month: number, day: number): number {
  const DAY = 86400000;
  const t = Date.UTC(year, month - 1, day);
  const weekStart = t - new Date(t).getUTCDay() * DAY;
  if (new Date(weekStart + 6 * DAY).getUTCFullYear() > year) return 1;
  const jan1 = Date.UTC(year, 0, 1);
  const firstWeekStart = jan1 - new Date(jan1).getUTCDay() * DAY;
  return Math.round((weekStart - firstWeekStart) / (7 * DAY)) + 1;
}

/** Formats like java.time's DateTimeFormatter for the common letters (y M d H h m s S a E D). */
export function formatPattern(parts: Part[], t: LocalDateTime): string {
  const f = fieldsOf(t);
  let out = '';
  for (const p of parts) {
    if ('text' in p) {
      out += p.text;
      continue;
    }
    const n = p.count;
    switch (p.letter) {
      case 'y':
      case 'u':
        out += n === 2 ? num(f.year % 100, 2) : num(f.year, n);
        break;
      case 'M':
      case 'L':
        out += n >= 4 ? monthName(f.month) : n === 3 ? monthName(f.month).slice(0, 3) : num(f.month, n);
        break;
      case 'd':
        out += num(f.day, n);
        break;
      case 'D':
        out += num(f.dayOfYear, n);
        break;
      case 'w':
        out += num(usWeekOfYear(f.year, f.month, f.day), n);
        break;
      case 'H':
        out += num(f.hour, n);
        break;
      case 'h':
        out += num(f.hour % 12 === 0 ? 12 : f.hour % 12, n);
        break;
      case 'k':
        out += num(f.hour === 0 ? 24 : f.hour, n);
        break;
      case 'm':
        out += num(f.minute, n);
        break;
      case 's':
        out += num(f.second, n);
        break;
      case 'S':
        out += num(f.nanos, 9).slice(0, n);
        break;
      case 'a':
        out += f.hour < 12 ? 'AM' : 'PM';
        break;
      case 'E':
        out += n >= 4 ? dayName(f.dayOfWeek) : dayName(f.dayOfWeek).slice(0, 3);
        break;
    }
  }
  return out;
}

/** What a parsed text held: which of date and time, and the value. */
export interface Parsed {
  value: LocalDateTime;
  hasDate: boolean;
  hasTime: boolean;
}

/** Parses text with a java.time pattern (strictly: the whole text must match); undefined when it does not. */
export function parsePattern(parts: Part[], text: string): Parsed | undefined {
  let i = 0;
  let y = 1970,
    mo = 1,
    d = 1,
    h = 0,
    mi = 0,
    s = 0,
    nanos = 0;
  let pm: boolean | undefined;
  let hasDate = false;
  let hasTime = false;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k];
    if ('text' in p) {
      if (!text.startsWith(p.text, i)) return undefined;
      i += p.text.length;
      continue;
    }
    if (p.letter === 'M' && p.count >= 3) {
      const idx = MONTHS.findIndex((m) => text.startsWith(p.count === 3 ? m.slice(0, 3) : m, i));
      if (idx < 0) return undefined;
      mo = idx + 1;
      i += p.count === 3 ? 3 : MONTHS[idx].length;
      hasDate = true;
      continue;
    }
    if (p.letter === 'a') {
      const ap = text.slice(i, i + 2).toUpperCase();
      if (ap !== 'AM' && ap !== 'PM') return undefined;
      pm = ap === 'PM';
      i += 2;
      continue;
    }
    if (p.letter === 'E') {
      const idx = DAYS.findIndex((m) => text.startsWith(p.count >= 4 ? m : m.slice(0, 3), i));
      if (idx < 0) return undefined;
      i += p.count >= 4 ? DAYS[idx].length : 3;
      continue;
    }
    // a numeric field takes exactly `count` digits when the next part is also numeric (adjacent
    // value parsing), else as many digits as there are
    const next = parts[k + 1];
    const fixed = next !== undefined && 'letter' in next;
    let j = i;
    if (fixed || p.letter === 'S') j = Math.min(text.length, i + p.count);
    if (!fixed) while (j < text.length && text[j] >= '0' && text[j] <= '9') j++;
    const digits = text.slice(i, j);
    if (!/^\d+$/.test(digits) || digits.length < (p.letter === 'y' ? 1 : Math.min(p.count, 2))) return undefined;
    const v = Number(digits);
    i = j;
    switch (p.letter) {
      case 'y':
      case 'u':
        y = p.count === 2 ? 2000 + v : v;
        hasDate = true;
        break;
      case 'M':
      case 'L':
        mo = v;
        hasDate = true;
        break;
      case 'd':
        d = v;
        hasDate = true;
        break;
      case 'D':
        hasDate = true;
        mo = 1;
        d = v;
        break;
      case 'H':
      case 'k':
        h = v % 24;
        hasTime = true;
        break;
      case 'h':
        h = v % 12;
        hasTime = true;
        break;
      case 'm':
        mi = v;
        hasTime = true;
        break;
      case 's':
        s = v;
        hasTime = true;
        break;
      case 'S':
        nanos = Number(digits.padEnd(9, '0').slice(0, 9));
        hasTime = true;
        break;
    }
  }
  if (i !== text.length) return undefined;
  if (pm !== undefined && pm) h += 12;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  // java.time's SMART resolver (DateTimeFormatter.ofPattern): day 29-31 past the month's end is its last day
  d = Math.min(d, daysInMonth(y, mo));
  const ms = utc(y, mo - 1, d, h, mi, s) + Math.floor(nanos / 1e6);
  return { value: { ms, subNanos: nanos % 1e6 }, hasDate, hasTime };
}
