/**
 * The levels Tideway's Parquet writer gives each leaf of a nested column (parquet-nested-shredder.ts),
 * against the format's own rules worked out by hand for each shape: a null, an empty and a full
 * list, nulls inside, lists of lists, maps, rows inside rows. Reading such files back (Tideway's
 * reader, DuckDB) is tested in parquet-nested-reader.test.ts and localfile-parquet-nested.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseDataType } from '@tideway/api';
import { parquetSchemaOf } from './parquet-schema.js';
import { NestedColumn } from './parquet-nested-shredder.js';

/** The leaves' (path, maxDef, maxRep, reps, defs, values present) after adding `values` to a column of `type`. */
function shredded(type: string, values: unknown[]) {
  const t = parseDataType(type);
  const column = new NestedColumn(t, parquetSchemaOf([{ name: 'c', type: t, nullable: true }]), 1);
  for (const v of values) column.add(v);
  return column.leaves.map((leaf) => {
    const raw = leaf.rawColumn();
    return {
      path: raw.path!.join('.'),
      maxDef: raw.maxDef,
      maxRep: raw.maxRep,
      reps: [...raw.reps!],
      defs: [...raw.defs],
      present: raw.count,
    };
  });
}

describe('NestedColumn', () => {
  it('gives a list<int> its levels: null, empty, a null element, several elements', () => {
    expect(shredded('array<int>', [null, [], [null], [1, 2, 3]])).toEqual([
      { path: 'c.list.element', maxDef: 3, maxRep: 1, reps: [0, 0, 0, 0, 1, 1], defs: [0, 1, 2, 3, 3, 3], present: 3 },
    ]);
  });

  it('gives a list of lists two repetition levels', () => {
    expect(shredded('array<array<int>>', [[[1, 2], [], null, [3]], []])).toEqual([
      {
        path: 'c.list.element.list.element',
        maxDef: 5,
        maxRep: 2,
        reps: [0, 2, 1, 1, 1, 0],
        defs: [5, 5, 3, 2, 5, 1],
        present: 3,
      },
    ]);
  });

  it('gives a row of a list and a row each leaf its own levels', () => {
    const rows = [null, [null, null], ['a', [['2024-02-29', null]]], ['b', [null]]];
    expect(shredded('row<s string, l array<row<d date, n int>>>', rows)).toEqual([
      { path: 'c.s', maxDef: 2, maxRep: 0, reps: [0, 0, 0, 0], defs: [0, 1, 2, 2], present: 2 },
      { path: 'c.l.list.element.d', maxDef: 5, maxRep: 1, reps: [0, 0, 0, 0], defs: [0, 1, 5, 3], present: 1 },
      { path: 'c.l.list.element.n', maxDef: 5, maxRep: 1, reps: [0, 0, 0, 0], defs: [0, 1, 4, 3], present: 0 },
    ]);
  });

  it('gives a map its key (required) and value levels', () => {
    const maps = [
      null,
      new Map(),
      new Map<string, number | null>([
        ['a', 1],
        ['b', null],
      ]),
    ];
    expect(shredded('map<string, int>', maps)).toEqual([
      { path: 'c.key_value.key', maxDef: 2, maxRep: 1, reps: [0, 0, 0, 1], defs: [0, 1, 2, 2], present: 2 },
      { path: 'c.key_value.value', maxDef: 3, maxRep: 1, reps: [0, 0, 0, 1], defs: [0, 1, 3, 2], present: 1 },
    ]);
  });

  it('refuses a null map key, naming the column', () => {
    expect(() => shredded('row<m map<string, int>>', [[new Map([[null, 1]])]])).toThrow(
      'A map key in column c is null: Parquet map keys cannot be null.',
    );
  });
});
