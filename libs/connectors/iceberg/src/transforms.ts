import { dateText } from '@tideway/connector-file-common';
import murmurhash from 'murmurhash';
import { type Internal, unscaledBytes } from './values.js';

/**
 * Iceberg's partition transforms that Tideway writes: identity, year, month, day, hour,
 * truncate[W] and bucket[N]. Values are Iceberg internal values.
 */

/** Source types bucket[N] hashes (Iceberg's spec; float, double and boolean are not bucketed). */
const BUCKETED = new Set(['int', 'long', 'date', 'time', 'timestamp', 'string', 'binary']);

/**
 * Iceberg's bucket hash: 32-bit Murmur3 (x86, seed 0) of the value's hash bytes: ints, longs,
 * dates, times and timestamps as a little-endian long, strings as UTF-8, binaries as they are,
 * decimals as the unscaled value's minimal big-endian two's complement.
 */
export function bucketHash(sourceType: string, v: Internal): number {
  let bytes: Uint8Array;
  if (typeof v === 'string') bytes = Buffer.from(v, 'utf8');
  else if (v instanceof Uint8Array) bytes = v;
  else if (sourceType.startsWith('decimal')) bytes = unscaledBytes(v as bigint);
  else {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(v));
    bytes = b;
  }
  return murmurhash.v3(bytes, 0) | 0;
}

const DAY_MICROS = 86_400_000_000n;
const HOUR_MICROS = 3_600_000_000n;

const floorDiv = (a: bigint, b: bigint): bigint => (a % b === 0n || a >= 0n ? a / b : a / b - 1n);

/** Days since 1970-01-01 of a date (days) or timestamp (micros) value. */
const daysOf = (sourceType: string, v: Internal): number =>
  sourceType === 'date' ? Number(v) : Number(floorDiv(BigInt(v as bigint), DAY_MICROS));

function yearMonth(days: number): [number, number] {
  const d = new Date(days * 86_400_000);
  return [d.getUTCFullYear(), d.getUTCMonth()];
}

/** Why `transform` cannot apply to a column of `sourceType`, or undefined when it can. */
export function transformRefusal(transform: string, sourceType: string): string | undefined {
  const temporal = sourceType === 'date' || sourceType === 'timestamp';
  if (transform === 'identity')
    return sourceType === 'binary' || sourceType.includes('<') ? `identity of a ${sourceType} column is not written` : undefined;
  if (transform === 'year' || transform === 'month' || transform === 'day')
    return temporal ? undefined : `${transform} applies to date and timestamp columns`;
  if (transform === 'hour') return sourceType === 'timestamp' ? undefined : 'hour applies to timestamp columns';
  const n = /^bucket\[(\d+)\]$/.exec(transform);
  if (n) {
    if (Number(n[1]) < 1) return 'bucket needs at least 1 bucket';
    return BUCKETED.has(sourceType) || sourceType.startsWith('decimal')
      ? undefined
      : 'bucket applies to int, long, decimal, date, time, timestamp, string and binary columns';
  }
  const w = /^truncate\[(\d+)\]$/.exec(transform);
  if (w) {
    if (Number(w[1]) < 1) return 'truncate needs a width of at least 1';
    return sourceType === 'int' || sourceType === 'long' || sourceType === 'string' || sourceType.startsWith('decimal')
      ? undefined
      : 'truncate applies to int, long, string and decimal columns';
  }
  return `transform ${transform} is not written by Tideway (identity, year, month, day, hour, truncate[W], bucket[N])`;
}

/** The Iceberg type of the partition values of `transform` over a `sourceType` column. */
export function resultType(transform: string, sourceType: string): string {
  if (transform === 'year' || transform === 'month' || transform === 'hour' || transform.startsWith('bucket')) return 'int';
  if (transform === 'day') return 'date';
  return sourceType;
}

/** The partition value of a source value. */
export function applyTransform(transform: string, sourceType: string, v: Internal | null): Internal | null {
  if (v === null) return null;
  switch (transform) {
    case 'identity':
      return v;
    case 'year':
      return yearMonth(daysOf(sourceType, v))[0] - 1970;
    case 'month': {
      const [y, m] = yearMonth(daysOf(sourceType, v));
      return (y - 1970) * 12 + m;
    }
    case 'day':
      return daysOf(sourceType, v);
    case 'hour':
      return Number(floorDiv(BigInt(v as bigint), HOUR_MICROS));
    default: {
      const buckets = /^bucket\[(\d+)\]$/.exec(transform);
      if (buckets) return (bucketHash(sourceType, v) & 0x7fffffff) % Number(buckets[1]);
      const width = Number(/^truncate\[(\d+)\]$/.exec(transform)![1]);
      if (typeof v === 'string') return [...v].slice(0, width).join('');
      if (typeof v === 'bigint') return v - (((v % BigInt(width)) + BigInt(width)) % BigInt(width));
      const n = Number(v);
      return n - (((n % width) + width) % width);
    }
  }
}

/** Iceberg's human string of a partition value of `transform` (the partition's folder name). */
export function transformHuman(transform: string, v: Internal | null, fallback: (v: Internal | null) => string): string {
  if (v === null) return 'null';
  const n = Number(v);
  if (transform.startsWith('bucket')) return String(n);
  switch (transform) {
    case 'year':
      return String(1970 + n);
    case 'month':
      return `${1970 + Math.floor(n / 12)}-${String((((n % 12) + 12) % 12) + 1).padStart(2, '0')}`;
    case 'day':
      return dateText(n);
    case 'hour': {
      const days = Math.floor(n / 24);
      return `${dateText(days)}-${String(n - days * 24).padStart(2, '0')}`;
    }
    default:
      return fallback(v);
  }
}
