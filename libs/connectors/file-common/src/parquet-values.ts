import type { DataType } from '@tideway/api';
import type { ParquetParsers } from 'hyparquet';

/**
 * Value conversions between Tideway's JS values (libs/api types.ts) and what hyparquet-writer
 * takes / hyparquet gives, compiled once per column type.
 */

const DAY_MS = 86_400_000;

/** Unscaled integer of a canonical decimal text at `scale` digits (extra digits are cut, as Java's setScale(DOWN) would not be asked to). */
export function unscaledDecimal(text: string, scale: number): bigint {
  const neg = text.startsWith('-');
  const body = neg || text.startsWith('+') ? text.slice(1) : text;
  const [int, frac = ''] = body.split('.');
  const digits = `${int}${frac.padEnd(scale, '0').slice(0, scale)}`;
  const v = BigInt(digits === '' ? '0' : digits);
  return neg ? -v : v;
}

/** Two's complement, big-endian, in as few bytes as hold the value (Java's BigInteger.toByteArray; Iceberg's and Avro's decimal bytes). */
export function unscaledBytes(v: bigint): Uint8Array {
  let n = 1;
  while (v >= 1n << BigInt(8 * n - 1) || v < -(1n << BigInt(8 * n - 1))) n++;
  const out = new Uint8Array(n);
  let x = BigInt.asUintN(8 * n, v);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** The integer of big-endian two's complement bytes (0 for none). */
export function bytesUnscaled(b: Uint8Array): bigint {
  let x = 0n;
  for (const byte of b) x = (x << 8n) | BigInt(byte);
  return b.length === 0 ? 0n : BigInt.asIntN(8 * b.length, x);
}

/** Canonical decimal text of an unscaled integer. */
export function decimalText(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return neg ? `-${text}` : text;
}

/**
 * Microseconds since the epoch of a zone-less timestamp text 'YYYY-MM-DDTHH:mm:ss[.f]' (read as
 * UTC wall time; a space for the T is read as the T, not by Date's legacy parser, which takes
 * years below 100 as 19xx or 20xx). A text Date cannot read is refused, naming it.
 */
export function timestampMicros(text: string): bigint {
  const iso = text.charCodeAt(10) === 32 ? `${text.slice(0, 10)}T${text.slice(11, 19)}` : text.slice(0, 19);
  const base = Date.parse(`${iso}Z`);
  const frac = text.length > 20 ? text.slice(20, 26).padEnd(6, '0') : '000000';
  if (Number.isNaN(base) || !/^[0-9]{6}$/.test(frac)) {
    throw new TypeError(`A timestamp value '${text}' is not a timestamp (YYYY-MM-DDTHH:mm:ss[.ffffff]) and cannot be written to Parquet.`);
  }
  return BigInt(base) * 1000n + BigInt(frac);
}

/** Microseconds since midnight of a time text 'HH:mm:ss[.f]'; a text Date cannot read is refused, naming it. */
export function timeMicros(text: string): bigint {
  try {
    return timestampMicros(`1970-01-01T${text}`);
  } catch {
    throw new TypeError(`A time value '${text}' is not a time (HH:mm:ss[.ffffff]) and cannot be written to Parquet.`);
  }
}

/** Through Date, for any value (years past 9999 or before 0 get Date's extended '+010000' form). */
function timestampTextByDate(micros: bigint): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const sub = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const iso = new Date(Number(ms)).toISOString().slice(0, 19);
  if (sub === 0) return iso;
  return `${iso}.${String(sub).padStart(6, '0').replace(/0+$/, '')}`;
}

/** '00' to '99'. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
/** The largest integer a number holds exactly, as a bigint. */
const SAFE_BIGINT = BigInt(Number.MAX_SAFE_INTEGER);

/** Year, month and day of a proleptic Gregorian day number (days since 1970-01-01); the inverse of daysFromCivil. */
const civil = { y: 0, m: 0, d: 0 };
function civilFromDays(days: number): void {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  civil.d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  civil.m = mp < 10 ? mp + 3 : mp - 9;
  civil.y = yoe + era * 400 + (civil.m <= 2 ? 1 : 0);
}

