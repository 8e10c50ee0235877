import { Types, type DataType } from '@tideway/api';
import { Decimal } from 'decimal.js';
import { toDecimal } from '../arithmetic.js';
import { SqlValueError, type Compiled } from '../compiled.js';
import { strict, type ArgKind, type SqlFunction } from './registry.js';

const D = Types.DOUBLE;

/** A double-valued function of doubles (trig, exp, ...), null in, null out. */
function math(names: string[], arity: number, f: (...x: number[]) => number): SqlFunction {
  return strict(names, new Array<ArgKind>(arity).fill('numeric'), arity, arity, D, (a) => {
    const widen = floatWidening(a);
    return (...xs: unknown[]) => f(...xs.map((x, i) => widen[i](x)));
  });
}

/**
 * How each argument reads as a Java double: a float argument is its float32 value widened
 * (Float.doubleValue: 3.4E38f is 3.3999999521443642E38), the others as they are.
 */
function floatWidening(a: readonly Compiled[]): ((x: unknown) => number)[] {
  return a.map((c) => (c.type.kind === 'float' ? (x: unknown) => Math.fround(Number(x)) : Number));
}

function positive(fn: string, x: number): number {
  if (!(x > 0)) throw new SqlValueError(`${fn} needs a positive argument, not ${x}`);
  return x;
}

type Mode = Decimal.Rounding;

/**
 * ROUND/TRUNC/CEIL/FLOOR to `digits` fractional digits with a rounding mode, keeping the value's
 * representation (number, bigint or decimal text) as SeaTunnel keeps the argument's type.
 */
function roundTo(type: DataType, mode: Mode): (v: unknown, digits?: unknown) => unknown {
  return (v, digits = 0) => {
    const scale = Number(digits);
    if (type.kind === 'decimal') return toDecimal(v).toDecimalPlaces(Math.max(0, scale), mode).toFixed(type.scale);
    if (type.kind === 'bigint') return scale >= 0 ? v : BigInt(roundNeg(toDecimal(v), scale, mode).toFixed());
    if (type.kind === 'float' || type.kind === 'double') {
      const r = toDecimal(v).toDecimalPlaces(Math.max(0, scale), mode);
      const n = (scale < 0 ? roundNeg(toDecimal(v), scale, mode) : r).toNumber();
      // SeaTunnel rounds through BigDecimal, which has no negative zero (only its TRUNC to
      // 0 digits goes through Math.ceil/floor and keeps it)
      return scale !== 0 || mode === Decimal.ROUND_HALF_UP ? n + 0 : n;
    }
    return scale >= 0 ? v : roundNeg(toDecimal(v), scale, mode).toNumber();
  };
}

function roundNeg(d: Decimal, scale: number, mode: Mode): Decimal {
  const f = new Decimal(10).pow(-scale);
  return d.div(f).toDecimalPlaces(0, mode).times(f);
}

const firstArgType = (a: readonly Compiled[]) => (a[0].type.kind === 'null' ? D : a[0].type);

