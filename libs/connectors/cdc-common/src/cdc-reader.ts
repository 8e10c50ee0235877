import { RowKind, type CatalogTable, type Collector, type Row, type SourceReader, type SourceReaderContext } from '@tideway/api';
import { ErrorCode, TidewayError } from '@tideway/common';
import type { CdcSplit, CheckpointWantedEvent, ChunksFinishedEvent, FinishedChunk, SnapshotSplit, StreamSplit } from './cdc-splits.js';
import type { CdcDialect, ChangeItem, ChangeStream, ChangeTxn, SchemaItem, StreamItem } from './change-stream.js';
import { ChunkIndex } from './chunk-index.js';
import type { DebeziumEnvelope, SourcePosition } from './debezium-envelope.js';

/** format = COMPATIBLE_DEBEZIUM_JSON: the envelope writer, and a stream position's source-block fields. */
export interface ReaderEnvelope<P> {
  readonly envelope: DebeziumEnvelope;
  readonly position: (p: P) => SourcePosition;
}

/** Where the reader stands in the stream: the split's position and skip count. */
interface StreamPoint<P> {
  position: P;
  skip: number;
}

/** How long one poll waits for changes before returning to the runtime. */
const POLL_WAIT_MS = 100;

/** How often an idle reader reports its read chunks again until the stream has started. */
const REPORT_AGAIN_MS = 2000;

/**
 * Reads the snapshot chunks the enumerator hands it one by one (each chunk whole, in one poll,
 * so that no checkpoint falls inside a chunk) and reports each one read, with its watermark, to
 * the enumerator. The reader given the stream split then streams changes from its position. A
 * change a chunk's snapshot already holds is dropped (by its key's chunk watermark) until the
 * stream is past every watermark. Positions checkpointed with a checkpoint are confirmed to the
 * database only when that checkpoint completes. Before the stream opens, its tables are checked
 * against those the config captures now (a restore with another config, decision 0041).
 */
export class CdcSourceReader<P, W> implements SourceReader<CdcSplit<P, W>> {
  private readonly chunks: SnapshotSplit[] = [];
  private streamSplit: StreamSplit<P, W> | undefined;
  /** Chunks read while holding the stream split (checkpoints of one-reader snapshots): de-duplicated against directly. */
  private finishedChunks: FinishedChunk<W>[] = [];
  /** Chunks read and reported to the enumerator, kept until the stream has started (then it holds them). */
  private reported: FinishedChunk<W>[] = [];
  private lastReport = 0;
  private noMoreSplits = false;
  private stream: ChangeStream<P> | undefined;
  private point: StreamPoint<P> | undefined;
  private skipRemaining = 0;
  private index: ChunkIndex<W> | undefined;
  private txn: ChangeTxn<P> | undefined;
  private txnCount = 0;
  private txnPast = false;
  private readonly toConfirm = new Map<number, P>();
  /** The dialect's record of the captured tables' schemas at the current position (undefined: as discovered). */
  private schema: unknown;
  /**
   * Items received after a schema change, the change first: held until a checkpoint taken
   * after the rows before it has completed (`heldAt`: that checkpoint; -1: none taken yet).
   */
  private held: StreamItem<P>[] = [];
  private heldAt: number | undefined;
  private released = false;
  /** The snapshot session was let go, this reader having no chunk left to read. */
  private sessionReleased = false;
  /** The stream split's tables were checked against those captured now (see reconcileTables). */
  private reconciled = false;
  /** Tables this reader announced downstream as joining the job at a restore. */
  private readonly announced = new Set<string>();

  constructor(
    private readonly dialect: CdcDialect<P, W>,
    private readonly fetchSize: number,
    private readonly ctx?: Pick<SourceReaderContext, 'sendSplitRequest' | 'sendSourceEvent' | 'reportEventTime'>,
    private readonly debezium?: ReaderEnvelope<P>,
  ) {}

  /** The envelope with `tableId` described: as its chunk read it (`table`), else as the stream's schema record holds it. */
  private envelopeFor(tableId: string, table?: CatalogTable): DebeziumEnvelope {
    const d = this.debezium as ReaderEnvelope<P>;
    if (!d.envelope.has(tableId)) {
      const known =
        table ??
        (this.schema as { tables?: readonly { catalog: CatalogTable }[] } | undefined)?.tables?.find((t) => t.catalog.tableId === tableId)
          ?.catalog;
      if (!known) throw new TidewayError(ErrorCode.INTERNAL, `a change of table ${tableId}, whose columns the reader does not know`);
      d.envelope.setTable(known);
    }
    return d.envelope;
  }

