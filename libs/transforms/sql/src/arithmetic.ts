import type { DataType } from '@tideway/api';
import { Decimal } from 'decimal.js';
import { SqlValueError } from './compiled.js';

type Op = '+' | '-' | '*' | '/' | '%';

/** A function of two non-null values, chosen when the query compiles. */
export type Binary<R = unknown> = (a: unknown, b: unknown) => R;

/**
 * `f` on operands whose JS type T the compiled operand types guarantee (an int expression is a
 * number, a bigint one a number or bigint): the one place where they are taken as T.
 */
export function operands<T, R>(f: (a: T, b: T) => R): Binary<R> {
  return f as Binary<R>;
}

function divByZero(): never {
  throw new SqlValueError('division by zero');
}

/**
 * The operation on two non-null values for a result type chosen when the query compiles:
 * int wraps at 32 bits and divides toward zero (Java int), bigint at 64 bits, double is IEEE,
 * decimal is exact (decimal.js) and rounded to the result scale.
 */
export function arithmetic(op: Op, type: DataType): Binary {
  switch (type.kind) {
    case 'int':
      switch (op) {
        case '+':
          return operands((a: number, b: number) => (a + b) | 0);
        case '-':
          return operands((a: number, b: number) => (a - b) | 0);
        case '*':
          return operands((a: number, b: number) => Math.imul(a, b));
        case '/':
          return operands((a: number, b: number) => (b === 0 ? divByZero() : (a / b) | 0));
        case '%':
          return operands((a: number, b: number) => (b === 0 ? divByZero() : a % b));
      }
      break;
    case 'bigint': {
      const wrap = (x: bigint) => BigInt.asIntN(64, x);
      switch (op) {
        case '+':
          return operands((a: number | bigint, b: number | bigint) => wrap(BigInt(a) + BigInt(b)));
        case '-':
          return operands((a: number | bigint, b: number | bigint) => wrap(BigInt(a) - BigInt(b)));
        case '*':
          return operands((a: number | bigint, b: number | bigint) => wrap(BigInt(a) * BigInt(b)));
        case '/':
          return operands((a: number | bigint, b: number | bigint) => (BigInt(b) === 0n ? divByZero() : wrap(BigInt(a) / BigInt(b))));
        case '%':
          return operands((a: number | bigint, b: number | bigint) => (BigInt(b) === 0n ? divByZero() : BigInt(a) % BigInt(b)));
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
  // Not reached: every case above returns for every operator.
  throw new Error(`no arithmetic for ${JSON.stringify(op)} on ${type.kind}`);
}

/** Decimal.js for a value of any numeric representation. */
export function toDecimal(x: unknown): Decimal {
  return new Decimal(typeof x === 'bigint' ? x.toString() : (x as string | number));
}