/** The numeric functions of SeaTunnel's Sql transform (docs/en/transform-v2/sql-functions.md). */
export const NUMERIC_FUNCTIONS: SqlFunction[] = [
  strict(['abs'], ['numeric'], 1, 1, firstArgType, (a) => {
    const t = a[0].type.kind;
    const limit = t === 'tinyint' ? -128 : t === 'smallint' ? -32768 : t === 'int' ? -2147483648 : undefined;
    return (v) => {
      if (typeof v === 'bigint') {
        if (v === -(2n ** 63n)) throw new SqlValueError(`ABS(${v}) overflows bigint`);
        return v < 0n ? -v : v;
      }
      if (typeof v === 'string') return v.startsWith('-') ? v.slice(1) : v;
      if (v === limit) throw new SqlValueError(`ABS(${limit}) overflows ${t}`);
      return Math.abs(v as number);
    };
  }),
  math(['acos'], 1, Math.acos),
  math(['asin'], 1, Math.asin),
  math(['atan'], 1, Math.atan),
  math(['atan2'], 2, Math.atan2),
  math(['cos'], 1, Math.cos),
  math(['cosh'], 1, Math.cosh),
  math(['cot'], 1, (x) => {
    const t = Math.tan(x);
    if (t === 0) throw new SqlValueError('COT: division by zero');
    return 1 / t;
  }),
  math(['sin'], 1, Math.sin),
  math(['sinh'], 1, Math.sinh),
  math(['tan'], 1, Math.tan),
  math(['tanh'], 1, Math.tanh),
  math(['exp'], 1, Math.exp),
  math(['ln'], 1, (x) => Math.log(positive('LN', x))),
  math(['log10'], 1, (x) => Math.log10(positive('LOG10', x))),
  strict(['log'], ['numeric', 'numeric'], 1, 2, D, (a) =>
    a.length === 1
      ? (x: unknown) => Math.log(positive('LOG', Number(x)))
      : (b: unknown, x: unknown) => {
          const base = positive('LOG (base)', Number(b));
          const v = positive('LOG', Number(x));
          if (base === 1) throw new SqlValueError('LOG base cannot be 1');
          return base === Math.E ? Math.log(v) : base === 10 ? Math.log10(v) : Math.log(v) / Math.log(base);
        },
  ),
  // Java's Math.toRadians/toDegrees: one multiplication by the constant
  math(['radians'], 1, (x) => x * 0.017453292519943295),
  math(['degrees'], 1, (x) => x * 57.29577951308232),
  math(['sqrt'], 1, Math.sqrt),
  math(['power', 'pow'], 2, Math.pow),
  { names: ['pi'], minArgs: 0, maxArgs: 0, args: [], resultType: () => D, build: () => () => Math.PI },
  {
    names: ['rand', 'random'],
    minArgs: 0,
    maxArgs: 1,
    args: ['integer'],
    resultType: () => D,
    nullableResult: false,
    build: (a) => {
      if (a.length === 0) return () => Math.random();
      // a seed gives java.util.Random's first nextDouble() for that seed, as SeaTunnel's RAND(seed)
      const ev = a[0].ev;
      return (f) => {
        const s = ev(f);
        return s == null ? Math.random() : javaRandomDouble(Number(s));
      };
    },
  },
  strict(
    ['mod'],
    ['numeric', 'numeric'],
    2,
    2,
    (a) => (a[1].type.kind === 'null' ? D : a[1].type),
    (a) => {
      const t = a[1].type;
      return (x: unknown, y: unknown) => {
        // as SeaTunnel: both read as doubles' decimal text, the remainder has the dividend's sign
        const d = new Decimal(typeof y === 'bigint' ? y.toString() : Number(y));
        if (d.isZero()) throw new SqlValueError('MOD by zero');
        const r = new Decimal(typeof x === 'bigint' ? x.toString() : Number(x)).mod(d);
        if (t.kind === 'bigint') return BigInt(r.trunc().toFixed());
        if (t.kind === 'decimal') return r.toFixed(t.scale);
        if (t.kind === 'float' || t.kind === 'double') return r.toNumber();
        return r.trunc().toNumber();
      };
    },
  ),
  strict(['ceil', 'ceiling'], ['numeric'], 1, 1, Types.INT, () => (v) => toInt(toDecimal(v).toDecimalPlaces(0, Decimal.ROUND_CEIL))),
  strict(['floor'], ['numeric'], 1, 1, Types.INT, () => (v) => toInt(toDecimal(v).toDecimalPlaces(0, Decimal.ROUND_FLOOR))),
  strict(['round'], ['numeric', 'integer'], 1, 2, firstArgType, (a) => roundTo(a[0].type, Decimal.ROUND_HALF_UP)),
  strict(['trunc', 'truncate'], ['numeric', 'integer'], 1, 2, D, (a) => {
    const r = roundTo(D, Decimal.ROUND_DOWN);
    const [widen] = floatWidening(a);
    return (v: unknown, digits?: unknown) => r(widen(v), digits);
  }),
  {
    names: ['sign'],
    minArgs: 1,
    maxArgs: 1,
    args: ['numeric'],
    resultType: () => Types.INT,
    nullableResult: false,
    // SeaTunnel's SIGN(NULL) is 0
    build: (a) => {
      const ev = a[0].ev;
      return (f) => {
        const v = ev(f);
        if (v == null) return 0;
        const n = typeof v === 'string' ? toDecimal(v).toNumber() : Number(v);
        return n === 0 || Number.isNaN(n) ? 0 : n < 0 ? -1 : 1;
      };
    },
  },
];

const MULTIPLIER = 0x5deece66dn;
const MASK = (1n << 48n) - 1n;

/** java.util.Random(seed).nextDouble(): the 48-bit LCG's two draws of 26 and 27 bits. */
export function javaRandomDouble(seed: number): number {
  let state = (BigInt(Math.trunc(seed) | 0) ^ MULTIPLIER) & MASK;
  const next = (bits: bigint): bigint => {
    state = (state * MULTIPLIER + 0xbn) & MASK;
    return state >> (48n - bits);
  };
  const hi = next(26n);
  const lo = next(27n);
  return Number((hi << 27n) + lo) * 2 ** -53;
}

function toInt(d: Decimal): number {
  const n = d.toNumber();
  if (n > 2147483647 || n < -2147483648) throw new SqlValueError(`${d.toFixed()} does not fit int`);
  return n;
}