  open(): void {}

  addSplits(splits: CdcSplit<P, W>[]): void {
    for (const s of splits) {
      if (s.kind === 'stream') {
        this.streamSplit = s;
        this.finishedChunks = [...s.chunks];
        this.reported = [];
      } else if (s.kind === 'read-chunks') {
        // Restored: the enumerator's part of the checkpoint may predate these reports.
        this.reported.push(...s.chunks);
        this.lastReport = 0;
      } else this.chunks.push(s);
    }
  }

  handleNoMoreSplits(): void {
    // The enumerator says so only once it has handed out the stream split, which carries every
    // reported chunk: this reader's reports are no longer needed (nor checkpointed).
    this.noMoreSplits = true;
    this.reported = [];
  }

  async pollNext(output: Collector): Promise<void> {
    if (this.lastReport === 0 && this.reported.length > 0 && !this.noMoreSplits) this.report(this.reported, false);
    if (this.streamSplit && !this.stream && !this.reconciled) await this.reconcileTables(this.streamSplit, output);
    const chunk = this.chunks[0];
    if (chunk) {
      // Ask for the next chunk before reading this one, so it arrives while this one is read.
      if (this.chunks.length === 1 && !this.streamSplit) this.ctx?.sendSplitRequest();
      await this.readChunk(chunk, output);
      return;
    }
    if (!this.streamSplit) {
      // SeaTunnel's readers hold no snapshot session once the stream runs elsewhere.
      if (this.noMoreSplits && !this.sessionReleased) {
        this.sessionReleased = true;
        await this.dialect.releaseSession?.();
      }
      if (!this.noMoreSplits && this.reported.length > 0 && Date.now() - this.lastReport >= REPORT_AGAIN_MS)
        this.report(this.reported, true);
      return;
    }
    if (!this.stream) await this.startStream(this.streamSplit);
    await this.pollStream(output);
  }

