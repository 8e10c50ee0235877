/**
 * Decoders of the fields of `COPY ... TO STDOUT (FORMAT binary)` that give exactly the values the
 * text path gives (pgColumnReading's decoder applied to the same field's text output, in the session
 * PgConnection sets up: DateStyle ISO, TimeZone UTC, shortest-round-trip floats). A PG -> PG
 * pass-through hands binary tuples on undecoded; whoever looks at a row's fields decodes it with
 * these, and must not be able to tell it from a row read as text.
 *
 * Textual results (numeric, dates, times, timestamps, uuid) are written as ASCII bytes into a
 * scratch buffer and turned into one flat string: no per-field allocation besides the value.
 */

/** Decodes one non-null field of COPY BINARY: buf[start, start+len). */
export type BinaryFieldReader = (buf: Buffer, start: number, len: number) => unknown;

/** ASCII scratch for the textual values; grown for long numerics. */
let scratch = Buffer.allocUnsafe(256);

function scratchOf(size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  return scratch;
}

const ZERO = 48;
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Writes `v` (0 <= v < 2^31) in decimal at `n`, zero-padded to `width` digits (more if it needs
 * them); returns the end. Int32 arithmetic throughout (`| 0`): `%` and Math.floor on values V8
 * keeps as doubles cost several times more, and every caller's values fit.
 */
function putPadded(out: Buffer, n: number, v: number, width: number): number {
  let digits = 1;
  for (let t = v; t >= 10; t = (t / 10) | 0) digits++;
  if (digits < width) digits = width;
  for (let i = n + digits - 1; i >= n; i--) {
    const q = (v / 10) | 0;
    out[i] = ZERO + v - q * 10;
    v = q;
  }
  return n + digits;
}

function put2(out: Buffer, n: number, v: number): number {
  const q = (v / 10) | 0;
  out[n] = ZERO + q;
  out[n + 1] = ZERO + v - q * 10;
  return n + 2;
}

// ---------------------------------------------------------------------------------------------
// Numbers

const readBool: BinaryFieldReader = (buf, start) => buf[start] !== 0;
const readInt2: BinaryFieldReader = (buf, start) => buf.readInt16BE(start);
const readInt4: BinaryFieldReader = (buf, start) => buf.readInt32BE(start);
const readInt8: BinaryFieldReader = (buf, start) => buf.readBigInt64BE(start);
/** oid is unsigned: the text path reads its decimal text (up to 4294967295) as a bigint. */
const readOid: BinaryFieldReader = (buf, start) => BigInt(buf.readUInt32BE(start));
/**
 * float8's text output is the shortest decimal that reads back as the same double, so Number()
 * of it is the double itself: NaN, ±Infinity and -0 ('-0') included.
 */
const readFloat8: BinaryFieldReader = (buf, start) => buf.readDoubleBE(start);

/**
 * float4's text output is PostgreSQL's shortest decimal for the float32 (Ryu), and the text path
 * takes Number() of it: 0.1::float4 prints '0.1' and gives the double 0.1, not the float32's
 * exact 0.100000001490116. So the value is the double nearest that decimal.
 */
const readFloat4: BinaryFieldReader = (buf, start) => float4Value(buf.readUInt32BE(start), buf.readFloatBE(start));

/**
 * The number the text path gives for the float32 with these bits (`f` is its value). PostgreSQL
 * prints the decimal of fewest significant digits lying strictly between the midpoints to the
 * float's neighbours, the nearest to the float of those (an exact tie to the even last digit).
 * Strictly: a decimal right on a midpoint would read back as the float when its mantissa is even,
 * but PostgreSQL never prints one (8999999488::real prints '8.999999e+09', not '9e+09'; measured
 * in the tests). Whether some p-digit decimal fits is monotonic in p (the nearest (p+1)-digit one
 * is at least as near), so the length is found by bisection over p = 1..9; 9 always fit.
 */
