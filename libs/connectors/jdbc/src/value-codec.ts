import type { DataType } from '@tideway/api';

/** Turns one non-null value as the driver returns it into a SeaTunnel value (types.ts). */
export type ValueDecoder = (raw: unknown) => unknown;

/** Turns one non-null SeaTunnel value into what the driver sends. */
export type ValueEncoder = (value: unknown) => unknown;

/**
 * A decoder of a column whose driver value is always a T: the column's type chose the decoder
 * (pg in text mode gives strings, mysql2 numbers or Buffers by type), so this is the one place
 * where the driver's untyped value is taken as that type.
 */
export function decoderOf<T>(decode: (raw: T) => unknown): ValueDecoder {
  return decode as ValueDecoder;
}

/** An encoder of a SeaTunnel type whose non-null values are always a T (types.ts maps each type to its JS value). */
export function encoderOf<T>(encode: (value: T) => unknown): ValueEncoder {
  return encode as ValueEncoder;
}

const identity: ValueDecoder = (v) => v;

/**
 * An integer's decimal text ('-123') as a number, for texts of up to 15 characters (below 2^53):
 * a digit loop is several times faster than Number() on the short strings databases send.
 * Anything else goes to Number().
 */
export function integerOfText(s: string): number {
  const len = s.length;
  if (len > 15) return Number(s);
  const negative = s.charCodeAt(0) === 45;
  let i = negative ? 1 : 0;
  if (i === len) return Number(s);
  let v = 0;
  for (; i < len; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(s);
    v = v * 10 + d;
  }
  return negative ? -v : v;
}

/**
 * A database's 'YYYY-MM-DD HH:MM:SS[.f]' as SeaTunnel's 'YYYY-MM-DDTHH:MM:SS[.f]'. Joined from
 * an array, the result is one flat string: concatenation would build a rope that every later
 * character access (the COPY encoder parses it) has to flatten first, twice the cost per value.
 */
export const isoTimestamp: ValueDecoder = decoderOf((s: string) => (s.charCodeAt(10) === 32 ? [s.slice(0, 10), s.slice(11)].join('T') : s));

/** A 64-bit integer's decimal text as a bigint; short ones through a number (twice as fast as BigInt's parsing). */
export const bigintOfText: ValueDecoder = decoderOf((s: string) => (s.length <= 15 ? BigInt(integerOfText(s)) : BigInt(s)));
export { identity as keepValue };

/** Canonical JSON text for map and row values (maps become objects, bigint becomes a number literal). */
export function jsonText(value: unknown): string {
  return JSON.stringify(toJsonValue(value));
}

function toJsonValue(value: unknown): unknown {
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = toJsonValue(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  // Node 20 has no JSON.rawJSON: a bigint beyond 2^53 would lose digits as a number, so it
  // becomes a string there; within range it stays a number.
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}

/**
 * A timestamp_tz value ('2024-01-02T03:04:05.123456+08:00') as UTC wall-clock text
 * ('2024-01-02 19:04:05.123456' style), keeping the fraction digits exactly: for databases
 * whose timestamp columns hold no offset.
 */
export function timestampTzToUtc(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(value);
  if (!m) return value;
  const offset = m[4] && m[4] !== 'Z' ? m[4] : '+00:00';
  const normalized = /^[+-]\d{2}$/.test(offset)
    ? `${offset}:00`
    : offset.length === 5
      ? `${offset.slice(0, 3)}:${offset.slice(3)}`
      : offset;
  const ms = Date.parse(`${m[1]}T${m[2]}${normalized}`);
  if (Number.isNaN(ms)) return value;
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${m[3] ?? ''}`;
}

/** A timestamp value ('2024-01-02T03:04:05.123') with a space for the 'T', as SQL timestamp text. */
export function spacedTimestamp(value: string): string {
  return value.charCodeAt(10) === 84 ? `${value.slice(0, 10)} ${value.slice(11)}` : value;
}

/** Bytes as a Buffer over the same memory, for drivers that bind only Buffers. */
export const bufferEncoder: ValueEncoder = encoderOf((v: Uint8Array) =>
  Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength),
);

/** Whether a type is held as text in JS and sent as text unchanged. */
export function isTextual(t: DataType): boolean {
  return t.kind === 'string' || t.kind === 'decimal' || t.kind === 'date' || t.kind === 'time' || t.kind === 'timestamp';
}