  snapshotState(checkpointId: number): CdcSplit<P, W>[] {
    const out: CdcSplit<P, W>[] = this.chunks.map((c) => ({ ...c }));
    if (this.reported.length > 0) out.push({ splitId: 'read-chunks', kind: 'read-chunks', chunks: [...this.reported] });
    if (this.streamSplit) {
      const point = this.point ?? { position: this.streamSplit.position, skip: this.streamSplit.skip };
      const chunks = this.index === undefined && this.stream ? [] : this.finishedChunks;
      const schema = this.stream ? this.schema : this.streamSplit.schema;
      out.push({
        splitId: 'stream',
        kind: 'stream',
        position: point.position,
        skip: point.skip,
        chunks: [...chunks],
        ...(schema !== undefined ? { schema } : {}),
      });
      if (this.stream) this.toConfirm.set(checkpointId, point.position);
      if (this.heldAt === -1) this.heldAt = checkpointId;
    }
    return out;
  }

  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    let position: P | undefined;
    for (const [id, p] of this.toConfirm) {
      if (id <= checkpointId) {
        position = p;
        this.toConfirm.delete(id);
      }
    }
    if (position !== undefined && this.stream) await this.stream.confirm(position);
    if (this.heldAt !== undefined && this.heldAt >= 0 && this.heldAt <= checkpointId) this.released = true;
  }

  async close(): Promise<void> {
    await this.stream?.close();
    this.stream = undefined;
    await this.dialect.close();
  }

  /**
   * A stream split restored from a job whose config captured other tables (decision 0041): the
   * tables no longer captured leave its record and chunks, and the added tables' snapshot chunks
   * are read by this reader, holding the split, before the stream resumes from its position (the
   * chunks' watermarks drop the changes their rows already hold, as for a one-reader snapshot).
   */
  private async reconcileTables(split: StreamSplit<P, W>, output: Collector): Promise<void> {
    this.reconciled = true;
    const { schema } = split;
    if (
      !this.dialect.reconcileTables ||
      typeof schema !== 'object' ||
      schema === null ||
      !Array.isArray((schema as { tables?: unknown }).tables)
    )
      return;
    const r = await this.dialect.reconcileTables(schema);
    if (r.added.length === 0 && r.removed.length === 0) return;
    const removed = new Set(r.removed);
    this.streamSplit = { ...split, schema: r.schema, chunks: split.chunks.filter((c) => !removed.has(c.tableId)) };
    this.finishedChunks = this.finishedChunks.filter((c) => !removed.has(c.tableId));
    this.chunks.push(...r.chunks);
    for (const t of (r.schema as { tables: readonly { catalog: CatalogTable }[] }).tables)
      if (r.added.includes(t.catalog.tableId)) this.announce(t.catalog, output);
  }

  /**
   * Tells downstream that a table joined the job (a restore whose config added it): a new
   * table, whose target sinks make exist by their save mode before its first row. Announced
   * again after a restore that still has its chunks to read (sinks make sure, idempotently).
   */
  private announce(table: CatalogTable, output: Collector): void {
    if (this.debezium) {
      // Debezium's records carry their table: nothing to announce downstream.
      this.debezium.envelope.setTable(table);
      return;
    }
    if (this.announced.has(table.tableId)) return;
    this.announced.add(table.tableId);
    output.collectSchemaChange?.({ type: 'schema-change', tableId: table.tableId, changes: [], table, created: true });
  }

  private async readChunk(split: SnapshotSplit, output: Collector): Promise<void> {
    const read = await this.dialect.readChunk(split);
    if (read === undefined) {
      // Its table is no longer captured (a restore with another config): nothing to read.
      this.chunks.shift();
      return;
    }
    const { rows, watermark } = read;
    if (split.announce && read.table) this.announce(read.table, output);
    const batch = new Array<Row>(rows.length);
    const tableId = split.tableId;
    if (this.debezium) {
      const envelope = this.envelopeFor(tableId, read.table);
      const at = { tsMs: Date.now(), snapshot: true, position: {} };
      for (let i = 0; i < rows.length; i++) batch[i] = envelope.row(tableId, 'r', null, rows[i], at);
    } else for (let i = 0; i < rows.length; i++) batch[i] = { kind: RowKind.INSERT, tableId, fields: rows[i] };
    this.chunks.shift();
    const finished: FinishedChunk<W> = {
      splitId: split.splitId,
      tableId,
      keyIndex: split.keyIndex ?? -1,
      lower: split.lower,
      upper: split.upper,
      watermark,
    };
    if (this.streamSplit) this.finishedChunks.push(finished);
    else {
      this.reported.push(finished);
      this.report([finished], this.chunks.length === 0);
    }
    if (batch.length > 0) output.collectBatch(batch);
  }

  /** Tells the enumerator these chunks are read (the rows go out in the same poll, before any barrier). */
  private report(chunks: readonly FinishedChunk<W>[], request: boolean): void {
    const event: ChunksFinishedEvent = { type: 'cdc-chunks-finished', chunks: [...chunks] };
    this.ctx?.sendSourceEvent?.(event);
    if (request) this.ctx?.sendSplitRequest();
    this.lastReport = Date.now();
  }

  private async startStream(split: StreamSplit<P, W>): Promise<void> {
    this.point = { position: split.position, skip: split.skip };
    this.skipRemaining = split.skip;
    this.index = this.finishedChunks.length > 0 ? new ChunkIndex(this.finishedChunks) : undefined;
    this.schema = split.schema;
    this.stream = await this.dialect.openStream(split.position, split.schema);
    // Only the stream's own connection stays (MySQL: the binlog dump, one per source user).
    if (this.chunks.length === 0) await this.dialect.releaseSession?.();
  }

  private async pollStream(output: Collector): Promise<void> {
    let items: StreamItem<P>[];
    if (this.heldAt !== undefined) {
      if (!this.released) return;
      items = this.held;
      this.held = [];
      this.heldAt = undefined;
      this.released = false;
      this.applySchema(items.shift() as SchemaItem<P>, output);
    } else items = await this.stream!.poll(this.fetchSize, POLL_WAIT_MS);
    if (items.length === 0) {
      // Caught up with the database's log: no lag until the next change.
      this.ctx?.reportEventTime?.(null);
      return;
    }
    const batch: Row[] = [];
    let newest: number | undefined;
    const point = this.point!;
    for (let n = 0; n < items.length; n++) {
      const item = items[n];
      if (item.type === 'schema') {
        // The rows before the change go out now; the change and what follows wait for a
        // completed checkpoint (see SchemaItem).
        this.held = items.slice(n);
        this.heldAt = -1;
        const wanted: CheckpointWantedEvent = { type: 'cdc-checkpoint-wanted' };
        this.ctx?.sendSourceEvent?.(wanted);
        break;
      }
      if (item.type === 'commit') {
        point.position = item.next;
        point.skip = 0;
        this.txn = undefined;
        this.skipRemaining = 0;
        continue;
      }
      if (item.txn !== this.txn) this.beginTxn(item.txn);
      this.txnCount++;
      point.position = item.txn.resume;
      point.skip = this.txnCount;
      if (this.skipRemaining > 0) {
        this.skipRemaining--;
        continue;
      }
      this.emit(item, batch);
      if (item.txn.commitTimeMs !== undefined) newest = Math.max(newest ?? 0, item.txn.commitTimeMs);
    }
    if (batch.length > 0) output.collectBatch(batch);
    if (newest !== undefined) this.ctx?.reportEventTime?.(newest);
  }

  /** Emits a held schema change and moves the position past it. */
  private applySchema(item: SchemaItem<P>, output: Collector): void {
    if (this.debezium) {
      // The records after the change carry its columns (Debezium's own DDL records are not written).
      for (const e of item.events) this.debezium.envelope.setTable(e.table);
    } else {
      if (!output.collectSchemaChange) {
        throw new TidewayError(
          ErrorCode.INTERNAL,
          `table ${item.events[0]?.tableId ?? '?'} changed, and the engine hosting this reader has no path for schema changes`,
        );
      }
      for (const e of item.events) output.collectSchemaChange(e);
    }
    this.schema = item.schema;
    if (item.next !== undefined) {
      this.point!.position = item.next;
      this.point!.skip = 0;
      this.txn = undefined;
      this.skipRemaining = 0;
    }
  }

  private beginTxn(txn: ChangeTxn<P>): void {
    this.txn = txn;
    this.txnCount = 0;
    this.txnPast = false;
    if (this.index && this.index.watermarks().every((w) => this.dialect.streamPast(w, txn))) {
      // Every later transaction is after every chunk: de-duplication is over.
      this.index = undefined;
      this.finishedChunks = [];
      this.txnPast = true;
    }
  }

  /** Whether the chunk holding `row` already contains this transaction's change. */
  private inSnapshot(tableId: string, row: readonly unknown[], txn: ChangeTxn<P>): boolean {
    if (!this.index || this.txnPast) return false;
    const w = this.index.watermarkOf(tableId, row);
    return w !== undefined && this.dialect.snapshotHas(w, txn);
  }

  private emit(item: ChangeItem<P>, batch: Row[]): void {
    const { tableId, before, after, txn } = item;
    if (this.debezium) {
      const kept = (r: unknown[] | null) => r !== null && !this.inSnapshot(tableId, r, txn);
      const op = item.op === 'insert' ? 'c' : item.op === 'delete' ? 'd' : 'u';
      if (!kept(op === 'd' ? before : after)) return;
      const at = { tsMs: txn.commitTimeMs ?? Date.now(), snapshot: false, position: this.debezium.position(txn.resume) };
      batch.push(this.envelopeFor(tableId).row(tableId, op, op === 'c' ? null : before, op === 'd' ? null : after, at));
      return;
    }
    const row =
      txn.version === undefined
        ? (kind: RowKind, fields: unknown[]): Row => ({ kind, tableId, fields })
        : (kind: RowKind, fields: unknown[]): Row => ({ kind, tableId, fields, version: txn.version });
    switch (item.op) {
      case 'insert':
        if (after && !this.inSnapshot(tableId, after, txn)) batch.push(row(RowKind.INSERT, after));
        return;
      case 'delete':
        if (before && !this.inSnapshot(tableId, before, txn)) batch.push(row(RowKind.DELETE, before));
        return;
      case 'update':
        if (before && !this.inSnapshot(tableId, before, txn)) batch.push(row(RowKind.UPDATE_BEFORE, before));
        if (after && !this.inSnapshot(tableId, after, txn)) batch.push(row(RowKind.UPDATE_AFTER, after));
        return;
    }
  }
}
