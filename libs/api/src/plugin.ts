import type { CatalogTable, Row } from './row.js';
import type { SchemaChangeEvent } from './schema-change.js';
import type { PluginOptions, PluginSpec } from './options.js';

/**
 * The connector API, after SeaTunnel's: a Source has a SplitEnumerator (runs on the
 * coordinator) and SourceReaders (one per parallel subtask, on workers); a Sink has
 * SinkWriters, and optionally a SinkCommitter / SinkAggregatedCommitter for two-phase commit.
 *
 * Delivery: readers emit rows in batches through a Collector; writers get batches. Splits,
 * reader state and commit infos must be plain data (structured-clone and JSON safe, bigint
 * allowed): they cross threads, processes and checkpoint storage.
 */

export type JobMode = 'BATCH' | 'STREAMING';
export type Boundedness = 'BOUNDED' | 'UNBOUNDED';

/** What every plugin factory gets. */
export interface PluginContext {
  readonly jobId: string;
  readonly jobMode: JobMode;
  /** Parallelism of this plugin (its own `parallelism` option or env.parallelism). */
  readonly parallelism: number;
  readonly options: PluginOptions;
  /** Tables this plugin receives (empty for sources), in plugin_input order. */
  readonly inputTables: readonly CatalogTable[];
  /**
   * The job env's `checkpoint.interval` and `checkpoint.timeout` in ms, where it sets them; given
   * only when the job is planned (for warnings such as a Kafka transaction timeout shorter than a
   * checkpoint may take), absent where the plugin runs.
   */
  readonly checkpoint?: { readonly intervalMs?: number; readonly timeoutMs?: number };
}

// ---------------------------------------------------------------- sources

export interface SourceSplit {
  /** Unique within the source. */
  readonly splitId: string;
}

export interface Collector {
  /** Emits one row. Rows are buffered into batches by the runtime. */
  collect(row: Row): void;
  /** Emits many rows at once. */
  collectBatch(rows: readonly Row[]): void;
  /**
   * Emits a change of a table's schema, after the rows collected before it and before the rows
   * that follow (which have the new shape). Absent where the host has no schema path (fakes).
   */
  collectSchemaChange?(event: SchemaChangeEvent): void;
}

export interface SplitEnumeratorContext<S extends SourceSplit> {
  readonly parallelism: number;
  /** Subtask indexes of readers that have registered. */
  registeredReaders(): number[];
  assignSplits(subtask: number, splits: S[]): void;
  /** Tells a reader no more splits will come. */
  signalNoMoreSplits(subtask: number): void;
  /**
   * Optional: asks the engine for a checkpoint now rather than at the next interval (a source
   * holding a schema change until the rows before it are committed). The engine may decline
   * (one is in flight, or the minimum pause has not passed); the periodic one then comes.
   */
  requestCheckpoint?(): void;
}

export interface SplitEnumerator<S extends SourceSplit, State = unknown> {
  open(): Promise<void> | void;
  /** Called once after open: discover splits, assign to readers that registered. */
  run(): Promise<void> | void;
  /** A reader came up (or came back): assign it work. */
  registerReader(subtask: number): void;
  /** A reader asks for more work. */
  handleSplitRequest(subtask: number): void;
  /**
   * Splits come back to be assigned again: those handed to a reader that failed before
   * checkpointing them, and, when a job is restored at another parallelism than its checkpoint's
   * (a source that is `rescalable`), every reader's checkpointed splits with their progress,
   * called after open() and run() and before any reader registers. `subtask` is the reader
   * they are meant for (in a restore: the old reader's index modulo the new parallelism); the
   * enumerator may choose another. It hands them out as they are and must not create again
   * splits it created before the checkpoint.
   */
  addSplitsBack(splits: S[], subtask: number): void;
  /**
   * Optional: an event a reader sent with SourceReaderContext.sendSourceEvent (SeaTunnel's
   * handleSourceEvent), e.g. the snapshot chunks it finished. Delivery is at most once and in
   * order per reader: an event lost with a failed request is not sent again, so a reader that
   * needs it delivered sends it again until the enumerator's assignments show it arrived.
   * Called before the split request it travelled with.
   */
  handleSourceEvent?(subtask: number, event: unknown): void | Promise<void>;
  snapshotState(checkpointId: number): State;
  notifyCheckpointComplete?(checkpointId: number): Promise<void> | void;
  close(): Promise<void> | void;
}

