import { describe, expect, it } from 'vitest';
import { newCatalogTable, Types, type CatalogTable, type Row, type SchemaChangeEvent, type SinkWriter, type Transform } from '@tideway/api';
import { applyToSink, EvolvingTransform } from './schema-stages.js';

const input = newCatalogTable({ database: 'db', table: 't' }, [
  { name: 'id', type: Types.INT, nullable: false },
  { name: 'a', type: Types.STRING, nullable: true },
]);

/** A hand-written projection: outputs the columns named in `keep` that its input has, fails when one is missing. */
function projection(keep: string[]) {
  return (ctx: { inputTables: readonly CatalogTable[] }): Transform => {
    const t = ctx.inputTables[0];
    for (const k of keep) if (k !== '*' && !t.columns.some((c) => c.name === k)) throw new Error(`field ${k} does not exist`);
    const out = { ...t, columns: t.columns.filter((c) => keep.includes(c.name) || keep.includes('*')) };
    return { outputTables: () => [out], transform: (rows: readonly Row[]) => [...rows] };
  };
}

function event(table: CatalogTable, changes: SchemaChangeEvent['changes']): SchemaChangeEvent {
  return { type: 'schema-change', tableId: table.tableId, changes, table };
}

describe('EvolvingTransform', () => {
  it('re-derives the output for a changed input and passes on what changed in it', () => {
    const create = projection(['*']);
    const ctx = { inputTables: [input] };
    const t = new EvolvingTransform(create(ctx), ctx, create, 'Copy');
    const after = { ...input, columns: [...input.columns, { name: 'b', type: Types.INT, nullable: true }] };
    const out = t.evolve(event(after, [{ kind: 'add', column: { name: 'b', type: Types.INT, nullable: true } }]));
    expect(out).toHaveLength(1);
    expect(out[0].changes).toEqual([{ kind: 'add', column: { name: 'b', type: Types.INT, nullable: true }, after: 'a' }]);
  });

  it('passes nothing on when its output did not change', () => {
    const create = projection(['id']);
    const ctx = { inputTables: [input] };
    const t = new EvolvingTransform(create(ctx), ctx, create, 'FieldMapper');
    const after = { ...input, columns: [...input.columns, { name: 'b', type: Types.INT, nullable: true }] };
    expect(t.evolve(event(after, [{ kind: 'add', column: { name: 'b', type: Types.INT, nullable: true } }]))).toEqual([]);
  });

  it('fails in one sentence naming the table and the change when the transform cannot follow it', () => {
    const create = projection(['id', 'a']);
    const ctx = { inputTables: [input] };
    const t = new EvolvingTransform(create(ctx), ctx, create, 'Sql');
    const after = { ...input, columns: [input.columns[0]] };
    expect(() => t.evolve(event(after, [{ kind: 'drop', name: 'a' }]))).toThrow(
      'table db.t: the Sql transform cannot follow DROP COLUMN a: field a does not exist',
    );
  });
});

describe('tables created while the job runs', () => {
  const created = newCatalogTable({ database: 'db', table: 'u' }, [{ name: 'id', type: Types.INT, nullable: false }]);
  /** Passes every input table through, as Copy does. */
  const copyAll = (ctx: { inputTables: readonly CatalogTable[] }): Transform => ({
    outputTables: () => ctx.inputTables.map((t) => ({ ...t })),
    transform: (rows: readonly Row[]) => [...rows],
  });

  it('a transform re-derives its output with the new table and passes it on as created', () => {
    const ctx = { inputTables: [input] };
    const t = new EvolvingTransform(copyAll(ctx), ctx, copyAll, 'Copy');
    const out = t.evolve({ ...event(created, []), created: true });
    expect(out.map((e) => [e.tableId, e.created, e.table.columns.map((c) => c.name)])).toEqual([['db.u', true, ['id']]]);
    // Replayed (a restore that re-reads the CREATE): still passed on, so the sink makes sure of its target.
    expect(t.evolve({ ...event(created, []), created: true }).map((e) => e.tableId)).toEqual(['db.u']);
  });

  it('reaches a sink whose planned input lacks the table', async () => {
    const seen: string[] = [];
    const writer: SinkWriter = { write: () => undefined, close: () => undefined, applySchemaChange: (e) => void seen.push(e.tableId) };
    await applyToSink(writer, [input], 'Jdbc', { ...event(created, []), created: true });
    await applyToSink(writer, [input], 'Jdbc', event(created, [{ kind: 'drop', name: 'id' }]));
    expect(seen).toEqual(['db.u']);
  });
});

describe('applyToSink', () => {
  it('fails in one sentence when the sink cannot apply schema changes', async () => {
    const writer: SinkWriter = { write: () => undefined, close: () => undefined };
    await expect(applyToSink(writer, [input], 'Console', event(input, [{ kind: 'drop', name: 'a' }]))).rejects.toThrow(
      'table db.t: the Console sink cannot apply schema changes (DROP COLUMN a)',
    );
  });

  it('hands the change to a writer of the table, and ignores changes of other tables', async () => {
    const seen: SchemaChangeEvent[] = [];
    const writer: SinkWriter = { write: () => undefined, close: () => undefined, applySchemaChange: (e) => void seen.push(e) };
    await applyToSink(writer, [input], 'Jdbc', event(input, [{ kind: 'drop', name: 'a' }]));
    await applyToSink(writer, [input], 'Jdbc', { ...event(input, []), tableId: 'db.other' });
    expect(seen.map((e) => e.tableId)).toEqual(['db.t']);
  });
});
