/**
 * How Java prints values, because SeaTunnel's text, csv and json files and partition folder
 * names carry Java's spellings (Double.toString gives `1.0` and `1.0E7`, not `1` and `10000000`).
 */

export { javaDouble as javaDoubleText, javaFloat as javaFloatText } from '@tideway/api';

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
