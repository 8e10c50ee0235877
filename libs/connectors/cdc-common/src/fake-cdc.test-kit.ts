/**
 * A hand-written database for the unit tests of the CDC reader and enumerator (excluded from the
 * build): tables of (id, value) rows, a log of single-row transactions numbered from 0, chunk
 * reads that see every transaction before the log's current length (the watermark), and the
 * tables a config captures now.
 */
import type { SnapshotSplit } from './cdc-splits.js';
import type { CdcDialect, ChangeStream, ChangeTxn, StreamItem, TableReconciliation } from './change-stream.js';

export interface FakeLogEntry {
  readonly table: string;
  readonly op: 'insert' | 'update' | 'delete';
  readonly id: number;
  readonly before: number | undefined;
  readonly after: number | undefined;
}

export class FakeDb {
  readonly tables = new Map<string, Map<number, number>>();
  readonly log: FakeLogEntry[] = [];
  /** The tables the config captures now. */
  captured: string[] = [];

  /** A table's rows (empty when it has none yet). */
  rowsOf(table: string): Map<number, number> {
    return this.tables.get(table) ?? this.tables.set(table, new Map()).get(table)!;
  }

  /** Writes one row (undefined: deletes it) in a transaction of its own. */
  write(table: string, id: number, value: number | undefined): void {
    const rows = this.rowsOf(table);
    const before = rows.get(id);
    if (value === undefined) rows.delete(id);
    else rows.set(id, value);
    this.log.push({ table, op: before === undefined ? 'insert' : value === undefined ? 'delete' : 'update', id, before, after: value });
  }
}

/** A schema record naming `tables` (what the real dialects keep per table is beside the point here). */
export const fakeRecord = (...tables: string[]) => ({ tables: tables.map((tableId) => ({ catalog: { tableId } })) });

/** The tables a fake schema record names. */
const recordTables = (schema: unknown) => (schema as ReturnType<typeof fakeRecord>).tables.map((t) => t.catalog.tableId);

/** Two chunks per table: ids below 50, and the rest. */
export const fakeChunksOf = (tableId: string): SnapshotSplit[] => [
  { splitId: `${tableId}:0`, kind: 'snapshot', tableId, keyColumn: 'id', keyIndex: 0, upper: '50' },
  { splitId: `${tableId}:1`, kind: 'snapshot', tableId, keyColumn: 'id', keyIndex: 0, lower: '50' },
];

/** What CdcCatalog.reconcile answers for the fake's tables (added tables in two chunks each). */
export function fakeReconcile(db: FakeDb, schema: unknown): TableReconciliation & { captured: string[] } {
  const known = recordTables(schema);
  const added = db.captured.filter((t) => !known.includes(t));
  const removed = known.filter((t) => !db.captured.includes(t));
  return {
    schema: fakeRecord(...known.filter((t) => db.captured.includes(t)), ...added),
    chunks: added.flatMap(fakeChunksOf),
    added,
    removed,
    captured: [...db.captured],
  };
}

/**
 * The fake's dialect. Keys are bigints as the real sources emit them. A stream opened with a
 * schema record decodes only the record's tables, like the real ones; without one, every table.
 */
export class FakeDialect implements CdcDialect<number, number> {
  /** The tables each stream opened with a record captured. */
  readonly streamed: string[][] = [];

  constructor(private readonly db: FakeDb) {}

  readChunk(split: SnapshotSplit): Promise<{ rows: unknown[][]; watermark: number } | undefined> {
    if (this.db.captured.length > 0 && !this.db.captured.includes(split.tableId)) return Promise.resolve(undefined);
    const lo = split.lower === undefined ? -Infinity : Number(split.lower);
    const hi = split.upper === undefined ? Infinity : Number(split.upper);
    const rows = [...this.db.rowsOf(split.tableId)].filter(([id]) => id >= lo && id < hi).map(([id, v]) => [BigInt(id), v]);
    return Promise.resolve({ rows, watermark: this.db.log.length });
  }

  openStream(position: number, schema?: unknown): Promise<ChangeStream<number>> {
    const tables = schema === undefined ? undefined : recordTables(schema);
    if (tables) this.streamed.push(tables);
    let next = position;
    const db = this.db;
    return Promise.resolve({
      poll(max: number): Promise<StreamItem<number>[]> {
        const out: StreamItem<number>[] = [];
        while (next < db.log.length && out.length < max) {
          const e = db.log[next];
          const txn: ChangeTxn<number> = { resume: next, dedup: next };
          const row = (v: number | undefined) => (v === undefined ? null : [BigInt(e.id), v]);
          if (!tables || tables.includes(e.table))
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
    return Promise.resolve(fakeReconcile(this.db, schema));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
