import type { FieldWriter } from './pg-binary-sink.js';

/** Base-10000 digit groups of the numeric being written (scratch; longer numbers go as text). */
const groups = new Uint16Array(64);

/**
 * numeric's binary form: base-10000 digit groups with a weight (the first group's position
 * relative to the decimal point, in groups), a sign and the display scale. Reads plain decimal
 * text ('-12.50', '.5', '+7'); anything else (exponents, NaN) returns false.
 */
export const writeNumeric: FieldWriter = (out, v) => {
  const s =
    typeof v === 'string' ? v : typeof v === 'bigint' ? v.toString() : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
  if (s === undefined) return false;
  const len = s.length;
  const first = s.charCodeAt(0);
  const negative = first === 45;
  const digitsStart = negative || first === 43 ? 1 : 0;
  let i = digitsStart;
  while (i < len && s.charCodeAt(i) === 48) i++; // leading zeros
  const intStart = i;
  while (i < len && isDigit(s.charCodeAt(i))) i++;
  const intLen = i - intStart;
  let fracStart = i;
  let fracLen = 0;
  if (i < len && s.charCodeAt(i) === 46) {
    fracStart = ++i;
    while (i < len && isDigit(s.charCodeAt(i))) i++;
    fracLen = i - fracStart;
  }
  // Something besides digits, or no digit at all ('', '-', '.').
  const anyDigit = intStart > digitsStart || intLen > 0 || fracLen > 0;
  if (i !== len || !anyDigit) return false;
  if (fracLen > 0x3fff) return false;
  // Digits as one run padded to whole groups: zeros before the integer part, after the fraction.
  const pad = (4 - (intLen % 4)) % 4;
  const intGroups = (pad + intLen) / 4;
  const total = intGroups + Math.ceil(fracLen / 4);
  if (total > groups.length) return false;
  for (let g = 0; g < total; g++) {
    let value = 0;
    for (let k = 0; k < 4; k++) {
      const p = g * 4 + k - pad; // position in the integer digits, then the fraction's
      let d = 0;
      if (p >= 0 && p < intLen) d = s.charCodeAt(intStart + p) - 48;
      else if (p >= intLen && p - intLen < fracLen) d = s.charCodeAt(fracStart + p - intLen) - 48;
      value = value * 10 + d;
    }
    groups[g] = value;
  }
  let lo = 0;
  while (lo < total && groups[lo] === 0) lo++;
  let hi = total;
  while (hi > lo && groups[hi - 1] === 0) hi--;
  const ndigits = hi - lo;
  out.ensure(12 + ndigits * 2);
  out.int32(8 + ndigits * 2);
  out.int16(ndigits);
  out.int16(ndigits === 0 ? 0 : intGroups - 1 - lo);
  out.int16(ndigits > 0 && negative ? 0x4000 : 0);
  out.int16(fracLen);
  for (let g = lo; g < hi; g++) out.int16(groups[g]);
  return true;
};

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
