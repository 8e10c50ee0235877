import { describe, expect, it } from 'vitest';
import type { SplitEnumeratorContext } from '@tideway/api';
import { CdcSplitEnumerator, type CdcEnumeratorState } from './cdc-enumerator.js';
import { CdcSourceReader } from './cdc-reader.js';
import type { CdcSplit, SnapshotSplit, StreamSplit } from './cdc-splits.js';
import type { CdcDialect, ChangeStream, ChangeTxn, StreamItem, TableReconciliation } from './change-stream.js';
import { applyStrictly, ListCollector, pollUntil, settle } from './changelog-check.js';

/**
 * A hand-written database of several tables (id, value), a log of single-row transactions
 * numbered from 0, chunk reads that see every transaction before the log's current length, and
 * a config that captures `captured` now.
 */
class FakeDb {
  readonly tables = new Map<string, Map<number, number>>();
  readonly log: { table: string; op: 'insert' | 'update' | 'delete'; id: number; before?: number; after?: number }[] = [];
  captured: string[] = [];

  write(table: string, id: number, value: number | undefined): void {
    const rows = this.tables.get(table) ?? this.tables.set(table, new Map()).get(table)!;
    const before = rows.get(id);
    if (value === undefined) rows.delete(id);
    else rows.set(id, value);
    this.log.push({ table, op: before === undefined ? 'insert' : value === undefined ? 'delete' : 'update', id, before, after: value });
  }
}

/** A schema record naming `tables` (what the real dialects keep per table is beside the point here). */
const record = (...tables: string[]) => ({ tables: tables.map((tableId) => ({ catalog: { tableId } })) });

/** Two chunks per table: ids below 50, and the rest. */
const chunksOf = (tableId: string): SnapshotSplit[] => [
  { splitId: `${tableId}:0`, kind: 'snapshot', tableId, keyColumn: 'id', keyIndex: 0, upper: '50' },
  { splitId: `${tableId}:1`, kind: 'snapshot', tableId, keyColumn: 'id', keyIndex: 0, lower: '50' },
];

class FakeDialect implements CdcDialect<number, number> {
  /** The tables each opened stream captured (its record's). */
  readonly streamed: string[][] = [];

  constructor(private readonly db: FakeDb) {}

  readChunk(split: SnapshotSplit): Promise<{ rows: unknown[][]; watermark: number } | undefined> {
    if (!this.db.captured.includes(split.tableId)) return Promise.resolve(undefined);
    const lo = split.lower === undefined ? -Infinity : Number(split.lower);
    const hi = split.upper === undefined ? Infinity : Number(split.upper);
    const rows = [...(this.db.tables.get(split.tableId) ?? [])].filter(([id]) => id >= lo && id < hi).map(([id, v]) => [id, v]);
    return Promise.resolve({ rows, watermark: this.db.log.length });
  }

  openStream(position: number, schema?: unknown): Promise<ChangeStream<number>> {
    // Like the real streams: only the tables of the record are decoded.
    const tables = (schema as ReturnType<typeof record>).tables.map((t) => t.catalog.tableId);
    this.streamed.push(tables);
    let next = position;
    const db = this.db;
    return Promise.resolve({
      poll(max: number): Promise<StreamItem<number>[]> {
        const out: StreamItem<number>[] = [];
        while (next < db.log.length && out.length < max) {
          const e = db.log[next];
          const txn: ChangeTxn<number> = { resume: next, dedup: next };
          const row = (v: number | undefined) => (v === undefined ? null : [e.id, v]);
          if (tables.includes(e.table))
            out.push({ type: 'change', txn, tableId: e.table, op: e.op, before: row(e.before), after: row(e.after) });
          out.push({ type: 'commit', next: ++next });
        }
        return Promise.resolve(out);
      },
      confirm: () => Promise.resolve(),
      close: () => Promise.resolve(),
    });
  }

  snapshotHas(w: number, txn: ChangeTxn<number>): boolean {
    return (txn.dedup as number) < w;
  }

  streamPast(w: number, txn: ChangeTxn<number>): boolean {
    return (txn.dedup as number) >= w;
  }

  reconcileTables(schema: unknown): Promise<TableReconciliation> {
    return Promise.resolve(reconcile(this.db, schema));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** What CdcCatalog.reconcile answers, for the fake's tables. */
function reconcile(db: FakeDb, schema: unknown): TableReconciliation & { captured: string[] } {
  const known = (schema as ReturnType<typeof record>).tables.map((t) => t.catalog.tableId);
  const added = db.captured.filter((t) => !known.includes(t));
  const removed = known.filter((t) => !db.captured.includes(t));
  return {
    schema: record(...known.filter((t) => db.captured.includes(t)), ...added),
    chunks: added.flatMap(chunksOf),
    added,
    removed,
    captured: [...db.captured],
  };
}

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
    const split: StreamSplit<number, number> = {
      splitId: 'stream',
      kind: 'stream',
      position: db.log.length,
      skip: 0,
      chunks: [],
      schema: record('a', 'c'),
    };
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
    expect((stream.schema as ReturnType<typeof record>).tables.map((t) => t.catalog.tableId)).toEqual(['a', 'b']);
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
      pending: [chunksOf('a')[1]],
      outstanding: ['c:1'],
      finished: [
        { ...chunksOf('a')[0], keyIndex: 0, watermark: 300 },
        { ...chunksOf('c')[0], keyIndex: 0, watermark: 300 },
      ],
      readBy: [0],
      stream: { splitId: 'stream', kind: 'stream', position: 300, skip: 0, chunks: [], schema: record('a', 'c') },
    };
    const enumerator = new CdcSplitEnumerator(
      ctx,
      () => Promise.reject(new Error('planned already')),
      structuredClone(restored),
      (schema) => Promise.resolve(reconcile(db, schema)),
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
    expect((state.stream?.schema as ReturnType<typeof record>).tables.map((t) => t.catalog.tableId)).toEqual(['a', 'b']);
  });

  it('a restore with the same tables changes nothing', async () => {
    const db = new FakeDb();
    seed(db);
    db.captured = ['a', 'c'];
    const split: StreamSplit<number, number> = {
      splitId: 'stream',
      kind: 'stream',
      position: db.log.length,
      skip: 0,
      chunks: [],
      schema: record('a', 'c'),
    };
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
