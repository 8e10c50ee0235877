import { textOf } from '@tideway/common';
import { Types, type DataType } from '@tideway/api';
import { SqlValueError, type Compiled } from '../compiled.js';
import { compilePattern, dayName, formatPattern, monthName, parsePattern } from '../datetime-pattern.js';
import {
  fieldsOf,
  formatDate,
  formatTime,
  formatTimestamp,
  fromEpochMillis,
  nowLocal,
  plusMonths,
  toLocal,
  utc,
  type LocalDateTime,
} from '../temporal.js';
import { typedText } from '../value-text.js';
import { memo, strict, type SqlFunction } from './registry.js';

const I = Types.INT;
const pattern = memo(compilePattern);

/** Re-prints a LocalDateTime in the representation of `type`. */
function asType(t: LocalDateTime, type: DataType): string {
  return type.kind === 'date' ? formatDate(t) : type.kind === 'time' ? formatTime(t) : formatTimestamp(t);
}

const UNIT_MS: Record<string, number> = { WEEK: 604800000, DAY: 86400000, HOUR: 3600000, MINUTE: 60000, SECOND: 1000, MILLISECOND: 1 };

function unitOf(fn: string, v: unknown): string {
  const u = v === undefined || v === null ? 'DAY' : textOf(v).toUpperCase();
  if (!(u in UNIT_MS) && u !== 'YEAR' && u !== 'MONTH' && u !== 'QUARTER' && !(fn === 'DATEDIFF' && u === 'DAYTIME'))
    throw new SqlValueError(`unsupported date/time unit '${String(v)}' for ${fn}`);
  return u;
}

function field(name: string, pick: (f: ReturnType<typeof fieldsOf>) => number): SqlFunction {
  return strict([name], ['temporal'], 1, 1, I, () => (v) => pick(fieldsOf(toLocal(v))));
}

/**
 * SeaTunnel's WEEK: java's WeekFields.ISO.weekOfYear() plus one. Weeks start on Monday; days
 * before the first week with at least four days are week 0 (so WEEK gives 1 for them).
 */
function week(t: LocalDateTime): number {
  const f = fieldsOf(t);
  const jan1 = new Date(utc(f.year, 0, 1)).getUTCDay();
  const d1 = jan1 === 0 ? 7 : jan1;
  return Math.floor((f.dayOfYear - 1 + (d1 - 1)) / 7) + (d1 <= 4 ? 1 : 0) + 1;
}

function parseWith(fn: string) {
  return (s: unknown, p: unknown) => {
    const r = parsePattern(pattern(String(p)), String(s));
    if (!r) throw new SqlValueError(`${fn}: '${String(s)}' does not match the pattern '${String(p)}'`);
    return r;
  };
}

/** The type PARSEDATETIME/TO_DATE returns, decided from the pattern as SeaTunnel does. */
function parsedType(a: readonly Compiled[]): DataType | string {
  const p = a[1].constant?.value;
  if (typeof p !== 'string') return 'the format must be a string literal';
  if (p.includes('yy') && p.includes('mm')) return Types.TIMESTAMP;
  if (p.includes('yy')) return Types.DATE;
  if (p.includes('mm')) return Types.TIME;
  return `the pattern '${p}' has neither a year nor minutes`;
}

