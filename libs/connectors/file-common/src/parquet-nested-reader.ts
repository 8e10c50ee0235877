import type { DataType } from '@tideway/api';
import type { SchemaTree } from 'hyparquet';
import type { LeveledColumnPages } from './parquet-leveled-pages.js';
import { isListGroup, isMapGroup } from './parquet-schema.js';
import { compileFromParquet } from './parquet-values.js';

/**
 * Tideway's assembly of nested Parquet columns (a row, array or map column) from the repetition
 * and definition levels of their leaves, one row at a time (Dremel's record assembly, as the
 * format's specification describes it), so a batch of rows is made from the pages the batch
 * needs: hyparquet's reader assembles a whole row group first (decision 0034).
 *
 * A node of a column is read when its parent is present. Every leaf under a node that is null, or
 * an empty list or map, has exactly one entry for it; a present node's leaves have one entry per
 * leaf value below it. So a node looks at the definition level of the current entry of one of its
 * leaves (`first`) to tell null (below the node's own level) from present, and a list goes on
 * taking elements while the next entry repeats at the list's own repetition level.
 *
 * The shapes are those parquet-schema.ts types a file's columns by: 3-level lists (and 2-level
 * ones, whose repeated field is the element), maps (key_value), groups, and a repeated field
 * outside a LIST or MAP, which is a required list of that field.
 */

/** A compiled node: reads its value, or passes over it, at the leaves' current entries. */
interface NodeReader {
  /** The node's value; its parent is present. */
  read(): unknown;
  /** Every leaf under the node. */
  readonly leaves: readonly LeveledColumnPages[];
}

/** The page reader of a leaf node of the column's schema. */
export type LeafOf = (leaf: SchemaTree) => LeveledColumnPages;

/** Moves every leaf of `leaves` past its current entry: one entry each is what a null or empty node below them left. */
function skipAll(leaves: readonly LeveledColumnPages[]): void {
  for (let i = 0; i < leaves.length; i++) leaves[i].skip();
}

/**
 * The reader of `node`, a column (or part of one) of Tideway type `type`, whose parent is present
 * at definition level `def` and repetition level `rep`. `required`: the node's own repetition is
 * accounted for by the caller (the element of a 2-level list, a repeated field read as a list's
 * element).
 */
function compile(node: SchemaTree, type: DataType, def: number, rep: number, leafOf: LeafOf, required = false): NodeReader {
  const repetition = required ? 'REQUIRED' : node.element.repetition_type;
  if (repetition === 'REPEATED') {
    // a repeated field outside a LIST or MAP: a required list of it
    if (type.kind !== 'array') throw new Error(`the repeated field ${node.path.join('.')} is not read as an array`);
    const element = compile(node, type.element, def + 1, rep + 1, leafOf, true);
    return listReader(def, def + 1, rep + 1, false, element);
  }
  const optional = repetition === 'OPTIONAL';
  const own = optional ? def + 1 : def;
  if (node.children.length === 0) return leafReader(leafOf(node), type);
  if (type.kind === 'array' && isListGroup(node.element)) {
    const repeated = node.children[0];
    const elementNode = repeated.children.length === 1 ? repeated.children[0] : repeated;
    const element = compile(elementNode, type.element, own + 1, rep + 1, leafOf, elementNode === repeated);
    return listReader(own, own + 1, rep + 1, optional, element);
  }
  if (type.kind === 'map' && isMapGroup(node.element)) {
    const kv = node.children[0];
    const key = compile(kv.children[0], type.key, own + 1, rep + 1, leafOf);
    const value = compile(kv.children[1], type.value, own + 1, rep + 1, leafOf);
    return mapReader(own, own + 1, rep + 1, optional, key, value);
  }
  if (type.kind !== 'row' || type.fields.length !== node.children.length) {
    throw new Error(`the Parquet group ${node.path.join('.')} is not read as a row of its ${node.children.length} fields`);
  }
  const fields = node.children.map((c, i) => compile(c, type.fields[i].type, own, rep, leafOf));
  return rowReader(own, optional, fields);
}

function leafReader(leaf: LeveledColumnPages, type: DataType): NodeReader {
  const conv = compileFromParquet(type);
  return {
    read: () => {
      const v = leaf.take();
      return v === null ? null : conv(v);
    },
    leaves: [leaf],
  };
}

/**
 * A list or map: null below `own` (when optional), empty (`make()`) below `present`, else
 * `addOne` takes an element (or entry) while the entries repeat at `rep`.
 */
function repeatedReader<T>(
  own: number,
  present: number,
  rep: number,
  optional: boolean,
  leaves: readonly LeveledColumnPages[],
  make: () => T,
  addOne: (out: T) => void,
): NodeReader {
  const first = leaves[0];
  return {
    read: () => {
      const d = first.def();
      if (d < present) {
        skipAll(leaves);
        return optional && d < own ? null : make();
      }
      const out = make();
      do addOne(out);
      while (first.more() && first.rep() === rep);
      return out;
    },
    leaves,
  };
}

function listReader(own: number, present: number, rep: number, optional: boolean, element: NodeReader): NodeReader {
  return repeatedReader<unknown[]>(
    own,
    present,
    rep,
    optional,
    element.leaves,
    () => [],
    (out) => out.push(element.read()),
  );
}

function mapReader(own: number, present: number, rep: number, optional: boolean, key: NodeReader, value: NodeReader): NodeReader {
  const leaves = [...key.leaves, ...value.leaves];
  return repeatedReader<Map<unknown, unknown>>(
    own,
    present,
    rep,
    optional,
    leaves,
    () => new Map(),
    (out) => {
      const k = key.read();
      out.set(k, value.read());
    },
  );
}

/** A row: positional field values, or null below `own` when optional. */
function rowReader(own: number, optional: boolean, fields: readonly NodeReader[]): NodeReader {
  const leaves = fields.flatMap((f) => f.leaves);
  const first = leaves[0];
  return {
    read: () => {
      if (optional && first.def() < own) {
        skipAll(leaves);
        return null;
      }
      const out = new Array<unknown>(fields.length);
      for (let i = 0; i < fields.length; i++) out[i] = fields[i].read();
      return out;
    },
    leaves,
  };
}

/**
 * The rows of one nested top-level column, a row at a time. `node` is the column's schema node,
 * `type` its Tideway type (columnsOfParquetSchema's), `leafOf` gives the page reader of each leaf
 * chunk under it.
 */
export class NestedColumnReader {
  private readonly root: NodeReader;

  constructor(node: SchemaTree, type: DataType, leafOf: LeafOf) {
    this.root = compile(node, type, 0, 0, leafOf);
  }

  /** Passes over `n` rows. */
  skip(n: number): void {
    for (let i = 0; i < n; i++) this.root.read();
  }

  /** Puts the next batch.length rows' values at index `col` of each row of `batch`. */
  fill(batch: unknown[][], col: number): void {
    const root = this.root;
    for (let r = 0; r < batch.length; r++) batch[r][col] = root.read();
  }
}