export interface SourceReaderContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly boundedness: Boundedness;
  /** A bounded reader calls this when it has emitted everything: the task then finishes. */
  signalNoMoreElement(): void;
  /** Asks the enumerator for a split. */
  sendSplitRequest(): void;
  /**
   * Optional: sends a plain-data event to the enumerator's handleSourceEvent (at most once; see
   * there). Absent where the engine hosting the reader has no enumerator channel (unit-test fakes).
   */
  sendSourceEvent?(event: unknown): void;
  /**
   * Optional, for sources that read a database's log (CDC): the commit time (epoch ms) of the
   * newest change this pollNext emitted, or null when the reader has caught up with the log and
   * emitted nothing. The runtime turns it into the source's event-time lag (the time from a
   * change's commit in the database to the moment its rows left the task group for the sinks),
   * shown in metrics. Absent in engines without the metric (unit-test fakes).
   */
  reportEventTime?(commitTimeMs: number | null): void;
  /**
   * Optional: the most rows one pollNext should emit, set when the job limits its read rate
   * (env `read_limit.rows_per_second`: a tenth of a second's rows). The engine holds the average
   * rate by waiting after a poll, so a reader that fetches in large blocks (Kafka) and emits a
   * whole block at once would send it in one burst and then wait; a reader that honours this
   * emits the rest in later polls (its checkpointed position covering only what it emitted).
   * Since API 0.1.4.
   */
  readonly maxRowsPerPoll?: number;
}

export interface SourceReader<S extends SourceSplit> {
  open(): Promise<void> | void;
  /**
   * Emits what is available now (at most a few thousand rows) and returns. The runtime calls
   * it in a loop between barriers; return without emitting when idle (the runtime backs off).
   */
  pollNext(output: Collector): Promise<void> | void;
  addSplits(splits: S[]): void;
  handleNoMoreSplits(): void;
  /** The splits this reader still owns, with their progress. */
  snapshotState(checkpointId: number): S[];
  notifyCheckpointComplete?(checkpointId: number): Promise<void> | void;
  /**
   * Optional: how far each split this reader owns is behind the end of its stream, by split id,
   * as of the reader's last read (Kafka: records from the partition's next offset to its high
   * watermark, or to its last stable offset when reading read_committed: the consumer lag). The
   * runtime sends it with the task group's metrics; the coordinator exposes it per split.
   */
  lag?(): Readonly<Record<string, number>>;
  /**
   * Optional (API 0.1.5): the runtime offers the reader a form in which the writer it feeds
   * takes rows without decoding them (see RowEncodingOffer), once, before its first poll. The
   * reader may ignore it; or, for the tables whose layout `offer.accepts`, emit EncodedRows of
   * `offer.encoding` instead of rows of values.
   */
  offerRowEncoding?(offer: RowEncodingOffer): void;
  close(): Promise<void> | void;
}

export interface Source<S extends SourceSplit = SourceSplit, EnumState = unknown> {
  boundedness(): Boundedness;
  /**
   * Optional I/O a source needs before catalogTables() can answer, e.g. reading a database's
   * schema (Jdbc). The engine awaits it once, on the coordinator, before catalogTables(); a
   * rejection fails the job at submission with its message.
   */
  prepare?(): Promise<void>;
  /** The tables this source produces (known before anything runs; after prepare() if any). */
  catalogTables(): CatalogTable[];
  createEnumerator(ctx: SplitEnumeratorContext<S>, restored?: EnumState): SplitEnumerator<S, EnumState>;
  createReader(ctx: SourceReaderContext): SourceReader<S>;
  /**
   * Optional: true when a job may be restored with this source at another parallelism than
   * its checkpoint's: the enumerator's state does not depend on the number of readers, and its
   * addSplitsBack() hands restored splits to the readers there are now. Without it, such a
   * restore is refused with a sentence naming the source.
   */
  readonly rescalable?: boolean;
}