/** The date/time functions of SeaTunnel's Sql transform (docs/en/transform-v2/sql-functions.md). */
export const DATETIME_FUNCTIONS: SqlFunction[] = [
  {
    names: ['current_date', 'curdate'],
    minArgs: 0,
    maxArgs: 0,
    args: [],
    resultType: () => Types.DATE,
    build: () => () => formatDate(nowLocal()),
  },
  {
    names: ['current_time', 'curtime', 'localtime'],
    minArgs: 0,
    maxArgs: 0,
    args: [],
    resultType: () => Types.TIME,
    build: () => () => formatTime(nowLocal()),
  },
  {
    names: ['current_timestamp', 'now', 'localtimestamp'],
    minArgs: 0,
    maxArgs: 0,
    args: [],
    resultType: () => Types.TIMESTAMP,
    build: () => () => formatTimestamp(nowLocal()),
  },
  strict(
    ['dateadd', 'timestampadd', 'date_add'],
    ['temporal', 'integer', 'string'],
    2,
    3,
    (a) => (a[0].type.kind === 'string' ? Types.TIMESTAMP : a[0].type),
    (a) => {
      const type = a[0].type.kind === 'string' ? Types.TIMESTAMP : a[0].type;
      return (v: unknown, n: unknown, unit?: unknown) => {
        const u = unitOf('DATEADD', unit);
        const t = toLocal(v);
        const k = Number(n);
        if (type.kind === 'time' && !(u in UNIT_MS && u !== 'DAY' && u !== 'WEEK'))
          throw new SqlValueError(`DATEADD cannot add ${u} to a time`);
        if (type.kind === 'date' && !(u === 'YEAR' || u === 'MONTH' || u === 'QUARTER' || u === 'WEEK' || u === 'DAY'))
          throw new SqlValueError(`DATEADD cannot add ${u} to a date`);
        if (u === 'YEAR') return asType(plusMonths(t, 12 * k), type);
        if (u === 'QUARTER') return asType(plusMonths(t, 3 * k), type);
        if (u === 'MONTH') return asType(plusMonths(t, k), type);
        const r = { ms: t.ms + k * UNIT_MS[u], subNanos: t.subNanos };
        if (type.kind === 'time') r.ms = ((r.ms % 86400000) + 86400000) % 86400000;
        return asType(r, type);
      };
    },
  ),
  strict(['datediff'], ['temporal', 'temporal', 'string'], 2, 3, Types.BIGINT, () => (x: unknown, y: unknown, unit?: unknown) => {
    const u = unitOf('DATEDIFF', unit);
    const a = toLocal(x);
    const b = toLocal(y);
    if (u === 'YEAR' || u === 'MONTH') {
      // java.time Period.between on the dates: whole months, then years
      const fa = fieldsOf(a);
      const fb = fieldsOf(b);
      let months = (fb.year - fa.year) * 12 + (fb.month - fa.month);
      if (months > 0 && fb.day < fa.day) months--;
      else if (months < 0 && fb.day > fa.day) months++;
      return BigInt(u === 'YEAR' ? Math.trunc(months / 12) : months % 12);
    }
    if (u === 'DAY') {
      const fa = fieldsOf(a);
      const fb = fieldsOf(b);
      return BigInt(Math.round((utc(fb.year, fb.month - 1, fb.day) - utc(fa.year, fa.month - 1, fa.day)) / 86400000));
    }
    const unitMs = u === 'DAYTIME' ? 86400000 : UNIT_MS[u];
    return BigInt(Math.trunc((b.ms - a.ms) / unitMs));
  }),
  strict(['date_trunc'], ['temporal', 'string'], 1, 2, Types.TIMESTAMP, () => (v: unknown, unit?: unknown) => {
    const f = fieldsOf(toLocal(v));
    const u = unit === undefined ? 'DAY' : textOf(unit).toUpperCase();
    const parts: Record<string, number[]> = {
      YEAR: [f.year, 0, 1],
      MONTH: [f.year, f.month - 1, 1],
      DAY: [f.year, f.month - 1, f.day],
      HOUR: [f.year, f.month - 1, f.day, f.hour],
      MINUTE: [f.year, f.month - 1, f.day, f.hour, f.minute],
      SECOND: [f.year, f.month - 1, f.day, f.hour, f.minute, f.second],
    };
    const p = parts[u];
    if (!p) throw new SqlValueError(`unsupported date/time unit '${String(unit)}' for DATE_TRUNC`);
    return formatTimestamp({ ms: utc(...(p as [number, number, number])), subNanos: 0 });
  }),
  strict(['dayname'], ['temporal'], 1, 1, Types.STRING, () => (v) => dayName(fieldsOf(toLocal(v)).dayOfWeek)),
  strict(['monthname'], ['temporal'], 1, 1, Types.STRING, () => (v) => monthName(fieldsOf(toLocal(v)).month)),
  field('day_of_month', (f) => f.day),
  field('dayofmonth', (f) => f.day),
  field('day', (f) => f.day),
  field('day_of_week', (f) => f.dayOfWeek),
  field('dayofweek', (f) => f.dayOfWeek),
  field('day_of_year', (f) => f.dayOfYear),
  field('dayofyear', (f) => f.dayOfYear),
  field('hour', (f) => f.hour),
  field('minute', (f) => f.minute),
  field('second', (f) => f.second),
  field('month', (f) => f.month),
  field('quarter', (f) => Math.ceil(f.month / 3)),
  field('year', (f) => f.year),
  strict(['week'], ['temporal'], 1, 1, I, () => (v) => week(toLocal(v))),
  strict(['extract'], ['temporal', 'string'], 2, 2, I, () => (v: unknown, name: unknown) => {
    const t = toLocal(v);
    const f = fieldsOf(t);
    switch (String(name)) {
      case 'YEAR':
        return f.year;
      case 'QUARTER':
        return Math.ceil(f.month / 3);
      case 'MONTH':
        return f.month;
      case 'WEEK':
        return week(t);
      case 'DAY':
        return f.day;
      case 'HOUR':
        return f.hour;
      case 'MINUTE':
        return f.minute;
      case 'SECOND':
        return f.second;
      case 'MILLISECOND':
        return f.millis;
      case 'MICROSECOND':
        return Math.floor(f.nanos / 1000);
      case 'NANOSECOND':
        return f.nanos;
      case 'DAYOFWEEK':
      case 'DOW':
        return f.dayOfWeek;
      case 'DAYOFYEAR':
      case 'DOY':
        return f.dayOfYear;
      default:
        throw new SqlValueError(`EXTRACT does not know the field ${String(name)}`);
    }
  }),
  strict(
    ['formatdatetime', 'format_datetime'],
    ['temporal', 'string'],
    2,
    2,
    Types.STRING,
    () => (v: unknown, p: unknown) => formatPattern(pattern(String(p)), toLocal(v)),
  ),
  strict(['parsedatetime', 'to_date', 'to_timestamp'], ['string', 'string'], 2, 2, parsedType, (a) => {
    const type = parsedType(a) as DataType;
    const parse = parseWith('PARSEDATETIME');
    return (s: unknown, p: unknown) => asType(parse(s, p).value, type);
  }),
  {
    names: ['is_date'],
    minArgs: 2,
    maxArgs: 2,
    args: ['string', 'string'],
    resultType: () => Types.BOOLEAN,
    build: (a) => {
      const [es, ep] = [a[0].ev, a[1].ev];
      return (f) => {
        const s = es(f);
        const p = ep(f);
        if (s == null || p == null) return false;
        try {
          return parsePattern(pattern(textOf(p)), textOf(s)) !== undefined;
        } catch {
          return false;
        }
      };
    },
  },
  strict(['from_unixtime'], ['numeric', 'string', 'string'], 2, 3, Types.STRING, () => (secs: unknown, p: unknown, zone?: unknown) => {
    const ms = Number(secs) * 1000;
    const local = zone === undefined ? fromEpochMillis(ms) : { ms: ms + zoneOffsetMs(textOf(zone), ms), subNanos: 0 };
    return formatPattern(pattern(String(p)), local);
  }),
  strict(['to_char'], ['any', 'string'], 1, 2, Types.STRING, (a) => {
    const t = a[0].type;
    const temporal = t.kind === 'date' || t.kind === 'time' || t.kind === 'timestamp' || t.kind === 'timestamp_tz';
    return (v: unknown, p?: unknown) => (p !== undefined && temporal ? formatPattern(pattern(textOf(p)), toLocal(v)) : typedText(v, t));
  }),
];

/** Offset of `UTC+8`, `GMT-03:30`, `+08:00` or an IANA zone name at an instant. */
function zoneOffsetMs(zone: string, epochMs: number): number {
  const m = /^(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(zone.trim());
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) * 60000;
  if (/^(UTC|GMT|Z)$/i.test(zone.trim())) return 0;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(new Date(epochMs));
  } catch {
    throw new SqlValueError(`unknown time zone '${zone}'`);
  }
  const g = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return utc(g('year'), g('month') - 1, g('day'), g('hour'), g('minute'), g('second')) - Math.floor(epochMs / 1000) * 1000;
}