export function float4Value(bits: number, f: number): number {
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  // NaN and ±Infinity print as words, zeros as '0' / '-0': Number() gives them back unchanged.
  if (exp === 0xff || (exp === 0 && mant === 0)) return f;
  const a = f < 0 ? -f : f;
  // The gap to the next float up; for a power of two the gap below is half of it (not for the
  // smallest normal exponent, whose neighbour below is a subnormal the same gap away).
  const ulp = FLOAT4_ULP[exp];
  const asymmetric = mant === 0 && exp > 1;
  const hi = a + ulp / 2;
  const lo = a - (asymmetric ? ulp / 4 : ulp / 2);
  // A guess of the decimal exponent; float4Candidate corrects it where it matters.
  decimalExponent = Math.floor(Math.log10(a));
  let low = 1;
  let high = 9;
  let found = Number.NaN;
  while (low < high) {
    const mid = (low + high) >> 1;
    const c = float4Candidate(a, mid, lo, hi, asymmetric);
    if (Number.isNaN(c)) low = mid + 1;
    else {
      high = mid;
      found = c;
    }
  }
  // Only 9 digits, never tried by the bisection, fit.
  if (Number.isNaN(found)) found = float4Candidate(a, 9, lo, hi, asymmetric);
  return f < 0 ? -found : found;
}

/** The gap above a float32 by its biased exponent: 2^(e - 150), subnormals (e = 0) as e = 1. */
const FLOAT4_ULP = Float64Array.from({ length: 255 }, (_, e) => 2 ** ((e === 0 ? 1 : e) - 150));

/** Exact doubles 10^0 .. 10^22. */
const POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/** floor(log10(a)) of the float4Value call in progress (module scratch). */
let decimalExponent = 0;

/**
 * The p-digit decimal nearest `a` (ties to the even digit) that lies strictly within (lo, hi),
 * as a number, or NaN when none does; below a power of two, where the interval is narrower under
 * the float, the next decimal up when the nearest misses.
 *
 * Where the scale 10^k that makes it a p-digit integer is an exact double (|k| <= 22: floats
 * from about 1e-14 to 1e22), in double arithmetic: a * 10^k is one rounding off the exact
 * product, so its rounding to an integer is the exact one unless the product lies within a few
 * units of its last place of a half (ties among them), and n / 10^-k is the double nearest the
 * decimal n*10^k, as Number() of its text would be. The rest goes through toExponential's exact
 * digits.
 */
function float4Candidate(a: number, p: number, lo: number, hi: number, asymmetric: boolean): number {
  // Two corrections at most: a product right at a power of ten could otherwise swing between two exponents.
  for (let tries = 0; tries < 3; tries++) {
    const k = p - 1 - decimalExponent;
    if (k < -22 || k > 22) break;
    const x = k >= 0 ? a * POW10[k] : a / POW10[-k];
    // Math.log10 can be one off next to a power of ten: the scaled value says so.
    if (x < POW10[p - 1]) {
      decimalExponent--;
      continue;
    }
    if (x >= POW10[p]) {
      decimalExponent++;
      continue;
    }
    const floor = Math.floor(x);
    const fraction = x - floor;
    if (Math.abs(fraction - 0.5) <= x * 1e-15) {
      // About halfway between two p-digit decimals: when half a unit of the last digit is well
      // past the wider side of the interval, neither fits, and no exact look is needed.
      if ((k >= 0 ? 0.5 / POW10[k] : 0.5 * POW10[-k]) > (hi - a) * 1.0001) return NaN;
      break;
    }
    const n = fraction > 0.5 ? floor + 1 : floor;
    const d = k >= 0 ? n / POW10[k] : n * POW10[-k];
    if (d > lo && d < hi) return d;
    if ((d === lo || d === hi) && within(`${n}e${-k}`, d, lo, hi)) return d;
    if (asymmetric && d < a) {
      const u = k >= 0 ? (n + 1) / POW10[k] : (n + 1) * POW10[-k];
      return within(`${n + 1}e${-k}`, u, lo, hi) ? u : NaN;
    }
    return NaN;
  }
  return float4CandidateOfText(a, p, lo, hi, asymmetric);
}

