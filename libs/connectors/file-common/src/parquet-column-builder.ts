import type { SchemaElement } from 'hyparquet';

/** min/max in the form hyparquet-writer's metadata writer takes (number, bigint, boolean, bytes). */
export interface MinMax {
  readonly min_value?: number | bigint | boolean | Uint8Array;
  readonly max_value?: number | bigint | boolean | Uint8Array;
}

type Typed = Uint8Array | Int32Array | Float32Array | Float64Array;

export function grown<T extends Typed>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** One column of a row group being built. */
export abstract class ColumnBuilder {
  /** Rows added (present or null). */
  rows = 0;
  /** Present (non-null) values added. */
  count = 0;
  /** Definition level of each row: 1 present, 0 null. */
  defs: Uint8Array = new Uint8Array(4096);

  constructor(readonly element: SchemaElement) {}

  add(v: unknown): void {
    if (this.rows === this.defs.length) this.defs = grown(this.defs, this.rows + 1);
    if (v === null || v === undefined) {
      this.defs[this.rows++] = 0;
      return;
    }
    this.defs[this.rows++] = 1;
    this.push(v);
    this.count++;
  }

  /**
   * Adds the values of rows [r0, r1) of `rows` at index `col`: the flat encoder's batch path, one
   * loop per column. Each class that defines `push` has its own copy of this one-line loop, so
   * that V8 inlines that class's `push` into it; one loop here would see every class and inline
   * none (the orders bench: 1.80 us a row with one loop, 1.65 with a loop per class, 2.0 row by
   * row).
   */
  abstract addColumn(rows: readonly (readonly unknown[])[], r0: number, r1: number, col: number): void;

  /** Stores present value number `this.count`. */
  protected abstract push(v: unknown): void;

  /** Bytes the values take (PLAIN, or dictionary indices and entries). */
  abstract bytes(): number;

  /** PLAIN encoding of present values [v0, v1). */
  abstract plain(v0: number, v1: number): Uint8Array;

  abstract statistics(): MinMax;

  /** Empties the column for the next row group; buffers are kept. */
  reset(): void {
    this.rows = 0;
    this.count = 0;
  }
}
