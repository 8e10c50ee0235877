import { Types, type DataType } from '@tideway/api';

/** Order of numeric types as SeaTunnel widens them (its SqlType order). */
const NUMERIC_RANK: Partial<Record<DataType['kind'], number>> = {
  tinyint: 1,
  smallint: 2,
  int: 3,
  bigint: 4,
  float: 5,
  double: 6,
  decimal: 7,
};

export function isNumeric(t: DataType): boolean {
  return NUMERIC_RANK[t.kind] !== undefined;
}

export function isIntegral(t: DataType): boolean {
  return t.kind === 'tinyint' || t.kind === 'smallint' || t.kind === 'int' || t.kind === 'bigint';
}

/** Held as a JS number (not bigint, not decimal text). */
export function isSmallInt(t: DataType): boolean {
  return t.kind === 'tinyint' || t.kind === 'smallint' || t.kind === 'int';
}

export function isTemporal(t: DataType): boolean {
  return t.kind === 'date' || t.kind === 'time' || t.kind === 'timestamp' || t.kind === 'timestamp_tz';
}

export function isNull(t: DataType): boolean {
  return t.kind === 'null';
}

/**
 * The result type of `+ - * / %` over two numeric types, as SeaTunnel infers it: int when both
 * are at most int, bigint when integral and one is bigint, decimal(max p, max s) when either
 * is decimal, else double. Undefined when the pair is not numeric.
 */
export function arithmeticType(a: DataType, b: DataType): DataType | undefined {
  if (isNull(a)) return isNull(b) ? Types.INT : arithmeticType(b, b);
  if (isNull(b)) return arithmeticType(a, a);
  if (!isNumeric(a) || !isNumeric(b)) return undefined;
  if (isSmallInt(a) && isSmallInt(b)) return Types.INT;
  if (isIntegral(a) && isIntegral(b)) return Types.BIGINT;
  if (a.kind === 'decimal' || b.kind === 'decimal') return widestDecimal(a, b);
  return Types.DOUBLE;
}

function widestDecimal(a: DataType, b: DataType): DataType {
  let p = 0;
  let s = 0;
  for (const t of [a, b]) {
    if (t.kind === 'decimal') {
      p = Math.max(p, t.precision);
      s = Math.max(s, t.scale);
    }
  }
  return Types.decimal(p, s);
}

/**
 * The common type of CASE branches or COALESCE arguments (SeaTunnel's getMaxType): null
 * gives way to the other, equal types stay, numerics widen; anything else has none.
 */
export function commonType(a: DataType, b: DataType): DataType | undefined {
  if (isNull(a)) return b;
  if (isNull(b)) return a;
  if (sameType(a, b)) return a;
  if (!isNumeric(a) || !isNumeric(b)) return undefined;
  if (a.kind === 'decimal' || b.kind === 'decimal') return widestDecimal(a, b);
  return NUMERIC_RANK[a.kind]! >= NUMERIC_RANK[b.kind]! ? a : b;
}

export function sameType(a: DataType, b: DataType): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'decimal' && b.kind === 'decimal') return a.precision === b.precision && a.scale === b.scale;
  if (a.kind === 'array' || a.kind === 'map' || a.kind === 'row') return JSON.stringify(a) === JSON.stringify(b);
  return true;
}

/** Whether two types may be compared with `= < >` (checked when the job is submitted). */
export function comparable(a: DataType, b: DataType): boolean {
  if (isNull(a) || isNull(b)) return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  if (a.kind === b.kind) return true;
  // temporal values are ISO text: comparing them with a string literal is well defined
  if ((isTemporal(a) && b.kind === 'string') || (isTemporal(b) && a.kind === 'string')) return true;
  return false;
}
