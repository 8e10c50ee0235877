import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CatalogTable, newCatalogTable, optionsOf, Types } from '@tideway/api';
import { icebergSinkFactory } from './sink.js';
import type { LoadedTable, TableIdent } from './catalog.js';
import { maxCommittedCheckpoint } from './committer.js';
import { HadoopCatalog } from './hadoop-catalog.js';
import { newTableMetadata, type TableMetadata } from './metadata.js';
import { icebergSchemaOf } from './schema.js';
import { IcebergTablesCommitter, type IcebergTablesCommitInfo } from './tables.js';

const dir = mkdtempSync(join(tmpdir(), 'tideway-iceberg-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const items: TableIdent = { namespace: ['db'], name: 'items' };
const parts: TableIdent = { namespace: ['db'], name: 'parts' };

/** A hadoop catalog that dies (a crash of the coordinator) at its `crashAt`-th commit, before the commit lands. */
class CrashingCatalog extends HadoopCatalog {
  commits = 0;
  crashAt = 0;
  override async commit(id: TableIdent, base: LoadedTable, next: TableMetadata): Promise<LoadedTable> {
    if (++this.commits === this.crashAt) throw new Error('the coordinator died');
    return super.commit(id, base, next);
  }
}

function files(table: TableIdent, checkpointId: number, rows: number) {
  const path = join(dir, `${table.name}-${checkpointId}-${Math.random()}.parquet`);
  writeFileSync(path, 'not read by the committer');
  return {
    namespace: table.namespace,
    name: table.name,
    files: [
      {
        content: 0 as const,
        path,
        recordCount: rows,
        fileSize: 25,
        specId: 0,
        partition: [],
        valueCounts: [],
        nullCounts: [],
        lower: [],
        upper: [],
      },
    ],
  };
}

const info = (checkpointId: number): IcebergTablesCommitInfo => ({
  jobId: 'job-1',
  checkpointId,
  tables: [files(items, checkpointId, 10), files(parts, checkpointId, 3)],
});

describe('IcebergTablesCommitter', () => {
  it('commits each table of a checkpoint once, also when a crash came between two tables and the restore commits it again', async () => {
    const catalog = new CrashingCatalog(mkdtempSync(join(dir, 'wh-')));
    const schema = icebergSchemaOf([{ name: 'id', type: { kind: 'bigint' }, nullable: true }], [], 't');
    for (const t of [items, parts]) {
      await catalog.create(t, newTableMetadata(catalog.defaultLocation(t), schema, 1, { 'spec-id': 0, fields: [] }, {}));
    }
    const committer = new IcebergTablesCommitter(catalog, 'main');
    // two writers' infos of checkpoint 1 combined: each table's files together
    const combined = committer.combine([info(1), info(1)]);
    expect(combined.tables.map((t) => [t.name, t.files.length])).toEqual([
      ['items', 2],
      ['parts', 2],
    ]);
    catalog.crashAt = 2; // items lands, parts does not
    await expect(committer.commit([combined])).rejects.toThrow('the coordinator died');
    const restored = new IcebergTablesCommitter(catalog, 'main');
    await restored.commit([combined]); // the restore re-commits what the checkpoint holds
    await restored.commit([combined, info(2)]); // and a replay of both changes nothing twice
    for (const [t, rows] of [
      [items, 30],
      [parts, 9],
    ] as const) {
      const m = (await catalog.load(t))!.metadata;
      expect(m.snapshots?.map((s) => s.summary['tideway.max-committed-checkpoint-id'])).toEqual(['1', '2']);
      expect(m.snapshots?.at(-1)?.summary['total-records']).toBe(String(rows));
      expect(maxCommittedCheckpoint(m, 'job-1')).toBe(2);
    }
    await restored.close();
  });

  it("commits a single-table commit info of a checkpoint taken before multi-table sinks to the sink's one table", async () => {
    const catalog = new HadoopCatalog(mkdtempSync(join(dir, 'wh-')));
    const schema = icebergSchemaOf([{ name: 'id', type: { kind: 'bigint' }, nullable: true }], [], 't');
    await catalog.create(items, newTableMetadata(catalog.defaultLocation(items), schema, 1, { 'spec-id': 0, fields: [] }, {}));
    const old = { jobId: 'job-1', checkpointId: 4, files: files(items, 4, 7).files } as unknown as IcebergTablesCommitInfo;
    await new IcebergTablesCommitter(catalog, 'main', items).commit([old]);
    expect((await catalog.load(items))!.metadata.snapshots?.map((s) => s.summary['total-records'])).toEqual(['7']);
    await expect(new IcebergTablesCommitter(catalog, 'main').commit([old])).rejects.toThrow('names no table');
  });
});

describe('the Iceberg sink of several input tables', () => {
  const table = (database: string, name: string, key: string): CatalogTable =>
    newCatalogTable(
      { database, table: name },
      [
        { name: key, type: Types.INT, nullable: false },
        { name: 'v', type: Types.STRING, nullable: true },
      ],
      { primaryKey: { name: `pk_${name}`, columns: [key] } },
    );
  const create = (options: Record<string, unknown>, tables: CatalogTable[]) =>
    icebergSinkFactory.create({
      jobId: 'j',
      jobMode: 'STREAMING',
      parallelism: 1,
      inputTables: tables,
      options: optionsOf(
        { catalog_name: 'c', 'iceberg.catalog.config': { type: 'hadoop', warehouse: join(dir, 'wh-refusals') }, ...options },
        icebergSinkFactory.spec,
      ),
    });

  it('writes each table to its own Iceberg table, keyed by its own primary key', async () => {
    const warehouse = mkdtempSync(join(dir, 'wh-'));
    const sink = icebergSinkFactory.create({
      jobId: 'j',
      jobMode: 'STREAMING',
      parallelism: 1,
      inputTables: [table('shop', 'orders', 'id'), table('shop', 'parts', 'code')],
      options: optionsOf(
        {
          catalog_name: 'c',
          'iceberg.catalog.config': { type: 'hadoop', warehouse },
          namespace: '${database_name}.raw',
          table: 'copy_${table_name}',
          'iceberg.table.primary-keys': '${primary_key}',
        },
        icebergSinkFactory.spec,
      ),
    });
    await sink.prepare?.();
    const catalog = new HadoopCatalog(warehouse);
    const orders = await catalog.load({ namespace: ['shop', 'raw'], name: 'copy_orders' });
    const parts = await catalog.load({ namespace: ['shop', 'raw'], name: 'copy_parts' });
    expect(orders?.metadata.schemas[0]['identifier-field-ids']).toEqual([1]);
    expect(parts?.metadata.schemas[0].fields.map((f) => f.name)).toEqual(['code', 'v']);
    expect(parts?.metadata.schemas[0]['identifier-field-ids']).toEqual([1]);
  });

  it('refuses two input tables that would go to one Iceberg table, and a placeholder it does not replace', () => {
    const tables = [table('a', 'items', 'id'), table('b', 'items', 'id')];
    expect(() => create({ namespace: 'n', table: '${table_name}' }, tables)).toThrow(
      "option 'table': the input tables a.items and b.items both go to Iceberg table n.items; name each its own with ${table_name} (or ${database_name}, ${schema_name}) in namespace or table.",
    );
    expect(() => create({ namespace: '${database_name}', table: '${table_name}' }, tables)).not.toThrow();
    expect(() => create({ namespace: 'n', table: '${table_full_name}' }, tables)).toThrow(
      "option 'table' = '${table_full_name}': ${table_full_name} is not a table placeholder the Iceberg sink replaces (${database_name}, ${schema_name}, ${table_name}).",
    );
  });
});