// ---------------------------------------------------------------- transforms

export interface Transform {
  /** The tables this transform outputs, inferred from its input tables. */
  outputTables(): CatalogTable[];
  /** Maps a batch; returns the output rows (may be fewer or more). */
  transform(rows: readonly Row[]): Row[];
  close?(): void;
}

// ---------------------------------------------------------------- sinks

export interface SinkWriterContext {
  readonly subtaskIndex: number;
  readonly parallelism: number;
}

export interface SinkWriter<CommitInfo = unknown, State = unknown> {
  /**
   * Writes a batch. Its rows may be EncodedRows of the encoding this writer offered
   * (rowEncoding), among rows of values: a row of another encoding, or of a table the offer did
   * not accept, is written by its `fields` like any other.
   */
  write(rows: readonly Row[]): Promise<void> | void;
  /**
   * Optional (API 0.1.5): a form in which this writer takes rows as they are, without their
   * values being decoded and encoded again (the Jdbc sink: PostgreSQL's binary COPY tuples). The
   * runtime asks once, after creating the writer, and only when a source's reader feeds it
   * directly and alone: no transform, shuffle, other sink or row-error handling between them.
   */
  rowEncoding?(): RowEncodingOffer | undefined;
  /** Two-phase commit, phase 1: called at a checkpoint barrier; returns what the committer commits. */
  prepareCommit?(checkpointId: number): Promise<CommitInfo | undefined> | CommitInfo | undefined;
  /** State to restore the writer with (e.g. open transaction ids). */
  snapshotState?(checkpointId: number): State[];
  /** Drops prepared work after a failure. */
  abortPrepare?(): Promise<void> | void;
  /**
   * Schema evolution: changes the writer's target for `event` before any row of the new shape
   * arrives (every row before it was passed to write() first). Must be idempotent: after a
   * restore the same change may come again, already applied. An event with `restored` only
   * tells the writer the table's current schema. Throw an Error with one sentence naming the
   * table and the change when it cannot be applied; the job fails with it. A writer without
   * this method fails the job at the first schema change.
   */
  applySchemaChange?(event: SchemaChangeEvent): Promise<void> | void;
  /**
   * Optional (API 0.1.3), row-level error handling (env.sink_error_handler mode LOG or ROUTE):
   * the engine calls it once, before the first write, when the job handles a sink's bad rows.
   * From then on a row the target refuses for itself (a value it cannot store, a constraint the
   * row violates) is handed to `reject` with the error, and the other rows of its batch are still
   * written; every other error (the target away, a timeout, a lost connection) still fails the
   * call as before, so no row is rejected because a server was away. `reject` may be called from
   * write(), prepareCommit() or close(), and never throws. A writer without this method has no
   * row-level errors: everything it throws fails the task.
   */
  handleRowErrors?(reject: (row: Row, error: Error) => void): void;
  close(): Promise<void> | void;
}

export interface SinkCommitter<CommitInfo> {
  /** Commits; returns the infos that must be retried. Must be idempotent. */
  commit(infos: CommitInfo[]): Promise<CommitInfo[]> | CommitInfo[];
  abort(infos: CommitInfo[]): Promise<void> | void;
}

export interface SinkAggregatedCommitter<CommitInfo, AggInfo> {
  combine(infos: CommitInfo[]): AggInfo;
  /** Must be idempotent; returns the infos that must be retried. */
  commit(infos: AggInfo[]): Promise<AggInfo[]> | AggInfo[];
  abort(infos: AggInfo[]): Promise<void> | void;
  /**
   * Called once on the coordinator when the pipeline has finished successfully (after the
   * final checkpoint's commit). An error thrown here fails the job (Assert's row-count
   * rules use this).
   */
  close?(): Promise<void> | void;
}

