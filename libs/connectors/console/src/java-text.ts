/**
 * Values as text the way SeaTunnel's Java objects print them (String.valueOf), so Console
 * output matches SeaTunnel's: doubles as Double.toString ("1.0", "1.0E7"), floats as
 * Float.toString of the float32 value, decimals as BigDecimal.toString, times as
 * LocalTime.toString ("12:34" when the seconds are zero), offsets as OffsetDateTime ("Z").
 */

import { javaDouble, javaFloat, javaTime, javaTimestamp } from '@tideway/api';

export { javaDouble, javaFloat, javaTime, javaTimestamp };

/** BigDecimal.toString of a decimal text: plain, or scientific when the adjusted exponent is below -6. */
export function javaDecimal(text: string): string {
  const neg = text.startsWith('-');
  const body = neg || text.startsWith('+') ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const scale = dot < 0 ? 0 : body.length - dot - 1;
  const unscaled = body.replace('.', '').replace(/^0+(?=\d)/, '');
  const adjusted = unscaled.length - 1 - scale;
  if (adjusted >= -6) return text;
  const mant = unscaled.length > 1 ? `${unscaled[0]}.${unscaled.slice(1)}` : unscaled;
  return `${neg ? '-' : ''}${mant}E${adjusted}`;
}

/** OffsetDateTime.toString of an ISO text with offset ('+00:00' prints as 'Z'). */
export function javaTimestampTz(text: string): string {
  const m = /(Z|[+-]\d{2}:?\d{2})$/.exec(text);
  if (!m) return javaTimestamp(text);
  const offset = m[1] === 'Z' || /^[+-]00:?00$/.test(m[1]) ? 'Z' : m[1];
  return javaTimestamp(text.slice(0, m.index)) + offset;
}

/** A byte[] as SeaTunnel's Console lists it: signed Java bytes, "[98, -1]". */
export function javaBytes(b: Uint8Array): string {
  let s = '[';
  for (let i = 0; i < b.length; i++) s += (i > 0 ? ', ' : '') + ((b[i] << 24) >> 24);
  return `${s}]`;
}
