import { ConfigError, ErrorCode, ValueConversionError } from '@tideway/common';

/**
 * The date, datetime and time formats SeaTunnel's file connectors accept (DateUtils,
 * DateTimeUtils and TimeUtils Formatter enums), and conversions between them and the held
 * forms of libs/api/src/types.ts ('YYYY-MM-DD', 'YYYY-MM-DDTHH:mm:ss[.f]', 'HH:mm:ss[.f]').
 *
 * The connector docs list five datetime spellings; SeaTunnel's option parser
 * (DateTimeUtils.Formatter.parse) also takes the four ISO-8601 ones, written as Java
 * DateTimeFormatter patterns with the quoted literal 'T'. Jobs use them (e.g. SeaTunnel's own
 * text_local_file_time_format e2e config), so they are accepted here too.
 */
export const DATE_FORMATS = ['yyyy-MM-dd', 'yyyy.MM.dd', 'yyyy/MM/dd'] as const;
export const DATETIME_FORMATS = [
  'yyyy-MM-dd HH:mm:ss',
  'yyyy-MM-dd HH:mm:ss.SSSSSS',
  'yyyy.MM.dd HH:mm:ss',
  'yyyy/MM/dd HH:mm:ss',
  'yyyyMMddHHmmss',
  "yyyy-MM-dd'T'HH:mm:ss",
  "yyyy-MM-dd'T'HH:mm:ss.SSS",
  "yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
  "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS",
] as const;
export const TIME_FORMATS = ['HH:mm:ss', 'HH:mm:ss.SSS'] as const;

export type DateFormat = (typeof DATE_FORMATS)[number];
export type DateTimeFormat = (typeof DATETIME_FORMATS)[number];
export type TimeFormat = (typeof TIME_FORMATS)[number];

function pick<T extends string>(all: readonly T[], value: string, option: string): T {
  const found = all.find((f) => f === value);
  if (!found) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `Option '${option}' must be one of ${all.join(', ')}, got '${value}'.`);
  return found;
}

export const parseDateFormat = (v: string): DateFormat => pick(DATE_FORMATS, v, 'date_format');
export const parseDateTimeFormat = (v: string): DateTimeFormat => pick(DATETIME_FORMATS, v, 'datetime_format');
export const parseTimeFormat = (v: string): TimeFormat => pick(TIME_FORMATS, v, 'time_format');

/** Formats a held date ('YYYY-MM-DD'). */
export function formatDate(held: string, format: DateFormat): string {
  if (format === 'yyyy-MM-dd') return held;
  const sep = format === 'yyyy.MM.dd' ? '.' : '/';
  return `${held.slice(0, 4)}${sep}${held.slice(5, 7)}${sep}${held.slice(8, 10)}`;
}

/** Fraction digits of a held time or timestamp, padded or cut to `digits`. */
function fraction(held: string, start: number, digits: number): string {
  const f = held.charCodeAt(start) === 46 ? held.slice(start + 1) : '';
  return (f + '000000000').slice(0, digits);
}

/** Formats a held timestamp ('YYYY-MM-DDTHH:mm:ss[.f]'). */
export function formatDateTime(held: string, format: DateTimeFormat): string {
  const date = held.slice(0, 10);
  const time = held.length >= 19 ? held.slice(11, 19) : `${held.slice(11, 16)}:00`;
  switch (format) {
    case 'yyyy-MM-dd HH:mm:ss':
      return `${date} ${time}`;
    case 'yyyy-MM-dd HH:mm:ss.SSSSSS':
      return `${date} ${time}.${fraction(held, 19, 6)}`;
    case 'yyyy.MM.dd HH:mm:ss':
      return `${formatDate(date, 'yyyy.MM.dd')} ${time}`;
    case 'yyyy/MM/dd HH:mm:ss':
      return `${formatDate(date, 'yyyy/MM/dd')} ${time}`;
    case 'yyyyMMddHHmmss':
      return date.replace(/-/g, '') + time.replace(/:/g, '');
    case "yyyy-MM-dd'T'HH:mm:ss":
      return `${date}T${time}`;
    case "yyyy-MM-dd'T'HH:mm:ss.SSS":
      return `${date}T${time}.${fraction(held, 19, 3)}`;
    case "yyyy-MM-dd'T'HH:mm:ss.SSSSSS":
      return `${date}T${time}.${fraction(held, 19, 6)}`;
    case "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS":
      return `${date}T${time}.${fraction(held, 19, 9)}`;
  }
}

/** Formats a held time ('HH:mm:ss[.f]'). */
export function formatTime(held: string, format: TimeFormat): string {
  const base = held.length >= 8 ? held.slice(0, 8) : `${held.slice(0, 5)}:00`;
  return format === 'HH:mm:ss' ? base : `${base}.${fraction(held, 8, 3)}`;
}

const DATE_TEXT = /^(\d{4})[-/.](\d{2})[-/.](\d{2})$|^(\d{4})(\d{2})(\d{2})$|^(\d{4})年(\d{2})月(\d{2})日$/;
const DATETIME_TEXT =
  /^(\d{4})[-/.](\d{2})[-/.](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d{1,9}))?$|^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$|^(\d{4})年(\d{2})月(\d{2})日\s(\d{2})时(\d{2})分(\d{2})秒$/;
const TIME_TEXT = /^(\d{2}):(\d{2})(?::(\d{2}))?(?:\.(\d{1,9}))?$/;

function bad(kind: string, text: string, field: string): never {
  throw new ValueConversionError(ErrorCode.VALUE_CONVERSION, `Field '${field}': '${text}' is not a ${kind} SeaTunnel can read.`);
}

/** Reads a date in any of the spellings SeaTunnel recognises; returns the held form. */
export function parseDateText(text: string, field: string): string {
  const m = DATE_TEXT.exec(text);
  if (!m) return bad('date', text, field);
  const y = m[1] ?? m[4] ?? m[7];
  const mo = m[2] ?? m[5] ?? m[8];
  const d = m[3] ?? m[6] ?? m[9];
  return `${y}-${mo}-${d}`;
}

/** Reads a datetime in any of the spellings SeaTunnel recognises; returns the held form. */
export function parseDateTimeText(text: string, field: string): string {
  const m = DATETIME_TEXT.exec(text);
  if (!m) return bad('datetime', text, field);
  if (m[1] !== undefined) {
    const frac = m[7] !== undefined ? `.${m[7]}` : '';
    return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${frac}`;
  }
  if (m[8] !== undefined) return `${m[8]}-${m[9]}-${m[10]}T${m[11]}:${m[12]}:${m[13]}`;
  return `${m[14]}-${m[15]}-${m[16]}T${m[17]}:${m[18]}:${m[19]}`;
}

/** Reads a time 'HH:mm[:ss[.f]]'; returns the held form. */
export function parseTimeText(text: string, field: string): string {
  const m = TIME_TEXT.exec(text);
  if (!m) return bad('time', text, field);
  return `${m[1]}:${m[2]}:${m[3] ?? '00'}${m[4] !== undefined ? `.${m[4]}` : ''}`;
}