/** float4Candidate through toExponential's digits: for tiny and huge floats, and near ties. */
function float4CandidateOfText(a: number, p: number, lo: number, hi: number, asymmetric: boolean): number {
  let s = a.toExponential(p - 1);
  let d = Number(s);
  // toExponential breaks a tie upwards, PostgreSQL to the even digit. A tie is `a` being exactly
  // the p-digit decimal and a half: its (p+1)-digit text ends in 5 and is `a` itself.
  if (d > a && (s.charCodeAt(s.indexOf('e') - 1) - ZERO) % 2 === 1) {
    const longer = a.toExponential(p);
    if (longer.charCodeAt(longer.indexOf('e') - 1) === 53 && compareDecimal(longer, a) === 0) {
      s = nextDecimal(s, -1);
      d = Number(s);
    }
  }
  if (within(s, d, lo, hi)) return d;
  if (asymmetric && d < a) {
    const up = nextDecimal(s, 1);
    const u = Number(up);
    if (within(up, u, lo, hi)) return u;
  }
  return NaN;
}

/**
 * Whether the decimal `s` (whose nearest double is `d`) lies strictly within (lo, hi). lo and hi
 * are doubles, and rounding to a double keeps order, so only a `d` equal to a bound leaves the
 * question open: then the decimal is compared exactly.
 */
function within(s: string, d: number, lo: number, hi: number): boolean {
  if (d > lo && d < hi) return true;
  if (d === lo) return compareDecimal(s, lo) > 0;
  if (d === hi) return compareDecimal(s, hi) < 0;
  return false;
}

/** 'd.ddde±x' (toExponential's form) -> its decimal digits as an integer and the power of ten they are scaled by. */
function decimalParts(s: string): { digits: string; exponent: number } {
  const e = s.indexOf('e');
  const dot = s.indexOf('.');
  const digits = dot < 0 ? s.slice(0, e) : s.slice(0, dot) + s.slice(dot + 1, e);
  return { digits, exponent: Number(s.slice(e + 1)) - (dot < 0 ? 0 : e - dot - 1) };
}

/**
 * The decimal `step` units of its last digit away from `s` (rare paths: below powers of two, and
 * ties; a step down is only taken from an odd last digit, so it keeps the digit count).
 */
function nextDecimal(s: string, step: number): string {
  const { digits, exponent } = decimalParts(s);
  return `${Number(digits) + step}e${exponent}`;
}

const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Sign of (decimal `s` - double `x`) for positive finite x, exactly (BigInt; rare path). */
function compareDecimal(s: string, x: number): number {
  const { digits, exponent } = decimalParts(s);
  f64[0] = x;
  const high = f64Words[LITTLE_ENDIAN ? 1 : 0];
  const low = f64Words[LITTLE_ENDIAN ? 0 : 1];
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  if (biased !== 0) mantissa |= 1n << 52n;
  const binExp = (biased === 0 ? 1 : biased) - 1075;
  // s = digits * 10^exponent, x = mantissa * 2^binExp: scale both to integers.
  let left = BigInt(digits);
  let right = mantissa;
  if (exponent >= 0) left *= 10n ** BigInt(exponent);
  else right *= 10n ** BigInt(-exponent);
  if (binExp >= 0) right <<= BigInt(binExp);
  else left <<= BigInt(-binExp);
  return left === right ? 0 : left > right ? 1 : -1;
}

const NUMERIC_POS = 0x0000;
const NUMERIC_NEG = 0x4000;
const NUMERIC_NAN = 0xc000;
const NUMERIC_PINF = 0xd000;
const NUMERIC_NINF = 0xf000;

/**
 * numeric: ndigits, weight (of the first base-10000 group), sign and display scale, then the
 * groups. The text is the integer part (a '0' when the first group is fractional; the first
 * group without leading zeros, the rest four digits each, groups past the stored ones zero),
 * then exactly dscale fraction digits (zeros where no group is stored), as numeric's output
 * prints it; zero is stored positive, so no '-0'.
 */
