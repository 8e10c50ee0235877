import type { CatalogTable, Row } from '@tideway/api';
import { describe, expect, it } from 'vitest';
import { compileAction } from './sink.js';

const table: CatalogTable = {
  tableId: 'shop.orders',
  catalogName: 'test',
  path: { database: 'shop', table: 'orders' },
  columns: [
    { name: 'id', type: { kind: 'int' }, nullable: false },
    { name: 'region', type: { kind: 'string' }, nullable: true },
    { name: 'total', type: { kind: 'bigint' }, nullable: true },
  ],
};

const settings = { index: '${table_name}_${region}', keyDelimiter: '-', batchSize: 10, retries: 0 };
const row = (kind: Row['kind'], fields: unknown[], version?: bigint): Row =>
  version === undefined ? { kind, tableId: table.tableId, fields } : { kind, tableId: table.tableId, fields, version };
const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);

describe('Elasticsearch bulk lines', () => {
  it('writes a versioned keyed row as an index (and a delete) with its version, external_gte', () => {
    const action = compileAction({ ...settings, primaryKeys: ['id', 'region'], externalVersion: true }, table);
    const big = (7n << 32n) + 4242n; // a binlog position past 2^53: the version stays exact
    expect(action(row('+U', [1, 'EU', 10n], big))).toBe(
      `{"index":{"_index":"orders_eu","_id":"1-EU","version":${big},"version_type":"external_gte"}}\n{"id":1,"region":"EU","total":10}\n`,
    );
    expect(lines(action(row('-D', [1, 'EU', 10n], 9n)))).toEqual([
      { delete: { _index: 'orders_eu', _id: '1-EU', version: 9, version_type: 'external_gte' } },
    ]);
    expect(lines(action(row('-U', [1, 'EU', 10n], 9n)))).toEqual([
      { delete: { _index: 'orders_eu', _id: '1-EU', version: 9, version_type: 'external_gte' } },
    ]);
  });

  it('upserts keyed rows without a position, and versioned rows when external_version is off', () => {
    for (const [externalVersion, version] of [
      [true, undefined],
      [false, 5n],
    ] as const) {
      const action = compileAction({ ...settings, primaryKeys: ['id'], externalVersion }, table);
      expect(lines(action(row('+I', [2, 'us', null], version)))).toEqual([
        { update: { _index: 'orders_us', _id: '2' } },
        { doc: { id: 2, region: 'us', total: null }, doc_as_upsert: true },
      ]);
      expect(lines(action(row('-D', [2, 'us', null], version)))).toEqual([{ delete: { _index: 'orders_us', _id: '2' } }]);
    }
  });

  it('indexes unkeyed rows without an _id or version and writes nothing for their deletes', () => {
    const action = compileAction({ ...settings, index: 'fixed"name', externalVersion: true }, table);
    expect(lines(action(row('+I', [3, 'x', 1n], 8n)))).toEqual([{ index: { _index: 'fixed"name' } }, { id: 3, region: 'x', total: 1 }]);
    expect(action(row('-D', [3, 'x', 1n], 8n))).toBe('');
  });
});
