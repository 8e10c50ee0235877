import type { Row } from '@tideway/api';
import { textOf } from '@tideway/common';

/**
 * Splits a batch among the downstream task groups of a shuffle. Rows of a table with a
 * primary key go by a hash of the key, so every change to one key reaches the same subtask in
 * order; rows of other tables go round-robin.
 */
export class Partitioner {
  private next = 0;

  constructor(
    private readonly targets: number,
    /** Primary key column indexes by table id. */
    private readonly keyIndexes: Readonly<Record<string, readonly number[]>>,
  ) {}

  /** Returns one bucket per target (some may be empty). */
  split(rows: readonly Row[]): Row[][] {
    const buckets: Row[][] = Array.from({ length: this.targets }, () => []);
    if (this.targets === 1) {
      buckets[0].push(...rows);
      return buckets;
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const key = this.keyIndexes[row.tableId];
      const target = key && key.length > 0 ? hashKey(row.fields, key) % this.targets : this.next++ % this.targets;
      buckets[target].push(row);
    }
    return buckets;
  }
}

/** FNV-1a over the key values' text: stable across processes and runs. */
export function hashKey(fields: readonly unknown[], key: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const i of key) {
    const v = fields[i];
    const s = v === null || v === undefined ? '\u0000' : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : textOf(v);
    for (let c = 0; c < s.length; c++) {
      h ^= s.charCodeAt(c);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x1f;
  }
  return h >>> 0;
}
