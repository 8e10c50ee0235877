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
