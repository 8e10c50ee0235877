import { describe, expect, it } from 'vitest';
import { RowKind, Types, newCatalogTable, type CatalogTable, type Row } from '@tideway/api';
import { ConfigError } from '@tideway/common';
import { transformTestContext } from '@tideway/transform-common';
import { filterRowKindTransformFactory } from './index.js';

const table: CatalogTable = newCatalogTable({ table: 'fake' }, [{ name: 'id', type: Types.INT, nullable: true }], {
  primaryKey: { name: 'pk', columns: ['id'] },
});
const rows: Row[] = [RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE].map((kind, i) => ({
  kind,
  tableId: 'fake',
  fields: [i],
}));
const create = (options: Record<string, unknown>) =>
  filterRowKindTransformFactory.create(transformTestContext(filterRowKindTransformFactory.spec, options, [table]));

describe('FilterRowKind', () => {
  it('drops excluded kinds and keeps the schema', () => {
    const t = create({ exclude_kinds: ['DELETE'] });
    expect(t.outputTables()).toEqual([table]);
    expect(t.transform(rows).map((r) => r.kind)).toEqual(['+I', '-U', '+U']);
  });

  it('keeps only included kinds (names case-insensitive, short forms accepted)', () => {
    expect(
      create({ include_kinds: ['update_after', '+I'] })
        .transform(rows)
        .map((r) => r.fields[0]),
    ).toEqual([0, 2]);
  });

  it('excluding INSERT from an insert-only stream leaves nothing', () => {
    expect(create({ exclude_kinds: ['INSERT'] }).transform(rows.slice(0, 1))).toEqual([]);
  });

  it('refuses both or neither option, and unknown kinds', () => {
    expect(() => create({})).toThrow(ConfigError);
    expect(() => create({ include_kinds: ['INSERT'], exclude_kinds: ['DELETE'] })).toThrow(
      /exactly one of 'include_kinds' and 'exclude_kinds'/,
    );
    expect(() => create({ include_kinds: [] })).toThrow(/exactly one/);
    expect(() => create({ exclude_kinds: ['UPSERT'] })).toThrow(/"UPSERT" in option 'exclude_kinds' is not a row kind/);
  });
});
