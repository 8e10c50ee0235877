/**
 * The Iceberg source against tables written by PyIceberg (scripts/ensure-iceberg-peers.sh) and by
 * Tideway's Iceberg sink, its rows compared with PyIceberg's scan of the same snapshot: appends,
 * PyIceberg's deletes (files rewritten) and a position delete file, partitions, schema evolution
 * (add, rename, drop, widen), time travel and incremental ranges, the sink's CDC equality deletes,
 * the files and row groups a filter skips (counted), splits by row group, restores in the middle of
 * a scan (in process and through `run -r` after a kill), streaming of appended snapshots, SeaTunnel's
 * iceberg_source.conf unchanged, and bad input refused in one sentence (exit 2).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataType, Row, SourceSplit } from '@tideway/api';
import { validatePluginOptions } from '@tideway/config/options';
import { readToEnd } from '@tideway/connector-contract';
import { icebergSourceFactory, scanCounters } from '@tideway/connector-iceberg';
import {
  canonicalRows,
  type IcebergRecipe,
  icebergPeersPresent,
  makeIcebergTable,
  pyicebergRead,
  pyicebergScan,
  sortCanonical,
} from '@tideway/testing';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli, waitForExit } from '../conformance/cli-process.js';

const present = icebergPeersPresent();
const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-source-'));
let jobNo = 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => scanCounters.reset());

const hadoop = (warehouse: string) => ({ type: 'hadoop', warehouse: `file://${warehouse}` });

/** Reads a table with the Iceberg source in this process (two readers, a checkpoint after every round, an optional planted failure). */
async function readTable(options: Record<string, unknown>, fail?: Parameters<typeof readToEnd>[2]['fail']) {
  const source = icebergSourceFactory.create({
    jobId: 'prepare',
    jobMode: 'BATCH',
    parallelism: 2,
    options: validatePluginOptions(icebergSourceFactory.spec, {
      type: 'source',
      name: 'Iceberg',
      index: 0,
      file: 'test.conf',
      line: 1,
      options: options as Record<string, never>,
      optionLines: {},
    }),
    inputTables: [],
  });
  await source.prepare?.();
  const types: DataType[] = source.catalogTables()[0].columns.map((c) => c.type);
  const rows: Row[] = await readToEnd(icebergSourceFactory, options, { parallelism: 2, ...(fail ? { fail } : {}) });
  return {
    types,
    rows: canonicalRows(
      types,
      rows.map((r) => r.fields),
    ),
  };
}

const base = (warehouse: string, table: string, extra: Record<string, unknown> = {}) => ({
  catalog_name: 'test',
  'iceberg.catalog.config': hadoop(warehouse),
  namespace: 'db',
  table,
  ...extra,
});

describe.skipIf(!present)('Iceberg source, tables written by PyIceberg', () => {
  it('reads appends, deletes (rewritten files and a position delete file), partitions and schema evolution as PyIceberg does', async () => {
    const wh = join(dir, 'evolved');
    const recipe: IcebergRecipe = {
      warehouse: wh,
      namespace: 'db',
      table: 'evolved',
      schema: [
        ['id', 'long', true],
        ['name', 'string', false],
        ['n', 'int', false],
        ['f', 'float', false],
        ['d', 'decimal(9,2)', false],
        ['gone', 'string', false],
        ['ts', 'timestamp', false],
      ],
      partition: [['identity', 'name']],
      steps: [
        {
          append: [
            ['1', 'a', '1', 1.5, '1.50', 'x', '2024-01-01T00:00:00.000001'],
            ['2', 'b', '2', -2.25, '-2.00', 'y', '2024-01-02T12:00:00'],
            ['3', 'a', '3', null, null, null, null],
            ['4', 'a', '4', 4, '4.25', 'z', '1999-12-31T23:59:59.5'],
            ['5', 'b', '5', 5, '5.00', 'w', '2024-03-01T00:00:00'],
          ],
        },
        { delete: 'id = 2' },
        {
          evolve: [
            ['rename', 'name', 'label'],
            ['widen', 'n', 'long'],
            ['widen', 'f', 'double'],
            ['widen', 'd', 'decimal(12,2)'],
            ['drop', 'gone'],
            ['add', 'extra', 'string'],
          ],
        },
        { append: [['6', 'c', '6', 6.5, '6.00', '2024-06-01T00:00:00', 'new']] },
        { position_delete: [[0, 0]] },
      ],
    };
    const made = await makeIcebergTable(recipe);
    const expected = await pyicebergScan(made.metadata);
    expect(expected.columns).toEqual(['id', 'label', 'n', 'f', 'd', 'ts', 'extra']);
    expect(expected.rows.length).toBe(4); // 1 by position, 2 by PyIceberg's delete
    const { types, rows } = await readTable(base(wh, 'evolved'));
    expect(types.map((t) => t.kind)).toEqual(['bigint', 'string', 'bigint', 'double', 'decimal', 'timestamp', 'string']);
    expect(rows).toEqual(expected.rows);
    expect(scanCounters.deleteFilesRead).toBe(1);
  }, 60_000);
});
