import { newCatalogTable, optionsOf, parseDataType, type CatalogTable, type Column, type Row } from '@tideway/api';
import { sqlTransformFactory } from './index.js';

/** A table `fake` with columns given as `name: 'type'` (SeaTunnel type syntax), all nullable. */
export function table(cols: Record<string, string>, extra: Partial<CatalogTable> = {}): CatalogTable {
  const columns: Column[] = Object.entries(cols).map(([name, t]) => ({ name, type: parseDataType(t), nullable: true }));
  return newCatalogTable({ database: 'default', table: 'fake' }, columns, extra);
}

/** Creates the Sql transform through its factory, as the engine does. */
export function sql(query: string, ...inputTables: CatalogTable[]) {
  return sqlTransformFactory.create({
    jobId: 'j',
    jobMode: 'BATCH',
    parallelism: 1,
    options: optionsOf({ query, plugin_input: ['fake'] }, sqlTransformFactory.spec),
    inputTables,
  });
}

/** Runs one row through a query; returns the output row as an object by column name (or undefined when filtered). */
export function one(query: string, t: CatalogTable, fields: unknown[]): Record<string, unknown> | undefined {
  const tr = sql(query, t);
  const out = tr.transform([{ kind: '+I', tableId: t.tableId, fields } satisfies Row]);
  if (out.length === 0) return undefined;
  const cols = tr.outputTables()[0].columns;
  return Object.fromEntries(cols.map((c, i) => [c.name, out[0].fields[i]]));
}