const readNumeric: BinaryFieldReader = (buf, start) => {
  const ndigits = buf.readUInt16BE(start);
  const weight = buf.readInt16BE(start + 2);
  const sign = buf.readUInt16BE(start + 4);
  const dscale = buf.readUInt16BE(start + 6);
  if (sign !== NUMERIC_POS && sign !== NUMERIC_NEG) {
    if (sign === NUMERIC_NAN) return 'NaN';
    if (sign === NUMERIC_PINF) return 'Infinity';
    if (sign === NUMERIC_NINF) return '-Infinity';
    throw new Error(`numeric field with an unknown sign word 0x${sign.toString(16)}`);
  }
  const groups = start + 8;
  const out = scratchOf(3 + (weight >= 0 ? (weight + 1) * 4 : 1) + dscale);
  let n = 0;
  if (sign === NUMERIC_NEG) out[n++] = 45;
  if (weight < 0) out[n++] = ZERO;
  else {
    const first = ndigits > 0 ? buf.readUInt16BE(groups) : 0;
    n = putPadded(out, n, first, 1);
    for (let g = 1; g <= weight; g++) {
      const v = g < ndigits ? buf.readUInt16BE(groups + 2 * g) : 0;
      n = putPadded(out, n, v, 4);
    }
  }
  if (dscale > 0) {
    out[n++] = 46;
    let left = dscale;
    for (let g = weight + 1; left > 0; g++) {
      const v = g >= 0 && g < ndigits ? buf.readUInt16BE(groups + 2 * g) : 0;
      // The group's four digits, cut at the display scale (later digits are not printed).
      let div = 1000;
      for (let k = 0; k < 4 && left > 0; k++, left--) {
        out[n++] = ZERO + (((v / div) | 0) % 10);
        div /= 10;
      }
    }
  }
  return out.toString('latin1', 0, n);
};

// ---------------------------------------------------------------------------------------------
// Dates and times

/** Days from 0000-03-01 (proleptic Gregorian) to PostgreSQL's epoch, 2000-01-01. */
const EPOCH_FROM_MARCH_0 = 730_425;
const DAYS_PER_400Y = 146_097;
const DATE_END = 0x7fffffff;
const DATE_BEGIN = -0x80000000;

/**
 * Writes the date `days` after 2000-01-01 as ISO DateStyle prints it: the year zero-padded to
 * four digits (more when it has them), '-MM-DD'. Returns the end; the year (astronomical, so
 * 0 is 1 BC) is left in dateYear for the caller's ' BC' and 'T'. Civil from days: counted from
 * 0000-03-01, so the leap day ends each year, in 400-year eras.
 */
let dateYear = 0;
function putDate(out: Buffer, n: number, days: number): number {
  // Within int32 over date's whole range (its last day is 2 145 762 373 days after 0000-03-01);
  // `| 0` truncates, which is the floor for the non-negative values below the era's.
  const z = days + EPOCH_FROM_MARCH_0;
  const era = ((z >= 0 ? z : z - (DAYS_PER_400Y - 1)) / DAYS_PER_400Y) | 0;
  const doe = z - era * DAYS_PER_400Y; // 0..146096
  // Years of the era: 365 days each, less the leap days not yet had (one per 4 years, none per 100, one per 400).
  const yoe = ((doe - ((doe / 1460) | 0) + ((doe / 36524) | 0) - ((doe / 146096) | 0)) / 365) | 0;
  const doy = doe - (365 * yoe + ((yoe / 4) | 0) - ((yoe / 100) | 0)); // 0..365, from March 1st
  const mp = ((5 * doy + 2) / 153) | 0; // month from March: 0..11
  const day = doy - (((153 * mp + 2) / 5) | 0) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  dateYear = year;
  n = putPadded(out, n, year > 0 ? year : 1 - year, 4);
  out[n++] = 45;
  n = put2(out, n, month);
  out[n++] = 45;
  return put2(out, n, day);
}

