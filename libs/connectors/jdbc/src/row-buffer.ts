import { textOf } from '@tideway/common';
import { RowKind, type Row } from '@tideway/api';

/**
 * Rows of one table waiting to be written. Without keys every row is kept in order (SeaTunnel
 * writes them all with the insert or user statement). With keys the buffer keeps only the last
 * change per key, as SeaTunnel's buffer-reduced executor does: +I/+U become an upsert, -D and
 * -U a delete of their key. A -U followed by the +U of the same key leaves the upsert; an
 * update that changes the key deletes the old key and upserts the new one.
 */
export class RowBuffer {
  private readonly plain: Row[] = [];
  private readonly byKey = new Map<string, Row>();

  constructor(private readonly keyIndexes: readonly number[]) {}

  get size(): number {
    return this.keyIndexes.length === 0 ? this.plain.length : this.byKey.size;
  }

  add(row: Row): void {
    if (this.keyIndexes.length === 0) {
      this.plain.push(row);
      return;
    }
    const key = this.keyOf(row.fields);
    // Delete-then-insert re-orders the map entry so the latest change wins.
    this.byKey.delete(key);
    this.byKey.set(key, row);
  }

  /** Rows in arrival order (no keys). */
  rows(): readonly Row[] {
    return this.plain;
  }

  /** The reduced changes: rows to upsert and rows whose key to delete. */
  changes(): { upserts: Row[]; deletes: Row[] } {
    const upserts: Row[] = [];
    const deletes: Row[] = [];
    for (const row of this.byKey.values())
      (row.kind === RowKind.DELETE || row.kind === RowKind.UPDATE_BEFORE ? deletes : upserts).push(row);
    return { upserts, deletes };
  }

  clear(): void {
    this.plain.length = 0;
    this.byKey.clear();
  }

  private keyOf(fields: readonly unknown[]): string {
    let key = '';
    for (const i of this.keyIndexes) {
      const v = fields[i];
      key += v === null || v === undefined ? '\u0001' : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : textOf(v);
      key += '\u0000';
    }
    return key;
  }
}
