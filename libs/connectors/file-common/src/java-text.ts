/**
 * How Java prints values, because SeaTunnel's text, csv and json files and partition folder
 * names carry Java's spellings (Double.toString gives `1.0` and `1.0E7`, not `1` and `10000000`).
 */

/** Java's Double.toString. */
export function javaDoubleText(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d); // plain notation in this range
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = d.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** Java's Float.toString: the shortest digits that round-trip through a 32-bit float. */
export function javaFloatText(value: number): string {
  const f = Math.fround(value);
  if (!Number.isFinite(f) || f === 0) return javaDoubleText(f);
  for (let p = 1; p <= 9; p++) {
    const candidate = Number(f.toPrecision(p));
    if (Math.fround(candidate) === f) return javaDoubleText(candidate);
  }
  return javaDoubleText(f);
}

/**
 * A temporal value as Java's ISO formatters print it: the fraction loses trailing zeros and
 * disappears when zero (`10:00:00.500` -> `10:00:00.5`, `10:00:00.000` -> `10:00:00`).
 */
export function isoTemporalText(held: string): string {
  const dot = held.lastIndexOf('.');
  if (dot < 0 || held.indexOf(':') < 0 || dot < held.lastIndexOf(':')) return held;
  let end = held.length;
  while (end > dot + 1 && held.charCodeAt(end - 1) === 48) end--;
  return end === dot + 1 ? held.slice(0, dot) : held.slice(0, end);
}