/** 'HH:MM:SS' and, when there are microseconds, '.' and them without trailing zeros. */
function putTime(out: Buffer, n: number, micros: number): number {
  // micros (up to 86 400 000 000) passes int32: split it once, the rest is int32 arithmetic.
  const seconds = Math.floor(micros / 1_000_000) | 0;
  const fraction = (micros - seconds * 1_000_000) | 0;
  const minutes = (seconds / 60) | 0;
  const hours = (minutes / 60) | 0;
  n = put2(out, n, hours);
  out[n++] = 58;
  n = put2(out, n, minutes - hours * 60);
  out[n++] = 58;
  n = put2(out, n, seconds - minutes * 60);
  if (fraction !== 0) {
    out[n++] = 46;
    n = putPadded(out, n, fraction, 6);
    while (out[n - 1] === ZERO) n--;
  }
  return n;
}

const BC = Buffer.from(' BC', 'latin1');

const readDate: BinaryFieldReader = (buf, start) => {
  const days = buf.readInt32BE(start);
  if (days === DATE_END) return 'infinity';
  if (days === DATE_BEGIN) return '-infinity';
  const out = scratchOf(32);
  let n = putDate(out, 0, days);
  if (dateYear <= 0) n += BC.copy(out, n);
  return out.toString('latin1', 0, n);
};

/** time: int64 microseconds since midnight, 0 to 24:00:00 (well below 2^53). */
const readTime: BinaryFieldReader = (buf, start) => {
  const micros = buf.readInt32BE(start) * 4_294_967_296 + buf.readUInt32BE(start + 4);
  const out = scratchOf(32);
  return out.toString('latin1', 0, putTime(out, 0, micros));
};

/**
 * The day and the microseconds within it of an int64 of microseconds since 2000-01-01, split
 * without BigInt: 86 400 000 000 = 2^13 * 10 546 875, and the value shifted right by 13 bits is
 * below 2^50, exact in a double. Left in splitDays / splitMicros.
 */
let splitDays = 0;
let splitMicros = 0;
function splitTimestamp(high: number, low: number): void {
  const shifted = high * 524_288 + Math.floor(low / 8192); // floor(value / 2^13), high signed
  let q = Math.floor(shifted / 10_546_875);
  let r = shifted - q * 10_546_875;
  // The double division may land one off; the integer remainder says which way.
  if (r < 0) {
    q--;
    r += 10_546_875;
  } else if (r >= 10_546_875) {
    q++;
    r -= 10_546_875;
  }
  splitDays = q;
  splitMicros = r * 8192 + (low % 8192);
}

/**
 * timestamp and timestamptz as the text path gives them: PostgreSQL prints 'YYYY-MM-DD HH:MM:SS[.f]'
 * (timestamptz then '+00', the session being in UTC), ' BC' last; isoTimestamp puts a 'T' for the
 * character at index 10 only when it is the space, so years past 9999 keep their space; and for
 * timestamptz the text path adds ':00' only when the text ends in the two-digit offset, which a
 * BC one does not.
 */
function readTimestampOf(zoned: boolean): BinaryFieldReader {
  return (buf, start) => {
    const high = buf.readInt32BE(start);
    const low = buf.readUInt32BE(start + 4);
    if (high === 0x7fffffff && low === 0xffffffff) return 'infinity';
    if (high === -0x80000000 && low === 0) return '-infinity';
    splitTimestamp(high, low);
    const out = scratchOf(48);
    let n = putDate(out, 0, splitDays);
    const bc = dateYear <= 0;
    out[n] = n === 10 ? 84 /* T */ : 32;
    n = putTime(out, n + 1, splitMicros);
    if (zoned) {
      out[n++] = 43; // +
      out[n++] = ZERO;
      out[n++] = ZERO;
      if (!bc) {
        out[n++] = 58;
        out[n++] = ZERO;
        out[n++] = ZERO;
      }
    }
    if (bc) n += BC.copy(out, n);
    return out.toString('latin1', 0, n);
  };
}

