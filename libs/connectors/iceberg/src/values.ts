import {
  bytesUnscaled,
  dateDays,
  dateText,
  timeMicros,
  timestampMicros,
  timestampText,
  unscaledBytes,
  unscaledDecimal,
} from '@tideway/connector-file-common';

/**
 * Values in Iceberg's forms: the internal value of a primitive (days, micros, unscaled decimal),
 * its single-value binary serialization (the spec's appendix D: column bounds in manifests) and
 * its human string (partition paths).
 */

/** An Iceberg primitive's internal value: number (int, float, double, date days), bigint (long, time, timestamp micros, unscaled decimal), boolean, string or bytes. */
export type Internal = number | bigint | boolean | string | Uint8Array;

/** A Tideway value of a column of Iceberg type `type` in Iceberg's internal form. */
export function internalOf(type: string, v: unknown): Internal | null {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'long':
      return typeof v === 'bigint' ? v : BigInt(v as number);
    case 'date': {
      const days = dateDays(v as string);
      if (Number.isNaN(days)) throw new TypeError(`A date value '${v as string}' is not a date (YYYY-MM-DD).`);
      return days;
    }
    case 'time':
      return timeMicros(v as string);
    case 'timestamp':
      return timestampMicros(v as string);
    default:
      if (type.startsWith('decimal')) return unscaledDecimal(v as string, decimalScale(type));
      return v as Internal;
  }
}

export function decimalScale(type: string): number {
  return Number(/,\s*(\d+)\)/.exec(type)?.[1] ?? 0);
}

export { bytesUnscaled, unscaledBytes };

/** The single-value serialization of an internal value of Iceberg type `type`. */
export function serializeValue(type: string, v: Internal): Uint8Array {
  const b = Buffer.alloc(8);
  switch (type) {
    case 'boolean':
      return Uint8Array.of(v ? 1 : 0);
    case 'int':
    case 'date':
      b.writeInt32LE(Number(v));
      return b.subarray(0, 4);
    case 'long':
    case 'time':
    case 'timestamp':
      b.writeBigInt64LE(BigInt(v as bigint | number));
      return b;
    case 'float':
      b.writeFloatLE(Number(v));
      return b.subarray(0, 4);
    case 'double':
      b.writeDoubleLE(Number(v));
      return b;
    case 'string':
      return typeof v === 'string' ? Buffer.from(v, 'utf8') : (v as Uint8Array);
    case 'binary':
      return v as Uint8Array;
    default:
      if (type.startsWith('decimal')) return unscaledBytes(v as bigint);
      throw new Error(`Iceberg type ${type} has no single-value serialization here.`);
  }
}

/** The internal value of a single-value serialization. */
export function deserializeValue(type: string, b: Uint8Array): Internal {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  switch (type) {
    case 'boolean':
      return buf[0] !== 0;
    case 'int':
    case 'date':
      return buf.readInt32LE();
    case 'long':
    case 'time':
    case 'timestamp':
      return buf.readBigInt64LE();
    case 'float':
      return buf.readFloatLE();
    case 'double':
      return buf.readDoubleLE();
    case 'string':
      return buf.toString('utf8');
    case 'binary':
      return b;
    default:
      if (type.startsWith('decimal')) return bytesUnscaled(b);
      throw new Error(`Iceberg type ${type} has no single-value serialization here.`);
  }
}

/** Iceberg's human string of a value (partition paths): dates and timestamps as ISO text. */
export function humanString(type: string, v: Internal | null): string {
  if (v === null) return 'null';
  switch (type) {
    case 'date':
      return dateText(Number(v));
    case 'timestamp':
      return timestampText(BigInt(v as bigint | number));
    case 'binary':
      return Buffer.from(v as Uint8Array).toString('base64');
    default:
      return String(v);
  }
}

/** Compares two internal values of one type (byte arrays unsigned, lexicographically). */
export function compareInternal(a: Internal, b: Internal): number {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
}
