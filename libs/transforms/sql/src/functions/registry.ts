import type { DataType } from '@tideway/api';
import type { Compiled, Evaluator } from '../compiled.js';
import { isNumeric, isTemporal, isNull } from '../sql-types.js';

/** What an argument must be; checked when the job is submitted. */
export type ArgKind = 'any' | 'string' | 'numeric' | 'integer' | 'temporal' | 'boolean';

/** One SQL function: arity, argument kinds, result type and how it evaluates. */
export interface SqlFunction {
  readonly names: readonly string[];
  readonly minArgs: number;
  readonly maxArgs: number;
  /** Argument kinds by position (the last repeats for variadic functions). */
  readonly args: readonly ArgKind[];
  /** The result type from the compiled arguments; a sentence when they do not fit. */
  resultType(args: readonly Compiled[]): DataType | string;
  /** Builds the closure; called once per query. */
  build(args: readonly Compiled[], resultType: DataType): Evaluator;
  /** Whether the result may be null even when no argument is (default: it is null only for null args). */
  readonly nullableResult?: boolean;
}

export function argFits(kind: ArgKind, t: DataType): boolean {
  if (isNull(t) || kind === 'any') return true;
  switch (kind) {
    case 'string':
      return t.kind !== 'array' && t.kind !== 'map' && t.kind !== 'row';
    case 'numeric':
      return isNumeric(t);
    case 'integer':
      return t.kind === 'tinyint' || t.kind === 'smallint' || t.kind === 'int' || t.kind === 'bigint';
    case 'temporal':
      return isTemporal(t) || t.kind === 'string';
    case 'boolean':
      return t.kind === 'boolean';
  }
}

/** A function's body on non-null values; it narrows each to the JS types its argument kind allows. */
type Impl = (...values: unknown[]) => unknown;

/**
 * A function whose result is null when any argument is null (most of the library). `impl`
 * receives the non-null values; the closure is specialised by arity so no arrays are built
 * per row.
 */
export function strict(
  names: string[],
  args: ArgKind[],
  minArgs: number,
  maxArgs: number,
  type: DataType | ((a: readonly Compiled[]) => DataType | string),
  impl: (argTypes: readonly Compiled[]) => Impl,
): SqlFunction {
  return {
    names,
    minArgs,
    maxArgs,
    args,
    resultType: typeof type === 'function' ? type : () => type,
    build: (a) => nullPropagating(a, impl(a)),
  };
}

/** Wraps `fn` so that any null argument gives null; specialised for 0-4 arguments. */
export function nullPropagating(a: readonly Compiled[], fn: Impl): Evaluator {
  const [a0, a1, a2] = a.map((c) => c.ev);
  switch (a.length) {
    case 0:
      return () => fn();
    case 1:
      return (f) => {
        const x = a0(f);
        return x === null || x === undefined ? null : fn(x);
      };
    case 2:
      return (f) => {
        const x = a0(f);
        if (x === null || x === undefined) return null;
        const y = a1(f);
        return y === null || y === undefined ? null : fn(x, y);
      };
    case 3:
      return (f) => {
        const x = a0(f);
        if (x === null || x === undefined) return null;
        const y = a1(f);
        if (y === null || y === undefined) return null;
        const z = a2(f);
        return z === null || z === undefined ? null : fn(x, y, z);
      };
    default: {
      const evs = a.map((c) => c.ev);
      return (f) => {
        const vals = new Array<unknown>(evs.length);
        for (let i = 0; i < evs.length; i++) {
          const v = evs[i](f);
          if (v === null || v === undefined) return null;
          vals[i] = v;
        }
        return fn(...vals);
      };
    }
  }
}

/** Arguments evaluated without null propagation (CONCAT, COALESCE, ...). */
export function allArgs(a: readonly Compiled[], fn: (vals: unknown[]) => unknown): Evaluator {
  const evs = a.map((c) => c.ev);
  return (f) => {
    const vals = new Array<unknown>(evs.length);
    for (let i = 0; i < evs.length; i++) {
      const v = evs[i](f);
      vals[i] = v === undefined ? null : v;
    }
    return fn(vals);
  };
}

/** A small memo for values derived from an argument (compiled regexes, date patterns). */
export function memo<K, V>(make: (k: K) => V): (k: K) => V {
  const cache = new Map<K, V>();
  return (k) => {
    let v = cache.get(k);
    if (v === undefined) {
      v = make(k);
      if (cache.size > 256) cache.clear();
      cache.set(k, v);
    }
    return v;
  };
}