export interface Sink<CommitInfo = unknown, AggInfo = unknown, State = unknown> {
  /**
   * Optional one-time set-up before any writer is created (on the coordinator, not on a restore
   * from a checkpoint): SeaTunnel's schema_save_mode / data_save_mode (create, drop or empty
   * the target table). The engine awaits it; a rejection fails the job with its message.
   */
  prepare?(): Promise<void>;
  createWriter(ctx: SinkWriterContext, restored?: State[]): SinkWriter<CommitInfo, State>;
  /**
   * Optional: nothing of this job will be committed any more: drop everything not committed,
   * prepared transactions included. Called once on the coordinator, after every writer of the
   * pipeline has stopped: when the job was cancelled (what no completed checkpoint holds can
   * never be committed; a new job restored from its last checkpoint re-commits only what that
   * checkpoint holds, which was committed when it completed) and when the pipeline finished (every checkpoint is committed; what is
   * left are leftovers of failed attempts). Never after a failure, whose prepared work a
   * restore may still commit. Must be idempotent (a restore from a savepoint re-commits, which
   * must then find nothing to undo). A rejection is logged; the job still ends as it would.
   */
  abandon?(): Promise<void>;
  createCommitter?(): SinkCommitter<CommitInfo>;
  createAggregatedCommitter?(): SinkAggregatedCommitter<CommitInfo, AggInfo>;
  /**
   * Optional: true when a job may be restored with this sink at another parallelism than its
   * checkpoint's. The engine's rule then: the states (and prepared commit infos) of old writer
   * `i` all go to new writer `i % parallelism` (a shrink merges several old writers' lists into
   * one writer's `restored`; a growth leaves the new writers past the old count without state);
   * one writer's states are never split. A sink whose writers keep no state (no snapshotState)
   * needs no flag. Without it, such a restore is refused with a sentence naming the sink.
   */
  readonly rescalable?: boolean;
}

// ---------------------------------------------------------------- encoded rows

/**
 * A form in which a sink writer takes rows as they are (API 0.1.5): a database's own wire format,
 * agreed by name between the connectors that produce and take it. A source reading from the
 * same kind of database then hands its rows on undecoded, and neither side spends CPU on values
 * that only pass through (a PostgreSQL -> PostgreSQL copy: docs/decisions/0104).
 */
export interface RowEncodingOffer {
  /** The form's name, e.g. 'postgresql-copy-binary'. */
  readonly encoding: string;
  /**
   * Whether the writer takes the rows of `tableId` in this form when they are laid out as
   * `layout` (the form's own description of a row, e.g. each field's PostgreSQL type). It may
   * read the target's metadata first. A reader asks once per table, before its first row.
   */
  accepts(tableId: string, layout: unknown): Promise<boolean>;
}

/**
 * A row in an offered encoding. Its `fields` are decoded when first read, so any reader of the
 * row that does not know the encoding still sees its values.
 */
export interface EncodedRow extends Row {
  readonly encoding: string;
  /**
   * What the job's byte metrics count for the row, found without decoding it: the size of its
   * non-null fields, as for rows of values, with a string counted by its encoded bytes.
   */
  readonly byteSize: number;
}

/** Whether a row is an EncodedRow (of any encoding). */
export function isEncodedRow(row: Row): row is EncodedRow {
  return (row as Partial<EncodedRow>).encoding !== undefined;
}

// ---------------------------------------------------------------- factories

interface FactoryBase {
  /** SeaTunnel's plugin name, e.g. `FakeSource`, `Console`, `Sql`. Matched case-insensitively. */
  readonly name: string;
  /** One paragraph for `tideway describe` and the generated docs. */
  readonly description: string;
  readonly spec: PluginSpec;
}

export interface SourceFactory extends FactoryBase {
  readonly type: 'source';
  create(ctx: PluginContext): Source;
}

export interface TransformFactory extends FactoryBase {
  readonly type: 'transform';
  create(ctx: PluginContext): Transform;
}

export interface SinkFactory extends FactoryBase {
  readonly type: 'sink';
  create(ctx: PluginContext): Sink;
}

export type PluginFactory = SourceFactory | TransformFactory | SinkFactory;
export type PluginType = PluginFactory['type'];