/** 'YYYY-MM-DD' of `civil` (a year of 0 to 9999). */
function civilText(): string {
  return `${TWO_DIGITS[Math.floor(civil.y / 100)]}${TWO_DIGITS[civil.y % 100]}-${TWO_DIGITS[civil.m]}-${TWO_DIGITS[civil.d]}`;
}

/** The day of the last timestamp formatted, and its 'YYYY-MM-DDT': timestamps of a column mostly share their day with the one before. */
let lastDay = Number.NaN;
let lastDayText = '';

/**
 * Zone-less timestamp text of microseconds since the epoch, fraction digits only as needed.
 * Years 0 to 9999 up to 2^53 microseconds (the year 2255) are formatted digit by digit, three
 * times as fast as through Date (a Parquet read formats every timestamp); the rest through Date.
 */
export function timestampText(micros: bigint): string {
  if (micros > SAFE_BIGINT || micros < -SAFE_BIGINT) return timestampTextByDate(micros);
  const n = Number(micros);
  const secs = Math.floor(n / 1e6);
  const sub = n - secs * 1e6;
  const days = Math.floor(secs / 86400);
  if (days !== lastDay) {
    civilFromDays(days);
    if (civil.y < 0) return timestampTextByDate(micros);
    lastDay = days;
    lastDayText = `${civilText()}T`;
  }
  let rest = secs - days * 86400;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const mi = Math.floor(rest / 60);
  const s = rest - mi * 60;
  if (sub === 0) return `${lastDayText}${TWO_DIGITS[h]}:${TWO_DIGITS[mi]}:${TWO_DIGITS[s]}`;
  const digits = String(sub + 1_000_000).slice(1);
  let end = 6;
  while (digits.charCodeAt(end - 1) === 48) end--; // '0'
  return `${lastDayText}${TWO_DIGITS[h]}:${TWO_DIGITS[mi]}:${TWO_DIGITS[s]}.${end === 6 ? digits : digits.slice(0, end)}`;
}

export const dateDays = (text: string): number => Math.round(Date.parse(`${text}T00:00:00Z`) / DAY_MS);

/** 'YYYY-MM-DD' of a day number; digit by digit for years 0 to 9999, through Date otherwise. */
export function dateText(days: number): string {
  civilFromDays(days);
  if (civil.y < 0 || civil.y > 9999) return new Date(days * DAY_MS).toISOString().slice(0, 10);
  return civilText();
}

/** Converts a Tideway value of `type` into what hyparquet-writer writes (nested rows become objects). */
export function compileToParquet(type: DataType): (v: unknown) => unknown {
  switch (type.kind) {
    case 'decimal': {
      const { scale } = type;
      return (v) =>
        v === null || v === undefined ? null : unscaledDecimal(typeof v === 'string' ? v : (v as number | bigint).toString(), scale);
    }
    case 'date':
      return (v) => (v === null || v === undefined ? null : dateDays(v as string));
    case 'timestamp':
      return (v) => (v === null || v === undefined ? null : timestampMicros(v as string));
    case 'time':
      return (v) => (v === null || v === undefined ? null : timeMicros(v as string));
    case 'array': {
      const el = compileToParquet(type.element);
      return (v) => (v === null || v === undefined ? null : (v as unknown[]).map(el));
    }
    case 'map': {
      const k = compileToParquet(type.key);
      const val = compileToParquet(type.value);
      return (v) => (v === null || v === undefined ? null : new Map([...(v as Map<unknown, unknown>)].map(([a, b]) => [k(a), val(b)])));
    }
    case 'row': {
      const fields = type.fields.map((f) => ({ name: f.name, conv: compileToParquet(f.type) }));
      return (v) => {
        if (v === null || v === undefined) return null;
        const arr = v as unknown[];
        const out: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i++) out[fields[i].name] = fields[i].conv(arr[i]);
        return out;
      };
    }
    default:
      return (v) => (v === undefined ? null : v);
  }
}

const UTF8 = new TextDecoder();

