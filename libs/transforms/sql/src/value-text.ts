import { javaDouble, javaTime, javaTimestamp, type DataType } from '@tideway/api';

/**
 * How a value reads as text inside SQL functions (CONCAT, ||, CAST AS STRING, TO_CHAR): the
 * way SeaTunnel's Java objects print, so results match (a double prints `12.0`, `1.0E10`).
 */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? String(v) : javaDouble(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${valueText(k)}=${x === null ? 'null' : valueText(x)}`).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map((x) => (x === null ? 'null' : valueText(x))).join(', ')}]`;
  return String(v);
}

/** The text of a value of a known type: doubles always print as Java doubles (`3.0`). */
export function typedText(v: unknown, type: DataType): string {
  if (typeof v === 'number' && (type.kind === 'double' || type.kind === 'float')) return javaDouble(v);
  // LocalDateTime/LocalTime.toString: no seconds when they and the fraction are zero
  if (typeof v === 'string' && type.kind === 'timestamp') return javaTimestamp(v);
  if (typeof v === 'string' && type.kind === 'time') return javaTime(v);
  return valueText(v);
}
