/**
 * The source contract on the Iceberg source: tables of `items` written by PyIceberg in a hadoop
 * catalog folder, three appends (three files, one split each, row groups of 4 rows), read by two
 * readers through restores from every checkpoint and failures in each method.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { icebergSourceFactory } from '@tideway/connector-iceberg';
import { type ExpectedRow, sourceContract } from '@tideway/connector-contract';
import { icebergPeersPresent, makeIcebergTable } from '@tideway/testing';
import { ICEBERG_SOURCE_NOT_APPLICABLE } from './contract-table.js';

const root = mkdtempSync(join(tmpdir(), 'tideway-contract-iceberg-source-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

if (icebergPeersPresent()) {
  sourceContract({
    name: 'Iceberg (hadoop catalog)',
    factory: icebergSourceFactory,
    notApplicable: ICEBERG_SOURCE_NOT_APPLICABLE,
    target: async (id) => {
      const warehouse = join(root, id);
      const rows = (first: number): unknown[][] => Array.from({ length: 10 }, (_, i) => [first + i, `items-${first + i}`]);
      await makeIcebergTable({
        warehouse,
        namespace: 'contract',
        table: 'items',
        schema: [
          ['id', 'int', true],
          ['name', 'string', false],
        ],
        properties: { 'write.parquet.row-group-limit': '4' },
        steps: [0, 10, 20].map((first) => ({ append: rows(first).map(([i, n]) => [String(i), n]) })),
      });
      const expected: ExpectedRow[] = [0, 10, 20].flatMap((first) => rows(first).map(([i, n]) => ['items', i, n]));
      return {
        options: {
          catalog_name: 'contract',
          'iceberg.catalog.config': { type: 'hadoop', warehouse },
          namespace: 'contract',
          table: 'items',
        },
        expected,
      };
    },
    badOptions: [
      { options: { use_snapshot_id: 'latest' }, option: 'use_snapshot_id' },
      { options: { 'iceberg.catalog.config': { type: 'hive', warehouse: '/tmp' } }, option: 'iceberg.catalog.config' },
    ],
  });
}
