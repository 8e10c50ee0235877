import type { CatalogTable, SchemaChangeEvent } from '@tideway/api';
import type { SnapshotSplit } from './cdc-splits.js';

/** The transaction a change belongs to. All changes of one transaction share one object. */
export interface ChangeTxn<P> {
  /** Where streaming restarts to replay this transaction from its first change. */
  readonly resume: P;
  /** What the dialect needs to compare the transaction with chunk watermarks (xid, position). */
  readonly dedup: unknown;
  /** When the database committed it (epoch ms), where its log says; for the event-time lag. */
  readonly commitTimeMs?: number;
  /**
   * The transaction's place in the log's commit order as a 64-bit number, larger for every later
   * transaction (PostgreSQL pgoutput: its commit LSN; binlog: file sequence * 2^32 + offset).
   * Given to its rows as Row.version; absent where the log does not tell it before the changes
   * (decoderbufs names a transaction's first record, which is not in commit order).
   */
  readonly version?: bigint;
}

/** A row change of a captured table, with positional values in the table's column order. */
export interface ChangeItem<P> {
  readonly type: 'change';
  readonly txn: ChangeTxn<P>;
  readonly tableId: string;
  readonly op: 'insert' | 'update' | 'delete';
  /** The old row (update, delete), when the database logs it. */
  readonly before: unknown[] | null;
  /** The new row (insert, update). */
  readonly after: unknown[] | null;
}

/** Everything before `next` is delivered: a restart from `next` repeats nothing. */
export interface CommitItem<P> {
  readonly type: 'commit';
  readonly next: P;
}

/**
 * Captured tables changed (a DDL statement, a new relation message). The reader emits the events
 * only once the checkpoint after the rows before them has completed, so every sink has committed
 * those rows (and released their locks) before it alters its table.
 */
export interface SchemaItem<P> {
  readonly type: 'schema';
  readonly events: readonly SchemaChangeEvent[];
  /** The dialect's record of every captured table's schema after the change (checkpointed). */
  readonly schema: unknown;
  /** Where a restart resumes after the change; absent when it sits inside a transaction (the transaction replays it). */
  readonly next?: P;
}

export type StreamItem<P> = ChangeItem<P> | CommitItem<P> | SchemaItem<P>;

/** A running change stream (logical replication, binlog), read in batches. */
export interface ChangeStream<P> {
  /** Up to `max` items received so far, in order; waits at most `waitMs` when there are none. */
  poll(max: number, waitMs: number): Promise<StreamItem<P>[]>;
  /** Tells the database that everything before `position` is durably processed (after a checkpoint). */
  confirm(position: P): Promise<void>;
  close(): Promise<void>;
}

/** One chunk read with a consistent snapshot, and the watermark of that snapshot. */
export interface ChunkRead<W> {
  readonly rows: unknown[][];
  readonly watermark: W;
  /** The chunk's table (for announcing a table that joined the job at a restore). */
  readonly table?: CatalogTable;
}

/**
 * What a database contributes to CDC: consistent chunk reads with watermarks, a change stream
 * from a position, and the comparison of a transaction with a watermark.
 */
export interface CdcDialect<P, W> {
  /** Reads a chunk; undefined when its table is no longer captured (a job restored with another config). */
  readChunk(split: SnapshotSplit): Promise<ChunkRead<W> | undefined>;
  /**
   * Opens the change stream at `position`. `schema` is the dialect's record of the captured
   * tables' schemas at that position (from the last SchemaItem before it), absent when they
   * have not changed since the tables were discovered.
   */
  openStream(position: P, schema?: unknown): Promise<ChangeStream<P>>;
  /** Whether the snapshot with watermark `w` already contains the effects of `txn`. */
  snapshotHas(w: W, txn: ChangeTxn<P>): boolean;
  /** Whether `txn` and every later transaction are certainly not contained in watermark `w`. */
  streamPast(w: W, txn: ChangeTxn<P>): boolean;
  close(): Promise<void>;
  /**
   * This reader reads no more snapshot chunks for now: closes the session they used, keeping
   * what it learnt (reopened if a chunk comes after all). Absent: the session stays open, e.g.
   * because the change stream resolves types on it.
   */
  releaseSession?(): Promise<void>;
  /** A restored stream's tables against those captured now (absent: never reconciled); see TableReconciliation. */
  reconcileTables?(schema: unknown): Promise<TableReconciliation>;
}

/**
 * A job restored with a config that captures other tables than its checkpoint's stream (as
 * SeaTunnel's restore with an added table): the stream's schema record adapted to the tables
 * captured now, and the snapshot chunks of the added tables, read before the stream resumes.
 */
export interface TableReconciliation {
  readonly schema: unknown;
  readonly chunks: readonly SnapshotSplit[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
}
