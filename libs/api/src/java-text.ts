/**
 * Java's spellings of floating-point numbers. SeaTunnel prints and writes values the way Java's
 * objects print them, so Console lines, file contents, Sql casts to string and Split all need
 * `Double.toString` (`1.0`, `1.0E7`, `1.0E-4`) and `Float.toString` rather than JavaScript's.
 */

/** Java's Double.toString. */
export function javaDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(v);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(v); // plain notation in this range
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = v.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** Java's Float.toString of the float32 nearest to `v`: the fewest digits that read back as that float. */
export function javaFloat(v: number): string {
  const f = Math.fround(v);
  if (!Number.isFinite(f) || f === 0) return javaDouble(f);
  for (let p = 1; p <= 9; p++) {
    const shortest = Number(f.toPrecision(p));
    if (Math.fround(shortest) === f) return javaDouble(shortest);
  }
  return javaDouble(f);
}
