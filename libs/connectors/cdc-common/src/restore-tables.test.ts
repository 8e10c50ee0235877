import { describe, expect, it } from 'vitest';
import type { SplitEnumeratorContext } from '@tideway/api';
import { CdcSplitEnumerator, type CdcEnumeratorState } from './cdc-enumerator.js';
import { CdcSourceReader } from './cdc-reader.js';
import type { CdcSplit, StreamSplit } from './cdc-splits.js';
import { applyStrictly, ListCollector, pollUntil, settle } from './changelog-check.js';
import { FakeDb, FakeDialect, fakeChunksOf, fakeReconcile, fakeRecord } from './fake-cdc.test-kit.js';

/** A table's rows as `id=value`, sorted: in the source, and in the target the change log was applied to. */
const tableRows = (db: FakeDb, table: string) => [...(db.tables.get(table) ?? [])].map(([id, v]) => `${id}=${v}`).sort();
const inTarget = (state: Map<string, unknown[]>, table: string) =>
  [...state]
    .filter(([k]) => k.startsWith(`${table}:`))
    .map(([, f]) => `${String(f[0])}=${String(f[1])}`)
    .sort();

/** Writes values that name their table and row, so a row in the wrong place shows. */
let stamp = 0;
const write = (db: FakeDb, table: string, id: number, deleted = false) =>
  db.write(table, id, deleted ? undefined : Number(`${table.charCodeAt(0)}${String(id).padStart(3, '0')}${++stamp}`));

/** The stream split of a savepoint taken now, its stream capturing `tables`. */
const savepointed = (db: FakeDb, ...tables: string[]): StreamSplit<number, number> => ({
  splitId: 'stream',
  kind: 'stream',
  position: db.log.length,
  skip: 0,
  chunks: [],
  schema: fakeRecord(...tables),
});

function seed(db: FakeDb): void {
  for (const t of ['a', 'b', 'c']) for (let id = 0; id < 100; id++) write(db, t, id);
}

describe('a restored CDC stream meets a config that captures other tables (decision 0041)', () => {
  it('the reader holding the stream split snapshots an added table, streams it, and drops a removed one', async () => {
    const db = new FakeDb();
    seed(db);
    // The savepoint: `a` and `c` captured, everything before the log's current length delivered.
    const target = new Map<string, unknown[]>();
    for (const t of ['a', 'c']) for (const [id, v] of db.tables.get(t)!) target.set(`${t}:${id}`, [id, v]);
    const cAtSavepoint = tableRows(db, 'c');
    const split = savepointed(db, 'a', 'c');
    // While the job is down, every table changes.
    write(db, 'a', 5);
    write(db, 'a', 7, true);
    write(db, 'a', 150);
    write(db, 'b', 3);
    write(db, 'b', 60, true);
    write(db, 'c', 1);
    db.captured = ['a', 'b'];

    const dialect = new FakeDialect(db);
    const reader = new CdcSourceReader<number, number>(dialect, 1000);
    reader.addSplits([structuredClone(split)]);
    const out = new ListCollector();
    await reader.pollNext(out);
    // The added table's chunks are read before the stream opens, and checkpointed with it.
    const state = reader.snapshotState(1);
    const stream = state.find((s) => s.kind === 'stream') as StreamSplit<number, number>;
    expect(stream.position).toBe(split.position);
    expect((stream.schema as ReturnType<typeof fakeRecord>).tables.map((t) => t.catalog.tableId)).toEqual(['a', 'b']);
    expect(state.filter((s) => s.kind === 'snapshot').length + stream.chunks.length).toBe(2);
    expect(dialect.streamed).toEqual([]);
    // Announced downstream as a new table before its rows, so that sinks make its target exist.
    expect(out.schemaChanges.map((c) => [c.event.tableId, c.event.created, c.rowsBefore])).toEqual([['b', true, 0]]);

    // After the restore, more changes, interleaved with the added table's snapshot.
    write(db, 'b', 70);
    write(db, 'b', 10, true);
    write(db, 'a', 6);
    write(db, 'c', 2);
    const equal = () => {
      applyStrictly(target, out.rows.splice(0), 0);
      return ['a', 'b'].every((t) => JSON.stringify(inTarget(target, t)) === JSON.stringify(tableRows(db, t)));
    };
    await pollUntil(reader, out, equal);
    await settle(reader, out);
    expect(equal()).toBe(true);
    expect(dialect.streamed).toEqual([['a', 'b']]);
    // `c` keeps its rows as of the savepoint: the stream no longer reads it.
    expect(inTarget(target, 'c')).toEqual(cAtSavepoint);
    expect(tableRows(db, 'c')).not.toEqual(cAtSavepoint);
    await reader.close();
  });

  it('an enumerator restored before the stream started reconciles its pending chunks first', async () => {
    const db = new FakeDb();
    seed(db);
    db.captured = ['a', 'b'];
    const assigned: CdcSplit[][] = [[], []];
    const ctx: SplitEnumeratorContext<CdcSplit> = {
      parallelism: 2,
      registeredReaders: () => [0, 1],
      assignSplits: (s, splits) => assigned[s].push(...splits),
      signalNoMoreSplits: () => undefined,
    };
    // Stopped during the snapshot of `a` and `c`: one chunk of each read, one of `c` out with reader 1.
    const restored: CdcEnumeratorState = {
      planned: true,
      pending: [fakeChunksOf('a')[1]],
      outstanding: ['c:1'],
      finished: [
        { ...fakeChunksOf('a')[0], keyIndex: 0, watermark: 300 },
        { ...fakeChunksOf('c')[0], keyIndex: 0, watermark: 300 },
      ],
      readBy: [0],
      stream: { splitId: 'stream', kind: 'stream', position: 300, skip: 0, chunks: [], schema: fakeRecord('a', 'c') },
    };
    const enumerator = new CdcSplitEnumerator(
      ctx,
      () => Promise.reject(new Error('planned already')),
      structuredClone(restored),
      (schema) => Promise.resolve(fakeReconcile(db, schema)),
    );
    // Nothing is handed out before the reconciliation.
    enumerator.registerReader(0);
    expect(assigned[0]).toEqual([]);
    await enumerator.run();
    for (let i = 0; i < 4; i++) enumerator.handleSplitRequest(0);
    const ids = assigned.flat().map((s) => s.splitId);
    expect(ids.sort()).toEqual(['a:1', 'b:0', 'b:1']);
    const state = enumerator.snapshotState(1);
    expect(state.outstanding?.sort()).toEqual(['a:1', 'b:0', 'b:1']);
    expect(state.finished?.map((c) => c.splitId)).toEqual(['a:0']);
    expect((state.stream?.schema as ReturnType<typeof fakeRecord>).tables.map((t) => t.catalog.tableId)).toEqual(['a', 'b']);
  });

  it('a restore with the same tables changes nothing', async () => {
    const db = new FakeDb();
    seed(db);
    db.captured = ['a', 'c'];
    const split = savepointed(db, 'a', 'c');
    const dialect = new FakeDialect(db);
    const reader = new CdcSourceReader<number, number>(dialect, 1000);
    reader.addSplits([split]);
    write(db, 'c', 4);
    const out = new ListCollector();
    await pollUntil(reader, out, () => out.rows.length === 2);
    expect(out.rows.map((r) => `${r.tableId}:${r.kind}${String(r.fields[0])}`)).toEqual(['c:-U4', 'c:+U4']);
    expect(dialect.streamed).toEqual([['a', 'c']]);
    await reader.close();
  });
});
