/**
 * Approximate size of a row's fields when its table's schema is not known here: 8 bytes per
 * number, length for strings and bytes, recursion for containers.
 */
export function rowBytes(fields: readonly unknown[]): number {
  let n = 0;
  for (let i = 0; i < fields.length; i++) n += valueBytes(fields[i]);
  return n;
}

/** Approximate size of one value (see rowBytes). */
export function valueBytes(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return v.length;
    case 'number':
      return 8;
    case 'bigint':
      return 8;
    case 'boolean':
      return 1;
    case 'object':
      if (v === null) return 0;
      if (v instanceof Uint8Array) return v.byteLength;
      if (Array.isArray(v)) return rowBytes(v);
      if (v instanceof Map) {
        let n = 0;
        for (const [k, x] of v) n += valueBytes(k) + valueBytes(x);
        return n;
      }
      return 0;
    default:
      return 0;
  }
}
