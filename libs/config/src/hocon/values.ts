/**
 * The parsed value tree. Every node knows the line it starts on, every object field the line
 * of its key. Substitutions stay as `concat` / `merge` nodes until resolve() replaces them.
 */

export type ScalarValue = string | number | boolean | null;

export interface HScalar {
  readonly kind: 'scalar';
  readonly value: ScalarValue;
  /** The text as written (`1.0` stays `1.0` when concatenated into a string). */
  readonly raw: string;
  readonly line: number;
}

export interface HField {
  value: HValue;
  /** Line of the key. */
  line: number;
}

export interface HObject {
  readonly kind: 'object';
  /** Insertion order is file order. */
  readonly fields: Map<string, HField>;
  readonly line: number;
  /** Made by a dotted key (`a.b = 1` makes `a`'s object): a later `a = x` keeps `a.b` (parser.ts setPath). */
  fromDottedKeys?: boolean;
}

export interface HList {
  readonly kind: 'list';
  readonly items: HValue[];
  readonly line: number;
}

/**
 * A top-level `source` / `transform` / `sink` block in HOCON: SeaTunnel keeps repeated plugin
 * blocks as separate entries in file order, so this is a list of named objects, not an object.
 */
export interface HPluginBlocks {
  readonly kind: 'plugins';
  readonly entries: { name: string; line: number; value: HValue }[];
  readonly line: number;
}

export interface HSubstitution {
  readonly kind: 'subst';
  readonly path: readonly string[];
  readonly optional: boolean;
  readonly line: number;
  readonly col: number;
}

/** Whitespace between two pieces of a concatenation (kept in string concatenations). */
export interface HWhitespace {
  readonly kind: 'ws';
  readonly text: string;
}

export type HPiece = HValue | HSubstitution | HWhitespace;

/** A value concatenation that holds at least one substitution. */
export interface HConcat {
  readonly kind: 'concat';
  readonly pieces: HPiece[];
  readonly line: number;
  readonly col: number;
}

/**
 * A field set more than once where a later value has substitutions: resolved by merging the
 * layers in order (objects merge, anything else replaces). A self-reference in layer i sees
 * the result of the layers before it.
 */
export interface HMerge {
  readonly kind: 'merge';
  readonly layers: HValue[];
  readonly line: number;
}

export type HValue = HScalar | HObject | HList | HPluginBlocks | HConcat | HMerge;

export function isResolved(v: HValue): v is HScalar | HObject | HList | HPluginBlocks {
  return v.kind !== 'concat' && v.kind !== 'merge';
}

export function newObject(line: number): HObject {
  return { kind: 'object', fields: new Map(), line };
}

/** Human words for a node kind, for messages. */
export function describeKind(v: HValue): string {
  switch (v.kind) {
    case 'scalar':
      return v.value === null ? 'null' : typeof v.value === 'string' ? 'a string' : `a ${typeof v.value}`;
    case 'object':
      return 'an object';
    case 'list':
      return 'a list';
    case 'plugins':
      return 'a plugin section';
    default:
      return 'an unresolved value';
  }
}

/**
 * Merges `newer` over `older` as HOCON does when a key is set twice: two objects merge key by
 * key (newer wins for non-objects); otherwise the newer value replaces the older one, except
 * that a newer value with substitutions keeps the older one as a layer (it may refer to it, or
 * turn out to be an object that merges with it).
 */
export function mergeValues(older: HValue, newer: HValue): HValue {
  if (older.kind === 'object' && newer.kind === 'object') {
    const merged = newObject(older.line);
    for (const [k, f] of older.fields) merged.fields.set(k, { ...f });
    for (const [k, f] of newer.fields) {
      const prev = merged.fields.get(k);
      merged.fields.set(k, prev ? { value: mergeValues(prev.value, f.value), line: f.line } : { ...f });
    }
    return merged;
  }
  if (newer.kind === 'concat' || newer.kind === 'merge' || (newer.kind === 'object' && !isResolved(older))) {
    const layers = older.kind === 'merge' ? [...older.layers] : [older];
    if (newer.kind === 'merge') layers.push(...newer.layers);
    else layers.push(newer);
    return { kind: 'merge', layers, line: newer.line };
  }
  return newer;
}
