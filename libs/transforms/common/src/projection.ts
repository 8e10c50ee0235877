import type { CatalogTable, Column, Row } from '@tideway/api';
import type { TableStage } from './multi-table-transform.js';
import { deriveTable, keysWithin } from './schema.js';

/**
 * A stage that keeps some input columns, in a new order and optionally under new names
 * (Filter, FieldMapper). Each kept column keeps its type, nullability, default and comment; a
 * primary or constraint key survives when all its columns are kept, under their new names.
 * `sources` must not repeat an index.
 */
export function projectionStage(input: CatalogTable, sources: readonly number[], names: readonly string[]): TableStage {
  const columns: Column[] = sources.map((s, i) => ({ ...input.columns[s], name: names[i] }));
  const renamed = new Map<string, string>(sources.map((s, i) => [input.columns[s].name, names[i]]));
  const keys = keysWithin(input, new Set(renamed.keys()), (n) => renamed.get(n) ?? n);
  const output = deriveTable(input, columns, keys);
  const idx = Int32Array.from(sources);
  const width = idx.length;
  return {
    output,
    map(row: Row): Row {
      const from = row.fields;
      const fields = new Array<unknown>(width);
      for (let i = 0; i < width; i++) fields[i] = from[idx[i]];
      return { kind: row.kind, tableId: row.tableId, fields };
    },
  };
}