// ---------------------------------------------------------------------------------------------
// Text, bytes and the rest

const readUtf8: BinaryFieldReader = (buf, start, len) => buf.toString('utf8', start, start + len);

/** jsonb's binary form is a version byte (1) and then the same text jsonb's output gives. */
const readJsonb: BinaryFieldReader = (buf, start, len) => {
  if (buf[start] !== 1) throw new Error(`jsonb field of binary format version ${buf[start]} (only 1 is known)`);
  return buf.toString('utf8', start + 1, start + len);
};

/** A copy: the COPY's buffer is reused or kept alive by a view, and the text path's Buffer is the row's own. */
const readBytea: BinaryFieldReader = (buf, start, len) => {
  const out = Buffer.allocUnsafe(len);
  buf.copy(out, 0, start, start + len);
  return out;
};

/**
 * "char" is one byte. PostgreSQL 15 and later print a NUL as '' and a byte of 128 or more as a
 * backslash and three octal digits (so the output is valid in any encoding); others as the
 * character. Precomputed, so no string is made per field.
 */
const CHAR_TEXT: readonly string[] = Array.from({ length: 256 }, (_, b) =>
  b === 0 ? '' : b < 128 ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`,
);
const readChar: BinaryFieldReader = (buf, start, len) => (len === 0 ? '' : CHAR_TEXT[buf[start]]);

/** uuid: 16 bytes, printed as lower-case hex in groups of 8-4-4-4-12. */
const readUuid: BinaryFieldReader = (buf, start) => {
  const out = scratchOf(36);
  let n = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[n++] = 45;
    const b = buf[start + i];
    out[n++] = HEX[b >> 4];
    out[n++] = HEX[b & 15];
  }
  return out.toString('latin1', 0, 36);
};

/** Builtin type oids (pg_type) with their readers. */
const READERS = new Map<number, BinaryFieldReader>([
  [16, readBool],
  [17, readBytea],
  [18, readChar],
  [19, readUtf8], // name
  [20, readInt8],
  [21, readInt2],
  [23, readInt4],
  [25, readUtf8], // text
  [26, readOid],
  [114, readUtf8], // json: stored and sent as its text
  [700, readFloat4],
  [701, readFloat8],
  [1042, readUtf8], // bpchar: sent with its padding, as printed
  [1043, readUtf8], // varchar
  [1082, readDate],
  [1083, readTime],
  [1114, readTimestampOf(false)],
  [1184, readTimestampOf(true)],
  [1700, readNumeric],
  [2950, readUuid],
  [3802, readJsonb],
]);

/**
 * The reader for a column of type `oid`, giving the value the text path's decoder
 * gives for the same field; undefined for a type this module does not read exactly (the pass-through
 * then is not used for that table). No covered type's value depends on the column's typmod: numeric's
 * display scale travels with each value, time and timestamp precisions round on storage, and
 * bpchar is sent padded.
 */
export function binaryFieldReader(oid: number): BinaryFieldReader | undefined {
  return READERS.get(oid);
}

/**
 * Decodes a whole tuple into values; null for a -1 length. `start` is where the tuple begins,
 * at its int16 field count, which must match the number of readers.
 */
export function decodeBinaryTuple(readers: readonly BinaryFieldReader[], buf: Buffer, start: number): unknown[] {
  const n = readers.length;
  const count = buf.readInt16BE(start);
  if (count !== n) throw new Error(`COPY BINARY tuple of ${count} fields where ${n} columns were expected`);
  const out = new Array<unknown>(n);
  let p = start + 2;
  for (let i = 0; i < n; i++) {
    const len = buf.readInt32BE(p);
    p += 4;
    if (len < 0) out[i] = null;
    else {
      out[i] = readers[i](buf, p, len);
      p += len;
    }
  }
  return out;
}
