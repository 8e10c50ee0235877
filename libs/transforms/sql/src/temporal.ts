import { SqlValueError } from './compiled.js';

/**
 * Local date-times as SeaTunnel's LocalDate/LocalTime/LocalDateTime: a wall-clock instant held
 * as milliseconds since 1970-01-01T00:00 (read as if UTC, so no zone rules apply) plus the
 * nanoseconds within the millisecond.
 */
export interface LocalDateTime {
  ms: number;
  /** 0..999999: nanoseconds below the millisecond. */
  subNanos: number;
}

const TS_RE = /^(-?\d{4,})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** Parses 'YYYY-MM-DD', 'YYYY-MM-DDTHH:mm[:ss[.f]]' (or a space for T); undefined if it is not one. */
export function parseDateTime(text: string): LocalDateTime | undefined {
  const m = TS_RE.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  const nanos = Number((m[7] ?? '').padEnd(9, '0') || '0');
  const ms = utc(y, mo - 1, d, h, mi, s) + Math.floor(nanos / 1e6);
  return { ms, subNanos: nanos % 1e6 };
}

/** Parses 'HH:mm[:ss[.f]]' into a LocalDateTime on 1970-01-01. */
export function parseTime(text: string): LocalDateTime | undefined {
  const m = TIME_RE.exec(text.trim());
  if (!m) return undefined;
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const s = Number(m[3] ?? '0');
  if (h > 23 || mi > 59 || s > 59) return undefined;
  const nanos = Number((m[4] ?? '').padEnd(9, '0') || '0');
  return { ms: ((h * 60 + mi) * 60 + s) * 1000 + Math.floor(nanos / 1e6), subNanos: nanos % 1e6 };
}

/** Reads any temporal value (date, time or timestamp text) into a LocalDateTime; throws if it is none. */
export function toLocal(v: unknown): LocalDateTime {
  const s = String(v);
  const r = parseDateTime(s) ?? parseTime(s);
  if (!r) throw new SqlValueError(`'${s}' is not a date, time or timestamp`);
  return r;
}

export function utc(y: number, mo0: number, d: number, h = 0, mi = 0, s = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo0, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}

export function daysInMonth(y: number, mo1: number): number {
  return new Date(Date.UTC(2000, mo1, 0)).getUTCDate() + (mo1 === 2 && isLeap(y) ? 1 : 0) - (mo1 === 2 ? 1 : 0);
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function pad(n: number, w = 2): string {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? `-${s}` : s;
}

/** Nanoseconds of the second, as LocalTime prints them: none, 3, 6 or 9 digits. */
function fraction(t: LocalDateTime): string {
  const nanos = (((t.ms % 1000) + 1000) % 1000) * 1e6 + t.subNanos;
  if (nanos === 0) return '';
  if (nanos % 1e6 === 0) return `.${pad(nanos / 1e6, 3)}`;
  if (nanos % 1e3 === 0) return `.${pad(nanos / 1e3, 6)}`;
  return `.${pad(nanos, 9)}`;
}

export function formatDate(t: LocalDateTime): string {
  const d = new Date(t.ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

export function formatTime(t: LocalDateTime): string {
  const d = new Date(t.ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction(t)}`;
}

export function formatTimestamp(t: LocalDateTime): string {
  return `${formatDate(t)}T${formatTime(t)}`;
}

/** Fields of a LocalDateTime (month 1-12, dayOfWeek 1=Monday..7=Sunday). */
export function fieldsOf(t: LocalDateTime) {
  const d = new Date(t.ms);
  const dow = d.getUTCDay();
  const year = d.getUTCFullYear();
  const dayOfYear = Math.floor((utc(year, d.getUTCMonth(), d.getUTCDate()) - utc(year, 0, 1)) / 86400000) + 1;
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millis: d.getUTCMilliseconds(),
    nanos: d.getUTCMilliseconds() * 1e6 + t.subNanos,
    dayOfWeek: dow === 0 ? 7 : dow,
    dayOfYear,
  };
}

/** The system zone's offset in ms at a UTC instant (SeaTunnel uses the JVM's default zone). */
export function systemOffsetMs(epochMs: number): number {
  return -new Date(epochMs).getTimezoneOffset() * 60000;
}

/** A UTC instant as a local wall-clock in the system zone. */
export function fromEpochMillis(epochMs: number): LocalDateTime {
  return { ms: epochMs + systemOffsetMs(epochMs), subNanos: 0 };
}

/** Now, in the system zone. */
export function nowLocal(): LocalDateTime {
  return fromEpochMillis(Date.now());
}

/** Adds calendar months, clamping the day as Java's plusMonths does (Jan 31 + 1 month = Feb 28/29). */
export function plusMonths(t: LocalDateTime, months: number): LocalDateTime {
  const f = fieldsOf(t);
  const total = f.year * 12 + (f.month - 1) + months;
  const y = Math.floor(total / 12);
  const mo1 = total - y * 12 + 1;
  const day = Math.min(f.day, daysInMonth(y, mo1));
  return { ms: utc(y, mo1 - 1, day, f.hour, f.minute, f.second) + f.millis, subNanos: t.subNanos };
}