/** hyparquet parsers that give Tideway's temporal texts instead of JS Dates. */
export const TIDEWAY_PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (ms: bigint) => timestampText(BigInt(ms) * 1000n),
  timestampFromMicroseconds: (us: bigint) => timestampText(BigInt(us)),
  timestampFromNanoseconds: (ns: bigint) => timestampText(BigInt(ns) / 1000n),
  dateFromDays: (days: number) => dateText(days),
  jsonFromBytes: (bytes: Uint8Array) => UTF8.decode(bytes), // a JSON column is a string column
};

function unscaledOf(raw: unknown): bigint {
  if (typeof raw === 'bigint') return raw;
  if (typeof raw === 'number') return BigInt(raw);
  const bytes = raw as Uint8Array;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes.length > 0 && bytes[0] & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

/** The unscaled value as a number when it is exact in one (an INT32 or INT64 within 2^53, up to 6 bytes of two's complement), else NaN. */
function unscaledNumber(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') return raw >= -SAFE_BIGINT && raw <= SAFE_BIGINT ? Number(raw) : Number.NaN;
  const bytes = raw as Uint8Array;
  if (bytes.length > 6) return Number.NaN;
  let v = 0;
  for (let i = 0; i < bytes.length; i++) v = v * 256 + bytes[i];
  return bytes.length > 0 && bytes[0] & 0x80 ? v - 2 ** (8 * bytes.length) : v;
}

/** decimalText of an unscaled value that is a safe integer. */
function decimalTextOfNumber(unscaled: number, scale: number): string {
  const digits = String(Math.abs(unscaled)).padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return unscaled < 0 ? `-${text}` : text;
}

/**
 * Converts what hyparquet read (decimal annotations stripped so they come raw, temporal values
 * through TIDEWAY_PARSERS) into a Tideway value of `type`.
 */
export function compileFromParquet(type: DataType): (v: unknown) => unknown {
  switch (type.kind) {
    case 'decimal': {
      const { scale } = type;
      return (v) => {
        if (v === null || v === undefined) return null;
        const n = unscaledNumber(v); // without a BigInt when it fits a number (precision up to 14 or so)
        return Number.isNaN(n) ? decimalText(unscaledOf(v), scale) : decimalTextOfNumber(n, scale);
      };
    }
    case 'bigint':
      return (v) => (v === null || v === undefined ? null : BigInt(v as number | bigint));
    case 'tinyint':
    case 'smallint':
    case 'int':
      return (v) => (v === null || v === undefined ? null : Number(v));
    case 'bytes':
      return (v) => (v === null || v === undefined ? null : Buffer.from(v as Uint8Array));
    case 'time':
      // TIME_MILLIS (number) or TIME_MICROS (bigint): HH:mm:ss[.fff...]
      return (v) => {
        if (v === null || v === undefined) return null;
        const micros = typeof v === 'bigint' ? v : BigInt(v as number) * 1000n;
        return timestampText(micros).slice(11);
      };
    case 'array': {
      const el = compileFromParquet(type.element);
      return (v) => (v === null || v === undefined ? null : (v as unknown[]).map(el));
    }
    case 'map': {
      const key = compileFromParquet(type.key);
      const parseKey = mapKeyParser(type.key);
      const val = compileFromParquet(type.value);
      return (v) => {
        if (v === null || v === undefined) return null;
        const entries = v instanceof Map ? [...v] : Object.entries(v as Record<string, unknown>);
        return new Map(entries.map(([a, b]) => [key(parseKey(a)), val(b)]));
      };
    }
    case 'row': {
      const fields = type.fields.map((f) => ({ name: f.name, conv: compileFromParquet(f.type) }));
      return (v) => {
        if (v === null || v === undefined) return null;
        const obj = v as Record<string, unknown>;
        return fields.map((f) => f.conv(obj[f.name]));
      };
    }
    default:
      return (v) => (v === undefined ? null : v);
  }
}

/** hyparquet hands map keys as object keys (text): back to the key type. */
function mapKeyParser(type: DataType): (k: unknown) => unknown {
  if (type.kind === 'tinyint' || type.kind === 'smallint' || type.kind === 'int' || type.kind === 'float' || type.kind === 'double')
    return (k) => Number(k);
  if (type.kind === 'bigint') return (k) => BigInt(k as string);
  if (type.kind === 'boolean') return (k) => k === true || k === 'true';
  return (k) => k;
}
