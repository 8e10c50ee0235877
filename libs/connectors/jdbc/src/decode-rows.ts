import type { ResultColumn } from './jdbc-connection.js';
import type { ValueDecoder } from './value-codec.js';

/** The decoders of result columns, in column order. */
export function decodersOf(columns: readonly ResultColumn[]): ValueDecoder[] {
  return columns.map((c) => c.decode);
}

/** Decodes driver rows in place (each row is a fresh array from the driver) and returns them. */
export function decodeRows(rows: unknown[][], decoders: readonly ValueDecoder[]): unknown[][] {
  const n = decoders.length;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    for (let i = 0; i < n; i++) {
      const v = row[i];
      if (v !== null && v !== undefined) row[i] = decoders[i](v);
      else row[i] = null;
    }
  }
  return rows;
}
