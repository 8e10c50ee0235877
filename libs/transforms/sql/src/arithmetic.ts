import type { DataType } from '@tideway/api';
import { Decimal } from 'decimal.js';
import { SqlValueError } from './compiled.js';

type Op = '+' | '-' | '*' | '/' | '%';

function divByZero(): never {
  throw new SqlValueError('division by zero');
}

/**
 * The operation on two non-null values for a result type chosen when the query compiles:
 * int wraps at 32 bits and divides toward zero (Java int), bigint at 64 bits, double is IEEE,
 * decimal is exact (decimal.js) and rounded to the result scale.
 */
export function arithmetic(op: Op, type: DataType): (a: any, b: any) => unknown {
  switch (type.kind) {
    case 'int':
      switch (op) {
        case '+':
          return (a, b) => (a + b) | 0;
        case '-':
          return (a, b) => (a - b) | 0;
        case '*':
          return (a, b) => Math.imul(a, b);
        case '/':
          return (a, b) => (b === 0 ? divByZero() : (a / b) | 0);
        case '%':
          return (a, b) => (b === 0 ? divByZero() : a % b);
      }
      break;
    case 'bigint': {
      const wrap = (x: bigint) => BigInt.asIntN(64, x);
      switch (op) {
        case '+':
          return (a, b) => wrap(BigInt(a) + BigInt(b));
        case '-':
          return (a, b) => wrap(BigInt(a) - BigInt(b));
        case '*':
          return (a, b) => wrap(BigInt(a) * BigInt(b));
        case '/':
          return (a, b) => (BigInt(b) === 0n ? divByZero() : wrap(BigInt(a) / BigInt(b)));
        case '%':
          return (a, b) => (BigInt(b) === 0n ? divByZero() : BigInt(a) % BigInt(b));
      }
      break;
    }
    case 'decimal': {
      const scale = type.scale;
      const dec = (x: unknown) => new Decimal(typeof x === 'bigint' ? x.toString() : (x as string | number));
      const out = (d: Decimal) => d.toFixed(scale, Decimal.ROUND_HALF_UP);
      switch (op) {
        case '+':
          return (a, b) => out(dec(a).plus(dec(b)));
        case '-':
          return (a, b) => out(dec(a).minus(dec(b)));
        case '*':
          return (a, b) => out(dec(a).times(dec(b)));
        case '/':
          // SeaTunnel divides to the result scale rounding away from zero (RoundingMode.UP)
          return (a, b) => {
            const d = dec(b);
            if (d.isZero()) divByZero();
            return dec(a).div(d).toFixed(scale, Decimal.ROUND_UP);
          };
        case '%':
          return (a, b) => {
            const d = dec(b);
            if (d.isZero()) divByZero();
            return out(dec(a).mod(d));
          };
      }
      break;
    }
    default:
      switch (op) {
        case '+':
          return (a, b) => Number(a) + Number(b);
        case '-':
          return (a, b) => Number(a) - Number(b);
        case '*':
          return (a, b) => Number(a) * Number(b);
        case '/':
          return (a, b) => Number(a) / Number(b);
        case '%':
          return (a, b) => Number(a) % Number(b);
      }
  }
  throw new Error(`no arithmetic for ${op} on ${type.kind}`);
}

/** Decimal.js for a value of any numeric representation. */
export function toDecimal(x: unknown): Decimal {
  return new Decimal(typeof x === 'bigint' ? x.toString() : (x as string | number));
}
