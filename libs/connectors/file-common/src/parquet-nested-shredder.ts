import type { DataType } from '@tideway/api';
import type { SchemaElement } from 'hyparquet';
import type { Rows } from './file-encoder.js';
import type { ColumnBuilder } from './parquet-column-builder.js';
import { columnBuilderOf } from './parquet-column-builders.js';

/**
 * A row, array or map column of the Parquet writer, shredded into its leaves as Dremel does:
 * each leaf gets, per value of the column, one or more entries of (repetition level, definition
 * level) and its value when present, into a primitive column builder of its own
 * (parquet-column-builders.ts), whose buffers then go to the row-group thread like a flat
 * column's. The schema is parquet-schema.ts's: every node OPTIONAL but a map's key (REQUIRED),
 * lists of three levels (list / element), maps as key_value / key, value.
 */

/** What a schema node does with a value of its type (`rep`: the repetition level of its first entry). */
interface Node {
  /** Adds a value present or null (`null`/`undefined`) of the node's type. */
  shred(v: unknown, rep: number): void;
  /** Adds an entry to every leaf below, the node's values being absent at definition level `def`. */
  absent(rep: number, def: number): void;
}

/** Builds the leaves of one column, in the order of their schema elements. */
class Shredding {
  readonly leaves: ColumnBuilder[] = [];
  /** The schema element the next node takes. */
  next: number;

  /** `elements`: the column's schema elements, depth first (parquetSchemaOf's), from `start`. */
  constructor(
    private readonly elements: readonly SchemaElement[],
    start: number,
  ) {
    this.next = start;
  }

  /** The node of `type`, whose parent's values are present at definition level `def` and repeat at `rep`. */
  node(type: DataType, path: readonly string[], def: number, rep: number, required = false): Node {
    const element = this.elements[this.next++];
    const at = [...path, element.name];
    const own = required ? def : def + 1; // the definition level of a present value of this node
    switch (type.kind) {
      case 'row': {
        const fields = type.fields.map((f) => this.node(f.type, at, own, rep));
        const absent = (r: number, d: number) => {
          for (const f of fields) f.absent(r, d);
        };
        return {
          shred(v, r) {
            if (v === null || v === undefined) return absent(r, def);
            const values = v as readonly unknown[];
            for (let i = 0; i < fields.length; i++) fields[i].shred(values[i], r);
          },
          absent,
        };
      }
      case 'array': {
        this.next++; // the repeated 'list' group
        const element = this.node(type.element, [...at, 'list'], own + 1, rep + 1);
        const repeat = rep + 1;
        return {
          shred(v, r) {
            if (v === null || v === undefined) return element.absent(r, def);
            const values = v as readonly unknown[];
            if (values.length === 0) return element.absent(r, own);
            element.shred(values[0], r);
            for (let i = 1; i < values.length; i++) element.shred(values[i], repeat);
          },
          absent: (r, d) => element.absent(r, d),
        };
      }
      case 'map': {
        this.next++; // the repeated 'key_value' group
        const key = this.node(type.key, [...at, 'key_value'], own + 1, rep + 1, true);
        const value = this.node(type.value, [...at, 'key_value'], own + 1, rep + 1);
        const repeat = rep + 1;
        const absent = (r: number, d: number) => {
          key.absent(r, d);
          value.absent(r, d);
        };
        return {
          shred(v, r) {
            if (v === null || v === undefined) return absent(r, def);
            const entries = v as ReadonlyMap<unknown, unknown>;
            if (entries.size === 0) return absent(r, own);
            let first = true;
            for (const [k, x] of entries) {
              if (k === null || k === undefined)
                throw new TypeError(`A map key in column ${at[0]} is null: Parquet map keys cannot be null.`);
              key.shred(k, first ? r : repeat);
              value.shred(x, first ? r : repeat);
              first = false;
            }
          },
          absent,
        };
      }
      default: {
        const leaf = columnBuilderOf(type, element, { maxDef: own, maxRep: rep, path: at });
        if (leaf === undefined) throw new Error(`column ${at.join('.')}: no Parquet builder for its type`); // parquetSchemaOf refused it first
        this.leaves.push(leaf);
        return {
          shred(v, r) {
            if (v === null || v === undefined) leaf.addLevel(r, def, undefined);
            else leaf.addLevel(r, own, v);
          },
          absent: (r, d) => leaf.addLevel(r, d, undefined),
        };
      }
    }
  }
}

/** A nested column being written: its values shredded into its leaves' builders. */
export class NestedColumn {
  /** The leaves' builders, in schema order: the row group's columns. */
  readonly leaves: readonly ColumnBuilder[];
  /** The schema elements the column spans (its own and its descendants'). */
  readonly span: number;
  private readonly root: Node;

  /** `type` is the column's (row, array or map); `elements` the file's schema, the column's first at `start`. */
  constructor(type: DataType, elements: readonly SchemaElement[], start: number) {
    const shredding = new Shredding(elements, start);
    this.root = shredding.node(type, [], 0, 0);
    this.span = shredding.next - start;
    this.leaves = shredding.leaves;
  }

  /** Adds the column's value of one row. */
  add(v: unknown): void {
    this.root.shred(v, 0);
  }

  /** Adds the values at index `col` of rows [r0, r1) (the writer's batch path). */
  addColumn(rows: Rows, r0: number, r1: number, col: number): void {
    for (let r = r0; r < r1; r++) this.root.shred(rows[r][col], 0);
  }
}
