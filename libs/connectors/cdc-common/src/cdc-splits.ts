/**
 * The splits of a CDC source (plain data: they are checkpointed). A table's initial snapshot is
 * cut into chunks by an integer primary key; the stream split carries the position to resume
 * the change stream from and, until the stream has passed them, the watermarks of the chunks
 * read, so that changes a chunk already contains are not emitted twice.
 */

/** One chunk of a table's snapshot: rows with lower <= key < upper (bounds absent: open). */
export interface SnapshotSplit {
  readonly splitId: string;
  readonly kind: 'snapshot';
  readonly tableId: string;
  /** The integer key column the table is chunked by; absent when one chunk holds the table. */
  readonly keyColumn?: string;
  /** Position of `keyColumn` in the table's rows. */
  readonly keyIndex?: number;
  /** Inclusive lower bound, decimal text (bigint-safe); absent: unbounded. */
  readonly lower?: string;
  /** Exclusive upper bound, decimal text; absent: unbounded. */
  readonly upper?: string;
  /**
   * The table joined the job at a restore (a config that lists it now): the reader announces it
   * downstream as a new table before its rows, so that sinks make its target exist.
   */
  readonly announce?: boolean;
}

/** A chunk that was read, with the database's watermark of the moment it was read. */
export interface FinishedChunk<W> {
  /** The chunk's SnapshotSplit id (absent in checkpoints of versions before parallel snapshots). */
  readonly splitId: string;
  readonly tableId: string;
  /** Position of the key column in the table's rows; -1 when one chunk holds the table. */
  readonly keyIndex: number;
  readonly lower?: string;
  readonly upper?: string;
  readonly watermark: W;
}

/** The change stream: where to resume, and what the snapshot already covered. */
export interface StreamSplit<P, W> {
  readonly splitId: 'stream';
  readonly kind: 'stream';
  /** Where streaming (re)starts: it replays the transaction in progress from its beginning. */
  readonly position: P;
  /** Changes of the transaction at `position` that were already emitted (skipped on resume). */
  readonly skip: number;
  /** Chunks read, for de-duplication; emptied once the stream is past every watermark. */
  readonly chunks: readonly FinishedChunk<W>[];
  /** The captured tables' schemas at `position` when they changed since discovery (the dialect's record). */
  readonly schema?: unknown;
}

/**
 * Not a split to read: the chunks a reader has read, kept in its checkpointed state so that it
 * can report them to the enumerator again after a restore (the report may have reached the
 * enumerator after the enumerator's part of the checkpoint was taken, or been lost).
 */
export interface ReadChunksRecord<W> {
  readonly splitId: 'read-chunks';
  readonly kind: 'read-chunks';
  readonly chunks: readonly FinishedChunk<W>[];
}

export type CdcSplit<P = unknown, W = unknown> = SnapshotSplit | StreamSplit<P, W> | ReadChunksRecord<W>;

/** The reader-to-enumerator event: these chunks are read, with their watermarks. */
export interface ChunksFinishedEvent {
  readonly type: 'cdc-chunks-finished';
  readonly chunks: readonly FinishedChunk<unknown>[];
}

/** Whether an enumerator event is a ChunksFinishedEvent. */
export function isChunksFinishedEvent(e: unknown): e is ChunksFinishedEvent {
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { type?: unknown }).type === 'cdc-chunks-finished' &&
    Array.isArray((e as { chunks?: unknown }).chunks)
  );
}

/** The reader-to-enumerator event: a schema change waits for a checkpoint, please take one. */
export interface CheckpointWantedEvent {
  readonly type: 'cdc-checkpoint-wanted';
}

/** Whether an enumerator event is a CheckpointWantedEvent. */
export function isCheckpointWantedEvent(e: unknown): e is CheckpointWantedEvent {
  return typeof e === 'object' && e !== null && (e as { type?: unknown }).type === 'cdc-checkpoint-wanted';
}

/** Whether a split is the stream split. */
export function isStreamSplit<P, W>(s: CdcSplit<P, W>): s is StreamSplit<P, W> {
  return s.kind === 'stream';
}
