import { textOf } from '@tideway/common';
import type { DataType } from './types.js';
import { formatType } from './types.js';

/**
 * Turns a value written in a job config (HOCON/JSON: string, number, boolean, null, list,
 * object) into the JS value a column of `type` holds (see types.ts), the way SeaTunnel reads
 * FakeSource `rows` and Assert `equals_to` (its JSON-to-row converters): bytes are base64
 * text, a map is an object, a nested row is a list (positional) or an object (by name).
 */

/** A config value that does not fit its type; `path` names the value (e.g. `rows[0].fields[3]`). */
export class ConfigValueError extends Error {
  override readonly name = 'ConfigValueError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

const INT_RANGES = {
  tinyint: [-128, 127],
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
} as const;

const DATE_RE = /^(\d{4})[-/.]?(\d{1,2})[-/.]?(\d{1,2})$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
const TIMESTAMP_RE = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const DECIMAL_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function pad2(n: number | string): string {
  return String(n).padStart(2, '0');
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Normalises a date text (yyyy-MM-dd, yyyy/MM/dd, yyyy.MM.dd, yyyyMMdd) to 'YYYY-MM-DD'. */
export function normalizeDate(text: string): string | undefined {
  const m = DATE_RE.exec(text.trim());
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  return `${m[1]}-${pad2(mo)}-${pad2(d)}`;
}

function timePart(h: string, mi: string, s: string | undefined, f: string | undefined): string | undefined {
  if (Number(h) > 23 || Number(mi) > 59 || (s !== undefined && Number(s) > 59)) return undefined;
  return `${pad2(h)}:${mi}:${s ?? '00'}${f !== undefined ? `.${f}` : ''}`;
}

/** Normalises a time text (HH:mm[:ss[.fraction]]) to 'HH:mm:ss[.fraction]'. */
export function normalizeTime(text: string): string | undefined {
  const m = TIME_RE.exec(text.trim());
  return m ? timePart(m[1], m[2], m[3], m[4]) : undefined;
}

/** Normalises a timestamp text ('yyyy-MM-dd[T| ]HH:mm[:ss[.f]]', or a bare date) to 'YYYY-MM-DDTHH:mm:ss[.f]'. */
export function normalizeTimestamp(text: string): string | undefined {
  const m = TIMESTAMP_RE.exec(text.trim());
  if (!m) return undefined;
  const date = normalizeDate(`${m[1]}-${m[2]}-${m[3]}`);
  if (!date) return undefined;
  const time = m[4] === undefined ? '00:00:00' : timePart(m[4], m[5], m[6], m[7]);
  return time ? `${date}T${time}` : undefined;
}

/** Canonical decimal text of a number or numeric string (no exponent), or undefined. */
export function normalizeDecimal(v: unknown): string | undefined {
  let text: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined;
    text = String(v);
  } else if (typeof v === 'bigint') return v.toString();
  else if (typeof v === 'string') text = v.trim();
  else return undefined;
  if (!DECIMAL_RE.test(text)) return undefined;
  if (/e/i.test(text)) text = expandExponent(text);
  let sign = '';
  if (text[0] === '+' || text[0] === '-') {
    sign = text[0] === '-' ? '-' : '';
    text = text.slice(1);
  }
  const [intDigits = '', frac] = text.split('.') as [string, string | undefined];
  let intPart = intDigits;
  intPart = intPart.replace(/^0+(?=\d)/, '');
  if (intPart === '') intPart = '0';
  const out = frac !== undefined && frac !== '' ? `${intPart}.${frac}` : intPart;
  return /^0(\.0*)?$/.test(out) ? out : sign + out;
}

function expandExponent(text: string): string {
  const [mant, expText] = text.toLowerCase().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digitsText = mant.replace(/^[+-]/, '');
  const [i = '', f = ''] = digitsText.split('.');
  const digits = i + f;
  const point = i.length + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (neg ? '-' : '') + out;
}

function fail(path: string, value: unknown, type: DataType): never {
  throw new ConfigValueError(
    path,
    `cannot read ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))} as ${formatType(type)}`,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);
}

/** Converts a config value to the JS value of `type`; throws ConfigValueError naming `path`. */
export function convertConfigValue(value: unknown, type: DataType, path: string): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'null':
      return null;
    case 'string':
      if (typeof value === 'string') return value;
      return typeof value === 'object' ? JSON.stringify(value) : textOf(value);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return fail(path, value, type);
    case 'tinyint':
    case 'smallint':
    case 'int': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : NaN;
      const [lo, hi] = INT_RANGES[type.kind];
      if (!Number.isInteger(n) || n < lo || n > hi) return fail(path, value, type);
      return n;
    }
    case 'bigint': {
      if (typeof value === 'bigint') return value;
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return BigInt(value.trim());
      return fail(path, value, type);
    }
    case 'float':
    case 'double': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (Number.isNaN(n) && value !== 'NaN') return fail(path, value, type);
      return n;
    }
    case 'decimal':
      return normalizeDecimal(value) ?? fail(path, value, type);
    case 'bytes':
      if (value instanceof Uint8Array) return value;
      if (typeof value === 'string') return Buffer.from(value, 'base64');
      return fail(path, value, type);
    case 'date':
      return (typeof value === 'string' && normalizeDate(value)) || fail(path, value, type);
    case 'time':
      return (typeof value === 'string' && normalizeTime(value)) || fail(path, value, type);
    case 'timestamp':
      return (typeof value === 'string' && normalizeTimestamp(value)) || fail(path, value, type);
    case 'timestamp_tz':
      if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value.trim();
      return fail(path, value, type);
    case 'array':
      if (!Array.isArray(value)) return fail(path, value, type);
      return value.map((v, i) => convertConfigValue(v, type.element, `${path}[${i}]`));
    case 'map': {
      const out = new Map<unknown, unknown>();
      const entries = value instanceof Map ? [...value.entries()] : isObject(value) ? Object.entries(value) : undefined;
      if (!entries) return fail(path, value, type);
      for (const [k, v] of entries)
        out.set(convertConfigValue(k, type.key, `${path}.key(${String(k)})`), convertConfigValue(v, type.value, `${path}.${String(k)}`));
      return out;
    }
    case 'row': {
      const fields = type.fields;
      if (Array.isArray(value)) {
        if (value.length > fields.length)
          throw new ConfigValueError(path, `has ${value.length} values but ${formatType(type)} has ${fields.length} fields`);
        return fields.map((f, i) => convertConfigValue(value[i], f.type, `${path}.${f.name}`));
      }
      if (isObject(value)) return fields.map((f) => convertConfigValue(value[f.name], f.type, `${path}.${f.name}`));
      return fail(path, value, type);
    }
  }
}
