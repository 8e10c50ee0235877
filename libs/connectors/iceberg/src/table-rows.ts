import { ConfigError, ErrorCode } from '@tideway/common';
import { formatIdent, type IcebergCatalog, type TableIdent } from './catalog.js';
import { currentSchema, currentSnapshot } from './metadata.js';
import { engineTypeOf } from './read-schema.js';
import { DataFileReader, type ReadPlan } from './reader.js';
import { DEFAULT_SPLIT_BYTES, planSnapshot } from './scan.js';

/**
 * The rows of a table's current snapshot as the Iceberg source reads them (scan planning of
 * scan.ts, each data file read by reader.ts with its delete files applied), `columns` by name in
 * the table's current schema, in batches. For checks outside a job (`tideway chaos --sink iceberg`
 * tallies a table with it): no engine, no JVM, no PyIceberg. A table without a snapshot has no rows.
 */
export async function* currentSnapshotRows(
  catalog: IcebergCatalog,
  ident: TableIdent,
  columns: readonly string[],
): AsyncGenerator<unknown[][]> {
  const where = `Iceberg table ${formatIdent(ident)} in the ${catalog.description}`;
  const loaded = await catalog.load(ident);
  if (!loaded) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where} does not exist.`);
  const metadata = loaded.metadata;
  const snapshot = currentSnapshot(metadata);
  if (!snapshot) return;
  const schema = currentSchema(metadata);
  const fields = columns.map((name) => {
    const f = schema.fields.find((x) => x.name === name);
    if (!f)
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${where} has no column ${name} (${schema.fields.map((x) => x.name).join(', ')}).`);
    return { id: f.id, name: f.name, type: f.type };
  });
  const plan: ReadPlan = {
    fields,
    output: fields.map((f, i) => ({ field: i, as: engineTypeOf(f.type, `${where} column ${f.name}`) })),
    filter: [],
  };
  const { tasks } = await planSnapshot({ metadata, schema, filter: [], splitBytes: DEFAULT_SPLIT_BYTES, where, io: catalog.io }, snapshot);
  const reader = new DataFileReader(catalog.io);
  for (const task of tasks) for await (const batch of reader.read(task, plan, 0)) if (batch.rows.length > 0) yield batch.rows;
}
