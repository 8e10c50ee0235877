import { describe, expect, it } from 'vitest';
import { RowKind, type Row } from '@tideway/api';
import { RowBuffer } from './row-buffer.js';

const row = (kind: Row['kind'], id: number, v: string): Row => ({ kind, tableId: 't', fields: [id, v] });
const summary = (b: RowBuffer) => {
  const { upserts, deletes } = b.changes();
  return { upserts: upserts.map((r) => r.fields.join(':')), deletes: deletes.map((r) => String(r.fields[0])) };
};

describe('RowBuffer with keys', () => {
  it('keeps the last change per key: -U then +U of one key is one upsert', () => {
    const b = new RowBuffer([0]);
    b.add(row(RowKind.INSERT, 1, 'a'));
    b.add(row(RowKind.UPDATE_BEFORE, 1, 'a'));
    b.add(row(RowKind.UPDATE_AFTER, 1, 'b'));
    b.add(row(RowKind.INSERT, 2, 'x'));
    b.add(row(RowKind.DELETE, 2, 'x'));
    expect(summary(b)).toEqual({ upserts: ['1:b'], deletes: ['2'] });
  });

  it('deletes the old key of an update that changes the key', () => {
    const b = new RowBuffer([0]);
    // UPDATE t SET id = 7 WHERE id = 3, as CDC sources emit it.
    b.add(row(RowKind.UPDATE_BEFORE, 3, 'a'));
    b.add(row(RowKind.UPDATE_AFTER, 7, 'a'));
    expect(summary(b)).toEqual({ upserts: ['7:a'], deletes: ['3'] });
    // A later change moving a row onto the old key wins over its delete.
    b.add(row(RowKind.UPDATE_BEFORE, 9, 'z'));
    b.add(row(RowKind.UPDATE_AFTER, 3, 'z'));
    expect(summary(b)).toEqual({ upserts: ['7:a', '3:z'], deletes: ['9'] });
  });
});
