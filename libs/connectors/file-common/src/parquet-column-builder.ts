import type { SchemaElement } from 'hyparquet';
import type { Rows } from './file-encoder.js';
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

/** Writes the definition level of a flat column's value `v` at defs[at] (1 present, 0 null or undefined) and returns it. */
export function levelOf(defs: Uint8Array, at: number, v: unknown): number {
  const d = v === null || v === undefined ? 0 : 1;
  defs[at] = d;
  return d;
}

/** A nested leaf's present values held before they are stored together (`addLevel`). */
const HELD = 1024;

/** Where a leaf of a nested column sits in the schema: its levels and its path. */
export interface LeafPlace {
  /** The definition level of a present value (every OPTIONAL or REPEATED node above it and itself). */
  readonly maxDef: number;
  /** The number of REPEATED nodes above it. */
  readonly maxRep: number;
  /** Its path from the column down (path_in_schema). */
  readonly path: readonly string[];
}

/** One column of a row group being built. */
export abstract class ColumnBuilder {
  /** Rows added (present or null). */
  rows = 0;
  /** Present (non-null) values added. */
  count = 0;
  /** Definition level of each row: 1 present, 0 null. */
  defs: Uint8Array = new Uint8Array(4096);
  /** A one-row batch for `add`. */
  private readonly single: unknown[][] = [[null]];
  /** A leaf of a nested column: the repetition level of each entry (`defs` has its definition level). */
  reps: Uint8Array | undefined;
  /** A leaf's present values not stored yet, each at [k][0] (`addLevel`). */
  private held: unknown[][] | undefined;
  private heldCount = 0;
  /** Where storing the held values writes their definition levels, thrown away (`addLevel` wrote them). */
  private heldDefs: Uint8Array | undefined;

  /** Where the column sits when it is a leaf of a nested one (`asLeaf`). */
  place: LeafPlace | undefined;

  constructor(readonly element: SchemaElement) {}

  /** Makes this builder a leaf of a nested column at `place`: its entries then come from `addLevel`. */
  asLeaf(place: LeafPlace): this {
    this.place = place;
    this.reps = new Uint8Array(this.defs.length);
    this.held = Array.from({ length: HELD }, () => [null]);
    this.heldDefs = new Uint8Array(HELD);
    return this;
  }

  /**
   * A nested leaf's next entry (parquet-nested-shredder.ts): its repetition and definition
   * levels, and the value when the definition level is the leaf's maximum (present). `rows`
   * counts entries then, not rows.
   */
  addLevel(rep: number, def: number, v: unknown): void {
    const at = this.rows;
    if (at === this.defs.length) this.defs = grown(this.defs, at + 1);
    if (at === this.reps!.length) this.reps = grown(this.reps!, at + 1);
    this.defs[at] = def;
    this.reps![at] = rep;
    this.rows = at + 1;
    if (def === this.place!.maxDef) {
      this.held![this.heldCount++][0] = v;
      if (this.heldCount === HELD) this.storeHeld();
    }
  }

  /** Stores the present values `addLevel` holds (before the row group's size is looked at, and at its end). */
  storeHeld(): void {
    const n = this.heldCount;
    if (n === 0) return;
    this.count += this.storeRows(this.held!, 0, 0, n, this.heldDefs!, 0);
    for (let k = 0; k < n; k++) this.held![k][0] = null;
    this.heldCount = 0;
  }

  /** Bytes of the levels buffered: one a definition level, one a repetition level. */
  levelBytes(): number {
    return this.reps ? 2 * this.rows : this.rows;
  }

  /** Adds one value (null or undefined for a null). */
  add(v: unknown): void {
    this.single[0][0] = v;
    this.addColumn(this.single, 0, 1, 0);
    this.single[0][0] = null;
  }

  /**
   * Adds the values of rows [r0, r1) of `rows` at index `col`: the flat encoder's batch path. Each
   * class stores them in one loop of its own (`storeRows`) that also writes each row's definition
   * level, with the buffers and statistics in locals: no capacity check and no field write per
   * value, and no call but the few a conversion needs (decision 0023). One pass over the rows: a
   * pass writing the levels and noting the present rows, then another storing those, reached each
   * value twice: 6-10% more time on the bench's orders rows (decision 0023, 2026-12-04 evening).
   */
  addColumn(rows: Rows, r0: number, r1: number, col: number): void {
    const n = r1 - r0;
    if (this.rows + n > this.defs.length) this.defs = grown(this.defs, this.rows + n);
    this.count += this.storeRows(rows, col, r0, r1, this.defs, this.rows);
    this.rows += n;
  }

  /**
   * Stores the present values among rows[r][col] for r in [r0, r1) as values number `this.count`
   * on, writes each row's definition level (0 null, 1 present) into `defs` from `at`, and returns
   * how many were present (the caller then advances `count` and `rows`). Room is made for
   * r1 - r0 values first. A value that cannot be converted throws before `count` moves.
   */
  protected abstract storeRows(rows: Rows, col: number, r0: number, r1: number, defs: Uint8Array, at: number): number;

  /** Bytes the buffered values take. */
  abstract bytes(): number;

  /** The buffered values and their statistics. */
  abstract raw(): RawValues;

  /** The buffered row group of this column: views into this builder's buffers. */
  rawColumn(): RawColumn {
    const e = this.element;
    this.storeHeld();
    const place = this.place;
    return {
      name: e.name,
      type: e.type!,
      rows: this.rows,
      count: this.count,
      defs: new Uint8Array(this.defs.buffer, 0, this.rows),
      ...(place && { reps: new Uint8Array(this.reps!.buffer, 0, this.rows), maxDef: place.maxDef, maxRep: place.maxRep, path: place.path }),
      ...this.raw(),
    };
  }

  /**
   * Gives its buffers away (`rawColumn`'s views of them are about to be sent to the row-group
   * thread) and takes those of `spare`, a row group of this column the thread has sent back, or
   * new ones as large: the buffers go round, and nothing is copied or allocated per row group.
   */
  swap(spare: RawColumn | undefined): void {
    this.defs = takeOver(this.defs, spare?.defs);
    if (this.reps) this.reps = takeOver(this.reps, spare?.reps);
    this.swapValues(spare);
  }

  /** `swap` for the buffers of the values. */
  protected abstract swapValues(spare: RawColumn | undefined): void;

  /** Drops every value added since the last reset, held ones too (a probe's, parquet-file-writer.ts). */
  discard(): void {
    if (this.held) for (let k = 0; k < this.heldCount; k++) this.held[k][0] = null;
    this.heldCount = 0;
    this.reset();
  }

  /** Empties the column for the next row group; buffers are kept. */
  reset(): void {
    this.rows = 0;
    this.count = 0;
  }
}
