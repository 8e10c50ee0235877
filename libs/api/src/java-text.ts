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

const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** LocalTime.toString of 'HH:mm:ss[.fraction]'. */
export function javaTime(text: string): string {
  const m = TIME_RE.exec(text);
  if (!m) return text;
  const nanos = m[4] === undefined ? 0 : Number(m[4].padEnd(9, '0'));
  const sec = m[3] === undefined ? 0 : Number(m[3]);
  let out = `${m[1]}:${m[2]}`;
  if (sec > 0 || nanos > 0) out += `:${m[3]}`;
  if (nanos > 0) {
    const nano9 = String(nanos).padStart(9, '0');
    out += nanos % 1_000_000 === 0 ? `.${nano9.slice(0, 3)}` : nanos % 1000 === 0 ? `.${nano9.slice(0, 6)}` : `.${nano9}`;
  }
  return out;
}

/** LocalDateTime.toString of 'YYYY-MM-DDTHH:mm:ss[.f]'. */
export function javaTimestamp(text: string): string {
  const t = text.indexOf('T') >= 0 ? text.indexOf('T') : text.indexOf(' ');
  return t < 0 ? text : `${text.slice(0, t)}T${javaTime(text.slice(t + 1))}`;
}
