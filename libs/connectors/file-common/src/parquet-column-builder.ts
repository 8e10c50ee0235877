import type { SchemaElement } from 'hyparquet';
import type { RawColumn } from './parquet-row-group.js';

/** min/max in the form hyparquet-writer's metadata writer takes (number, bigint, boolean, bytes). */
export interface MinMax {
  readonly min_value?: number | bigint | boolean | Uint8Array;
  readonly max_value?: number | bigint | boolean | Uint8Array;
}

/** A builder's buffered values, as encodeRowGroup takes them (views into the builder's buffers, valid until its reset). */
export type RawValues = Pick<RawColumn, 'values' | 'fixed' | 'starts' | 'dictionary' | 'statistics'>;

type Typed = Uint8Array | Int32Array | Float32Array | Float64Array;

export function grown<T extends Typed>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/**
 * An array of `a`'s kind over the buffer of `spare` (a row group's, sent back by the row-group
 * thread), or a new one as long as `a` when there is none.
 */
export function takeOver<T extends Typed>(a: T, spare: ArrayBufferView | undefined): T {
  const Kind = a.constructor as new (from: ArrayBuffer | number) => T;
  return spare ? new Kind(spare.buffer as ArrayBuffer) : new Kind(a.length);
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

  /** Bytes the buffered values take. */
  abstract bytes(): number;

  /** The buffered values and their statistics. */
  abstract raw(): RawValues;

  /** The buffered row group of this column: views into this builder's buffers. */
  rawColumn(): RawColumn {
    const e = this.element;
    return {
      name: e.name,
      type: e.type!,
      rows: this.rows,
      count: this.count,
      defs: new Uint8Array(this.defs.buffer, 0, this.rows),
      ...this.raw(),
    };
  }

  /**
   * Gives its buffers away (they were sent to the row-group thread with `rawColumn`'s views) and
   * takes those of `spare`, a row group of this column the thread has sent back, or new ones as
   * large: the buffers go round, and nothing is copied or allocated per row group.
   */
  swap(spare: RawColumn | undefined): void {
    this.defs = takeOver(this.defs, spare?.defs);
    this.swapValues(spare);
  }

  /** `swap` for the buffers of the values. */
  protected abstract swapValues(spare: RawColumn | undefined): void;

  /** Empties the column for the next row group; buffers are kept. */
  reset(): void {
    this.rows = 0;
    this.count = 0;
  }
}
