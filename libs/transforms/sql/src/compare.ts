import type { DataType } from '@tideway/api';
import { operands, toDecimal, type Binary } from './arithmetic.js';
import { isNumeric, isSmallInt } from './sql-types.js';

/** Orders two non-null values; 0 when equal. */
export type Comparator = Binary<number>;

function exact(t: DataType): boolean {
  return t.kind === 'decimal' || t.kind === 'bigint' || isSmallInt(t);
}

/**
 * The comparator for two types, chosen when the query compiles: numbers held as JS numbers
 * compare directly, exact numbers (bigint, decimal) exactly, other numeric mixes as doubles
 * (as SeaTunnel does); text and temporal text by UTF-16 order; booleans false < true.
 */
export function comparatorFor(a: DataType, b: DataType): Comparator {
  if (isNumeric(a) && isNumeric(b)) {
    const plain = (t: DataType) => isSmallInt(t) || t.kind === 'float' || t.kind === 'double';
    if (plain(a) && plain(b)) return operands((x: number, y: number) => (x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN));
    if (a.kind === 'bigint' && b.kind === 'bigint') return operands((x: bigint, y: bigint) => (x < y ? -1 : x > y ? 1 : 0));
    if (exact(a) && exact(b)) return (x, y) => toDecimal(x).cmp(toDecimal(y));
    return (x, y) => {
      const p = Number(x);
      const q = Number(y);
      return p < q ? -1 : p > q ? 1 : p === q ? 0 : NaN;
    };
  }
  if (a.kind === 'bytes' || a.kind === 'array' || a.kind === 'map' || a.kind === 'row') return (x, y) => (deepEqual(x, y) ? 0 : NaN);
  // Text, temporal text and booleans: JS's order on them is the one SQL needs.
  return operands((x: string | boolean, y: string | boolean) => (x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN));
}

function deepEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (x instanceof Uint8Array && y instanceof Uint8Array) return Buffer.from(x).equals(Buffer.from(y));
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => deepEqual(v, y[i]));
  if (x instanceof Map && y instanceof Map) return x.size === y.size && [...x].every(([k, v]) => y.has(k) && deepEqual(v, y.get(k)));
  return false;
}
